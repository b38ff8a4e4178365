"""Each tutorial of docs/tutorials/ runs end to end with a tiny budget and prints its result
line. A tutorial whose client is not installed is skipped (one line): the clients are the
``tutorials`` and ``agilerl`` extras, which CI installs in a venv of their own (.ci/run), and
``skrl`` and ``benchmarl``."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "docs" / "tutorials"
#: tutorial -> (the modules it needs, its tiny budget)
CASES = {
    "shimmy_openspiel.py": (("shimmy", "pyspiel"), ["--games", "8", "--eval-games", "2"]),
    "supersuit_sb3.py": (
        ("supersuit", "stable_baselines3"),
        ["--steps", "1024", "--eval-games", "2"],
    ),
    "tianshou_dqn.py": (("tianshou",), ["--steps", "200", "--eval-games", "2"]),
    "agilerl_dqn.py": (("agilerl", "peft"), ["--games", "2", "--eval-games", "2"]),
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
RESULT = re.compile(r"^win rate against random: before (\d\.\d\d), after (\d\.\d\d) \(", re.M)


def test_every_tutorial_has_a_case() -> None:
    assert sorted(p.name for p in TUTORIALS.glob("*.py")) == sorted(CASES)


def run_tutorial(name: str, budget: list[str], tmp_path: Path) -> None:
    """Run ``name`` with ``budget`` in ``tmp_path`` and check its result line."""
    modules = CASES[name][0]
    missing = [m for m in modules if importlib.util.find_spec(m) is None]  # without importing
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (docs/tutorials/README.md)")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(TUTORIALS / name), *budget, "--seed", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = RESULT.search(done.stdout)
    assert found, done.stdout[-2000:]
    assert all(0.0 <= float(rate) <= 1.0 for rate in found.groups())
    assert not list(tmp_path.iterdir()), "a tutorial wrote files"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_tutorial_runs_with_a_tiny_budget(name: str, tmp_path: Path) -> None:
    run_tutorial(name, CASES[name][1], tmp_path)


@pytest.mark.slow
def test_skrl_tutorial_runs_on_three_player_arktia(tmp_path: Path) -> None:
    budget = ["--game", "arktia", "--num-players", "3", "--steps", "100", "--eval-games", "3"]
    run_tutorial("skrl_ppo.py", [*budget, "--no-rate", "--out", "../skrl_arktia"], tmp_path)
