"""Seeded scripts give byte-identical outputs on the compiled engines and on the Python
ones (``TABLETOP_ZOO_FAST=1`` and ``=0``, each in a fresh process), and a script that
never uses the compiled engines does not import numba."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import FAST_SWITCH, GAMES, fast_path_available

ROOT = Path(__file__).resolve().parents[2]
needs_numba = pytest.mark.skipif(
    not fast_path_available(), reason="the 'fast' extra (numba) is missing: one path only"
)
# every game with a compiled engine, at its largest player count (the most seats to search)
COMPILED = [(spec.name, spec.players[-1]) for spec in GAMES.values() if spec.fast_engine]


def run_script(name: str, argv: list[str], cwd: Path, fast: str) -> str:
    """``scripts/<name>.py argv`` in a fresh process with ``TABLETOP_ZOO_FAST=fast``;
    its standard output."""
    env = {**os.environ, FAST_SWITCH: fast, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / f"{name}.py"), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def both_ways(name: str, argv: list[str], tmp_path: Path) -> dict[str, tuple[str, dict]]:
    """Standard output and every written file (bytes, by relative path) of the script,
    run on the compiled engines and on the Python ones in folders of their own."""
    seen = {}
    for fast in ("1", "0"):
        folder = tmp_path / f"fast{fast}"
        folder.mkdir()
        out = run_script(name, argv, folder, fast)
        files = {
            str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()
        }
        seen[fast] = (out, files)
    return seen


@pytest.mark.slow
@needs_numba
@pytest.mark.parametrize(
    ("game", "players"),
    [COMPILED[0], *(pytest.param(*c, marks=pytest.mark.slow) for c in COMPILED[1:])],
)
def test_evaluate_tables_are_the_same_on_both_engines(game, players, tmp_path) -> None:
    argv = ["--game", game, "--num-players", str(players), "--agents", "greedy,mcts:12"]
    argv += ["--games", "2", "--seed", "4", "--no-progress", "--out", "out"]
    seen = both_ways("evaluate", argv, tmp_path)
    (fast_out, fast_files), (python_out, python_files) = seen["1"], seen["0"]
    # the last line says how long it took; the tables and the CSV files must be equal
    assert fast_out.splitlines()[:-1] == python_out.splitlines()[:-1]
    csv = sorted(p for p in fast_files if p.endswith(".csv"))
    assert csv and csv == sorted(p for p in python_files if p.endswith(".csv"))
    for path in csv:
        assert fast_files[path] == python_files[path], path


@pytest.mark.slow
@needs_numba
@pytest.mark.parametrize(("game", "players"), COMPILED)
def test_recordings_are_the_same_on_both_engines(game, players, tmp_path) -> None:
    agents = ",".join(["greedy", "mcts:10", "random", "greedy"][:players])
    argv = ["--game", game, "--agents", agents, "--seed", "2", "--out", "game.gif"]
    seen = both_ways("record", argv, tmp_path)
    assert seen["1"][0] == seen["0"][0]
    assert seen["1"][1]["game.gif"] == seen["0"][1]["game.gif"]


@needs_numba
@pytest.mark.slow
def test_a_short_training_run_is_the_same_on_both_engines(tmp_path) -> None:
    """A tiny PPO run whose pool and evaluations play greedy (a search agent): the same
    evaluation rows and the same final weights."""
    game, players = COMPILED[0]
    argv = [
        "--game", game, "--num-players", str(players), "--runs-dir", "runs", "--name", "a",
        "--timesteps", "128", "--n-envs", "1", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "8", "--pool", "greedy", "--eval-every", "64",
        "--snapshot-every", "0", "--eval-games", "1", "--final-eval-games", "2",
        "--no-progress", "--seed", "3",
    ]  # fmt: skip
    seen = both_ways("train", argv, tmp_path)
    (_, fast_files), (_, python_files) = seen["1"], seen["0"]
    assert fast_files["runs/a/eval.csv"] == python_files["runs/a/eval.csv"]
    assert _weights(fast_files["runs/a/final_model.zip"]) == _weights(
        python_files["runs/a/final_model.zip"]
    )


def _weights(model_zip: bytes) -> bytes:
    """The policy parameters inside a saved SB3 model (the zip's other entries hold
    versions and paths)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(model_zip)) as archive:
        return archive.read("policy.pth")


@pytest.mark.slow
def test_a_script_without_search_agents_imports_no_numba(tmp_path) -> None:
    """``import tabletop_zoo`` and a tournament of random agents never load numba."""
    code = (
        "import runpy, sys\n"
        "import tabletop_zoo\n"
        "assert 'numba' not in sys.modules, 'import tabletop_zoo loaded numba'\n"
        f"sys.argv = ['evaluate.py', '--agents', 'random,random', '--games', '2',\n"
        f"            '--no-progress', '--out', {str(tmp_path / 'out')!r}]\n"
        f"try:\n    runpy.run_path({str(ROOT / 'scripts' / 'evaluate.py')!r}, "
        "run_name='__main__')\n"
        "except SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "bad = [m for m in ('numba', 'llvmlite') if sys.modules.get(m) is not None]\n"
        "assert not bad, bad\n"
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop(FAST_SWITCH, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
