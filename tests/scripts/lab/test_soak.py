"""The soak script (``scripts/lab/soak.py``) on a tiny budget: every game and player count
plays, every invariant is checked, the counts are printed and no violation is found; also
with truncation (a small ``max_turns``) and with the games' option variants."""

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
        f"import runpy, sys; soak_main = runpy.run_path({str(SCRIPT)!r}, run_name='soak')['main']\n"
        "from tabletop_zoo.envs.registry import GAMES\n"
        "spec = next(iter(GAMES.values()))\n"
        "cls = type(spec.new_state())\n"
        "cls.from_json = classmethod(lambda cls, text: spec.new_state())\n"
        "sys.exit(soak_main(['--game', spec.name, '--steps', '50']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "JSON round trip changed the state" in out.stdout


def soak_rows(*argv: str) -> list[list[str]]:
    """Run the soak with ``argv``; its rows split into label and the nine numbers."""
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return [row.rsplit(maxsplit=9) for row in out.stdout.splitlines()[1:]]


@pytest.mark.slow
def test_truncation_soaks_in_every_game() -> None:
    """A small ``max_turns``: most games end by truncation, every invariant still holds."""
    rows = soak_rows("--steps", "150", "--seed", "4", "--env-option", "max_turns=10")
    assert len(rows) == sum(len(spec.players) for spec in GAMES.values())
    for _label, _steps, games, _term, truncated, *_, violations in rows:
        assert violations == "0" and int(truncated) >= 1 and int(games) >= int(truncated)


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["--game", "mole_hill", "--env-option", "random_flowers=true"],
        ["--game", "mole_hill", "--env-option", "reward_mode=score"],
        ["--game", "arktia", "--num-players", "3", "--env-option", "neutral_pieces=true"],
        ["--game", "arktia", "--num-players", "2", "--env-option", "neutral_pieces=false"],
        ["--game", "arktia", "--env-option", "reward_mode=score", "--env-option", "max_turns=25"],
    ],
)
def test_option_variants_soak_without_violations(argv) -> None:
    for _label, steps, *_, violations in soak_rows("--steps", "400", "--seed", "5", *argv):
        assert violations == "0" and int(steps.replace(",", "")) >= 400
