"""scripts/lab/mcts_choices.py: do two searches choose alike, position by position."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest


def test_the_permutation_test_tells_alike_from_unlike(script) -> None:
    tool = script("mcts_choices")
    rng = np.random.default_rng(0)
    alike = rng.integers(0, 5, size=(2, 200))  # both rows from one distribution
    unlike = np.stack([rng.integers(0, 5, 200), rng.integers(3, 8, 200)])
    assert tool.permutation_p(alike, rng) > 0.05
    assert tool.permutation_p(unlike, rng) == pytest.approx(1 / 1001)
    # a 2 x 2 table by hand: rows (3, 1) and (1, 3), expected 2 everywhere -> 4 * 1/2
    labels, moves = np.array([0, 0, 0, 0, 1, 1, 1, 1]), np.array([0, 0, 0, 1, 0, 1, 1, 1])
    assert tool.chi_squared(labels, moves, 2) == pytest.approx(2.0)


def test_fisher_combination_is_the_chi_squared_tail(script) -> None:
    fisher = script("mcts_choices").fisher_p
    # one p-value: chi-squared with 2 degrees is exponential, so the combination is p itself
    assert fisher([0.3]) == pytest.approx(0.3)
    # two: x = -2 ln(0.1 * 0.2); the 4-degree tail exp(-x/2) (1 + x/2)
    x = -2 * math.log(0.02)
    assert fisher([0.1, 0.2]) == pytest.approx(math.exp(-x / 2) * (1 + x / 2))


def test_a_tiny_run_prints_every_position_and_the_summary(script, capsys) -> None:
    pytest.importorskip("pyspiel")
    tool = script("mcts_choices")
    argv = ["--game", "mole_hill", "--simulations", "4", "--positions", "2", "--repeats", "4"]
    argv += ["--their-simulations", "2"]
    assert tool.main(argv) == 0
    printed = capsys.readouterr().out
    assert len(re.findall(r"^position +\d+: +\d+ legal moves", printed, re.M)) == 2
    assert re.search(r"2 positions, 4 searches per bot each: [0-2] with p < 0.05", printed)


def test_too_few_positions_is_an_error_not_an_endless_search(script) -> None:
    class OneMove:  # every position has a single legal move: none qualifies
        def new_initial_state(self):
            return self

        def is_terminal(self) -> bool:
            return False

        def legal_actions(self) -> list[int]:
            return [0]

        def apply_action(self, action: int) -> None:
            pass

    with pytest.raises(ValueError, match="200 random games gave 0 positions, not 2"):
        script("mcts_choices").positions(OneMove(), 2, 5, seed=0)
