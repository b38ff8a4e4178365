"""Each tutorial of docs/tutorials/ runs end to end with a tiny budget: the command
docs/tutorials/README.md documents for it, with the tiny budget of CASES appended (argparse
keeps the last value of a flag), then its rating through the ``py:`` agent spec in the
cheapest form (against one random player, one round). Its ``result.json`` follows the
schema (the table command reads it) and the trained policy loads through ``py:``.

A tutorial whose library is not installed is skipped (one line): the libraries are extras
that CI installs in venvs of their own (.ci/run), one per set of extras that install
together."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_zoo.baselines.evaluation.outside_results import read_result

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
CHEAP_RATING = ["--eval-games", "2", "--rate-against", "random"]
#: tutorial -> (the modules it needs, its tiny budget)
CASES = {
    "shimmy_openspiel.py": (("shimmy", "pyspiel"), ["--games", "8", *CHEAP_RATING]),
    "supersuit_sb3.py": (("supersuit", "sb3_contrib"), ["--steps", "1024", *CHEAP_RATING]),
    "tianshou_dqn.py": (("tianshou",), ["--steps", "1200", *CHEAP_RATING]),
    "agilerl_dqn.py": (("agilerl", "peft"), ["--steps", "1200", *CHEAP_RATING]),
    # the skrl and benchmarl extras; they write <out>/result.json and model.pt (outside cwd)
    "skrl_ppo.py": (
        ("skrl",),
        ["--steps", "300", "--eval-games", "2", "--no-rate", "--out", "../skrl_ppo"],
    ),
    "benchmarl_mappo.py": (
        ("benchmarl",),
        ["--steps", "200", "--eval-games", "2", "--no-rate", "--out", "../benchmarl_mappo"],
    ),
}


def documented_commands() -> dict[str, str]:
    """Tutorial file -> its first command in the README."""
    text = (TUTORIALS / "README.md").read_text()
    commands = re.findall(r"^python (docs/tutorials/(\w+\.py)\b.*?)(?:\s+#.*)?$", text, re.M)
    return {name: command for command, name in reversed(commands)}


def test_every_tutorial_has_a_case_and_a_documented_command() -> None:
    names = sorted(p.name for p in TUTORIALS.glob("*.py"))
    assert names == sorted(CASES)
    assert sorted(documented_commands()) == names


def run_tutorial(name: str, budget: list[str], tmp_path: Path, games: int = 2) -> None:
    """Run ``name`` with ``budget`` in ``tmp_path``; check its ``result.json`` (``games`` per
    win rate), its summary and its rating."""
    modules = CASES[name][0]
    missing = [m for m in modules if importlib.util.find_spec(m) is None]  # without importing
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (docs/tutorials/README.md)")
    command = shlex.split(documented_commands()[name]) + [*budget, "--seed", "1"]
    command[0] = str(ROOT / command[0])
    done = subprocess.run(
        [sys.executable, *command],
        cwd=tmp_path,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    flags = dict(zip(command, command[1:], strict=False))  # a repeated flag: its last value
    out = tmp_path / flags.get("--out", f"runs/tutorials/{Path(name).stem}")
    result = read_result(out / "result.json")
    assert result["tutorial"] == name and result["seed"] == 1
    assert result["policy"] == f"py:docs/tutorials/{name}:policy"
    assert (tmp_path / result["model"]).is_file()
    for key in ("chance", "before", "after"):
        assert 0 <= result[key]["low"] <= result[key]["rate"] <= result[key]["high"] <= 1
        assert result[key]["games"] == games
    assert f"{result['after']['rate']:.2f} [" in done.stdout  # its summary, intervals shown
    if "--no-rate" not in command:  # the rating through py:, of the trained model
        assert "1 x random" in done.stdout and (out / "rating" / "games.jsonl").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_tutorial_runs_with_a_tiny_budget(name: str, tmp_path: Path) -> None:
    run_tutorial(name, CASES[name][1], tmp_path)


@pytest.mark.slow
def test_skrl_tutorial_runs_on_three_player_arktia(tmp_path: Path) -> None:
    budget = ["--game", "arktia", "--num-players", "3", "--steps", "100", "--eval-games", "3"]
    run_tutorial("skrl_ppo.py", [*budget, "--no-rate", "--out", "../skrl_arktia"], tmp_path, 3)
