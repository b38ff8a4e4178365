"""The soak script (``scripts/lab/soak.py``) on a tiny budget: every game and player count
plays, every invariant is checked, the counts are printed and no violation is found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "lab" / "soak.py"


@pytest.mark.slow
def test_soak_runs_every_game_without_violations() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--steps", "400", "--seed", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    rows = out.stdout.splitlines()[1:]
    labels = [spec.label(n) for spec in GAMES.values() for n in spec.players]
    parsed = [row.rsplit(maxsplit=9) for row in rows]  # label, then 9 numbers
    assert [cells[0] for cells in parsed] == labels
    for _label, steps, games, *_, violations in parsed:
        assert violations == "0"
        assert int(steps.replace(",", "")) >= 400 and int(games.replace(",", "")) >= 1


@pytest.mark.slow
def test_soak_reports_a_violation() -> None:
    # a broken engine (from_json forgets the position) must be caught and fail the run
    code = (
        f"import sys; sys.path.insert(0, {str(SCRIPT.parent)!r})\n"
        "import soak\n"
        "from tabletop_zoo.envs.registry import GAMES\n"
        "spec = next(iter(GAMES.values()))\n"
        "cls = type(spec.new_state())\n"
        "cls.from_json = classmethod(lambda cls, text: spec.new_state())\n"
        "sys.exit(soak.main(['--game', spec.name, '--steps', '50']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "JSON round trip changed the state" in out.stdout
