"""``MoleHillState.greedy_best``: the greedy rule worked out from the masks, against the
rule by definition (each action played on a clone, :func:`greedy_best` of the search
agents) and on hand-built positions (M8, M9)."""

from __future__ import annotations

import random

import pytest

from tabletop_zoo.baselines.agents.search import greedy_best
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import board as A


def test_ruling_M8_greedy_gardener_ends_a_won_second_round() -> None:
    # Round 2, seat 1 the mole on a1 with b2 visited and a1-b1 rodded: a2 is its one way
    # out, so the rod a1-a2 ends the round (M8) and the game. The mole has 1 point (b2 is
    # a white flower, M9) against the gardener's 5 from round 1: the gardener wins.
    state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[5]
    )
    assert state.current_player == 0
    assert state.greedy_best() == [A.string_to_action("a1-a2")]


def test_ruling_M8_greedy_gardener_keeps_a_lost_second_round_open() -> None:
    # The same position with 0 points from round 1: ending the game now loses 0 to 1, so
    # every other rod (margin -1, the game goes on) beats the one that traps the mole.
    state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[0]
    )
    best = state.greedy_best()
    assert A.string_to_action("a1-a2") not in best
    assert best == [a for a in state.legal_actions() if a != A.string_to_action("a1-a2")]


def test_ruling_M9_greedy_mole_steps_onto_the_red_flower() -> None:
    # The mole on d2 may step to e1, a red flower (2 points, M9), or to plain spaces.
    state = MoleHillState.from_position(["d2"], [])
    assert state.greedy_best() == [A.string_to_action("e1")]


def _positions(games: int, seed: int) -> list[MoleHillState]:
    """Positions of games in which each side plays greedy or random at random, so that
    rounds end both ways (a trapped mole, the 22nd piece) and games end in both rounds."""
    rng = random.Random(seed)
    out = []
    for game_number in range(games):
        state = MoleHillGame(random_flowers=game_number % 3 == 0).new_initial_state(game_number)
        greedy_share = rng.random()
        while not state.is_terminal():
            out.append(state.clone())
            legal = state.legal_actions()
            pool = greedy_best(state, legal) if rng.random() < greedy_share else legal
            state.apply_action(rng.choice(pool))
    return out


@pytest.mark.slow
def test_greedy_best_is_the_rule_by_definition() -> None:
    ends = {"trapped": 0, "last piece": 0, "game over": 0, "won by ending": 0}
    for state in _positions(60, seed=3):
        legal = state.legal_actions()
        expected = greedy_best(state, legal)
        assert state.greedy_best() == expected, state.to_json()
        for action in legal:  # what the sample covers, so that the test can fail
            child = state.clone()
            child.apply_action(action)
            if child.round != state.round or child.is_terminal():
                ends["last piece" if state.mole_to_move else "trapped"] += 1
                ends["game over"] += child.is_terminal()
                ends["won by ending"] += child.is_terminal() and action in expected
    assert min(ends.values()) > 0, ends
