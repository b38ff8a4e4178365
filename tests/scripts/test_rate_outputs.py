"""Pinned outputs of scripts/make_reference.py ladder and scripts/rate.py on a small ladder:
the same seeds keep giving the same games, ratings and printed tables (``rate_outputs/``,
recorded before the ladder code moved into the library).

To re-record after an intended change: ``python -m tests.scripts.test_rate_outputs``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

from tabletop_zoo.baselines.agents import reference

HERE = Path(__file__).resolve().parent
OUTPUTS = HERE / "rate_outputs"


def _without_cpu_time(text: str) -> str:
    """The output without the lines that report the CPU time it took."""
    return "\n".join(line for line in text.splitlines() if "cpu time" not in line) + "\n"


def _outputs(load_script, tmp_path: Path) -> dict[str, str]:
    """Fit a small ladder, rate an agent on it and against a field; the printed texts and
    the ladder's manifest entry (without its command and CPU time)."""
    make_reference, rate = load_script("make_reference"), load_script("rate")
    folder = os.getcwd()
    os.chdir(tmp_path)  # the records of the games: results/ladder, results/rate
    manifest = tmp_path / "manifest.json"
    saved = reference.MANIFEST_PATH, make_reference.MANIFEST_PATH, make_reference.REFERENCE_DIR
    reference.MANIFEST_PATH = make_reference.MANIFEST_PATH = manifest
    make_reference.REFERENCE_DIR = tmp_path
    out: dict[str, str] = {}
    try:
        runs = {
            "ladder": (
                make_reference,
                ["ladder", "--game", "mole_hill", "--num-players", "2", "--members",
                 "random,greedy,mcts:4", "--rounds", "1", "--random-opening", "1", "--seed", "2",
                 "--no-progress"],
            ),
            "rate_on_ladder": (
                rate, ["--game", "mole_hill", "--agent", "mcts:3", "--rounds", "1", "--seed", "3",
                       "--no-progress"]
            ),
            "rate_against": (
                rate,
                ["--game", "arktia", "--num-players", "3", "--agent", "greedy", "--against",
                 "random", "--against", "greedy", "--rounds", "1", "--seed", "4", "--no-progress"],
            ),
        }  # fmt: skip
        for name, (module, argv) in runs.items():
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                assert module.main(argv) == 0
            out[name] = _without_cpu_time(buffer.getvalue())
            if name == "ladder":
                entry = json.loads(manifest.read_text())["ladders"]["mole_hill-2p"]
                del entry["command"], entry["cpu_minutes"]
                out["ladder_entry"] = json.dumps(entry, indent=2, sort_keys=True) + "\n"
    finally:
        os.chdir(folder)
        reference.MANIFEST_PATH, make_reference.MANIFEST_PATH, make_reference.REFERENCE_DIR = saved
    return out


def test_ladder_and_rating_outputs_are_unchanged(script, tmp_path) -> None:
    outputs = _outputs(script, tmp_path)
    assert sorted(outputs) == sorted(p.stem for p in OUTPUTS.glob("*.txt"))
    for name, text in outputs.items():
        assert text == (OUTPUTS / f"{name}.txt").read_text(), name


if __name__ == "__main__":  # re-record
    import tempfile

    from tests.scripts.conftest import load_script

    OUTPUTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in _outputs(load_script, Path(tmp)).items():
            (OUTPUTS / f"{name}.txt").write_text(text)
