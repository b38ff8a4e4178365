"""Every script that loads ``ppo:`` files reads them without unpickling; ``--trust-model``
opts in. The crafted files (``ppo_files`` in ``tests/conftest.py``) would create a marker
file if anything of them were unpickled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import served

pytest.importorskip("sb3_contrib")

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def run(name: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """The script (lab tools too) in a pre-imported interpreter (``tests/served.py``): what
    matters is what it loads, which is the same."""
    runner = served.shared(ENV)
    return subprocess.run(
        runner.command([sys.executable, str(next(SCRIPTS.rglob(f"{name}.py"))), *argv]),
        capture_output=True,
        text=True,
        timeout=300,
        env=runner.env,
        cwd=cwd,
    )


@pytest.mark.slow
def test_scripts_play_the_crafted_file_without_running_it(ppo_files, tmp_path) -> None:
    spec = f"ppo:{ppo_files.crafted}"
    out = tmp_path / "out"
    argv = ["--agents", f"{spec},random", "--games", "2", "--out", str(out), "--no-progress"]
    proc = run("evaluate", *argv, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (out / "games.csv").is_file()
    proc = run("time_agent", "--game", "mole_hill", "--agent", spec, "--games", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not ppo_files.marker.exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, argv",
    [
        ("evaluate", ["--agents", "SPEC,random", "--games", "2", "--no-progress"]),
        ("time_agent", ["--game", "mole_hill", "--agent", "SPEC", "--games", "1"]),
    ],
)
def test_scripts_refuse_a_file_that_needs_unpickling(ppo_files, tmp_path, name, argv) -> None:
    argv = [a.replace("SPEC", f"ppo:{ppo_files.foreign}") for a in argv]
    argv = [a.replace("PATH", str(ppo_files.foreign)) for a in argv]
    proc = run(name, *argv, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "--trust-model" in proc.stderr.strip().splitlines()[-1]
    assert not ppo_files.marker.exists()


@pytest.mark.slow
def test_in_process_entry_points(script, ppo_files, tmp_path, monkeypatch, capsys) -> None:
    """rate.py, record.py, play.py --watch, train.py --pool, make_reference.py add --ppo."""
    crafted, foreign = f"ppo:{ppo_files.crafted}", f"ppo:{ppo_files.foreign}"
    monkeypatch.chdir(tmp_path)  # rate's record of the games: results/rate
    rate = script("rate")
    argv = ["--game", "mole_hill", "--agent", crafted, "--against", "random", "--rounds", "1"]
    assert rate.main(argv) == 0
    record = script("record")
    gif = tmp_path / "game.gif"
    argv = ["--game", "mole_hill", "--agents", f"{crafted},random", "--out", str(gif)]
    assert record.main(argv) == 0 and gif.is_file()
    play = script("play")
    assert play.main(["--game", "mole_hill", "--agents", f"{crafted},random", "--watch"]) == 0
    train = script("train")
    for main, argv in (
        (rate.main, ["--game", "mole_hill", "--agent", foreign, "--against", "random"]),
        (record.main, ["--game", "mole_hill", "--agents", f"{foreign},random", "--out", str(gif)]),
        (play.main, ["--game", "mole_hill", "--agents", f"{foreign},random", "--watch"]),
        (train.main, ["--game", "mole_hill", "--pool", f"random,{foreign}", "--runs-dir", "r"]),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert "--trust-model" in capsys.readouterr().err
    make_reference = script("make_reference")
    monkeypatch.setattr(make_reference, "MANIFEST_PATH", tmp_path / "manifest.json")
    monkeypatch.setattr(make_reference, "REFERENCE_DIR", tmp_path)
    argv = ["add", "--name", "mole_hill-2p-ppo", "--game", "mole_hill", "--num-players", "2"]
    argv += ["--command", "test", "--commit", "abc"]
    assert make_reference.main([*argv, "--ppo", str(ppo_files.crafted)]) == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["models"]["mole_hill-2p-ppo"]["kind"] == "ppo"
    with pytest.raises(SystemExit, match="--trust-model"):
        make_reference.main([*argv, "--ppo", str(ppo_files.foreign)])
    assert not ppo_files.marker.exists()
