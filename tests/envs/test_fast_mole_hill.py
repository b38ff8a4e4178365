"""Differential tests: the compiled Mole Hill engine against the Python reference engine.

Random games are played through both engines with the same actions; at every step the
legal sets, scores, terminations and the states themselves are compared, in both
directions (Python state -> compiled row, compiled row -> Python state). Counts here fit
the CI budget; docs/fast.md quotes a longer run (``FAST_TEST_GAMES``).
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled engines need the 'fast' extra")

from tabletop_zoo.baselines.agents.search import GreedyAgent, MCTSAgent
from tabletop_zoo.envs.errors import IllegalActionError
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill.fast.engine import FastMoleHill
from tabletop_zoo.envs.registry import fast_engine, make_raw_env

GAMES = int(os.environ.get("FAST_TEST_GAMES", "400"))


@pytest.mark.slow
@pytest.mark.parametrize("random_flowers", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_single_games_match_the_reference_both_ways(random_flowers: bool) -> None:
    game = MoleHillGame(random_flowers=random_flowers)
    engine = FastMoleHill(game)
    rng = random.Random(1)
    for g in range(GAMES):
        state = game.new_initial_state(seed=g)
        fast = engine.new_initial_state(seed=g)
        deep = g % 10 == 0  # compiled -> Python (a JSON replay) on every step of some games
        while not state.is_terminal():
            legal = state.legal_actions()
            assert fast.legal_actions() == legal
            assert fast.current_player == state.current_player
            assert fast.scores() == state.scores()
            action = rng.choice(legal)
            state.apply_action(action)
            fast.apply_action(action)
            assert np.array_equal(engine.from_state(state), fast.row)  # Python -> compiled
            if deep:
                assert engine.to_state(fast.row) == state  # compiled -> Python
        assert fast.is_terminal()
        assert fast.returns() == state.returns()
        assert engine.to_state(fast.row) == state


def _reference_batch(engine: FastMoleHill, states: np.ndarray) -> list[MoleHillState]:
    return [engine.to_state(row) for row in states]


@pytest.mark.slow
@pytest.mark.parametrize("random_flowers", [False, True])
def test_batched_step_matches_the_reference_with_autoreset(random_flowers: bool) -> None:
    engine = fast_engine("mole_hill", random_flowers=random_flowers)
    batch = 32
    states = engine.new_states(batch, seed=3)
    reference = _reference_batch(engine, states)
    rng = np.random.default_rng(0)
    finished = 0
    while finished < max(64, GAMES // 4):
        mask = engine.legal_mask(states)
        for i, state in enumerate(reference):
            assert np.flatnonzero(mask[i]).tolist() == state.legal_actions()
        assert engine.scores(states).tolist() == [s.scores() for s in reference]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        result = engine.step(states, actions)
        for i, state in enumerate(reference):
            state.apply_action(int(actions[i]))
            assert result.terminated[i] == state.is_terminal()
            if state.is_terminal():
                finished += 1
                assert result.rewards[i].tolist() == state.returns()
                assert result.final_scores[i].tolist() == state.round_scores
                fresh = engine.to_state(states[i])  # autoreset: a new game in round 1
                assert fresh.round == 0 and fresh.trail == [] and fresh.current_player == 0
                if not random_flowers:
                    assert fresh == MoleHillGame().new_initial_state()
                reference[i] = fresh
            else:
                assert result.rewards[i].tolist() == [0.0, 0.0]
                assert np.array_equal(engine.from_state(state), states[i])


def test_observation_planes_equal_the_env_planes() -> None:
    """Games played through the AEC env: compiled planes of the live state == env planes."""
    for random_flowers in (False, True):
        env = make_raw_env("mole_hill", random_flowers=random_flowers)
        engine = fast_engine("mole_hill", random_flowers=random_flowers)
        rng = np.random.default_rng(5)
        for g in range(max(10, GAMES // 20)):
            env.reset(seed=g)
            for agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                live = env.unwrapped.game_state
                row = engine.from_state(live)[None]
                seat = env.possible_agents.index(agent)
                both = engine.observe(np.repeat(row, 2, axis=0), [0, 1])
                assert np.array_equal(both[seat], obs["observation"])
                assert np.array_equal(both[0], env.state())
                if terminated or truncated:
                    env.step(None)
                    continue
                mask = engine.legal_mask(row)[0]
                assert np.array_equal(mask.astype(np.int8), obs["action_mask"])
                env.step(int(rng.choice(np.flatnonzero(mask))))


def test_illegal_action_in_a_batch_raises_and_changes_nothing() -> None:
    engine = fast_engine("mole_hill")
    states = engine.new_states(3)
    engine.step(states, [31, 4, 62])  # three first placements (M4: anywhere)
    before = states.copy()
    with pytest.raises(IllegalActionError, match="game 1"):
        engine.step(states, [63, 5, 63])  # 5 is a space: the gardener must place a rod
    assert np.array_equal(states, before)
    with pytest.raises(IllegalActionError, match="shape"):
        engine.step(states, [63, 63])


def test_ruling_M7_jump_from_the_centre_in_compiled_code() -> None:
    """The mole on e4 may go to any unvisited space, ignoring rods (M7)."""
    state = MoleHillState.from_position(["d4", "e4"], ["e4-f4", "c3-c4"], mole_to_move=True)
    engine = FastMoleHill()
    fast = engine.wrap(engine.from_state(state))
    legal = fast.legal_actions()
    assert legal == [s for s in range(63) if s not in (30, 31)]  # all but d4, e4
    fast.apply_action(0)  # a1, far away
    assert engine.to_state(fast.row).trail == [30, 31, 0]


def test_ruling_M6_diagonal_blocked_only_when_both_paths_have_a_rod() -> None:
    """c3 -> d4: paths via d3 and via c4; one rod on each path blocks it (M6)."""
    engine = FastMoleHill()
    one = MoleHillState.from_position(["c3"], ["c3-d3"], mole_to_move=True)
    both = MoleHillState.from_position(["c3"], ["c3-d3", "c3-c4"], mole_to_move=True)
    d4 = 30
    assert d4 in engine.wrap(engine.from_state(one)).legal_actions()
    assert d4 not in engine.wrap(engine.from_state(both)).legal_actions()


def test_random_play_driver_counts_games() -> None:
    engine = fast_engine("mole_hill", random_flowers=True)
    steps, games = engine.random_play(16, 400, seed=0)
    assert steps == 16 * 400
    # a game has 2 rounds of at most 22 mole moves and 21 rods: at least 4 games per row
    assert 16 * (400 // 86) <= games <= 16 * 400 // 4
    assert engine.random_play(16, 400, seed=0) == (steps, games)  # seeded: repeatable


@pytest.mark.parametrize("fast", [True, False])
def test_search_agents_take_the_winning_last_step(fast: bool) -> None:
    """Mole Hill round 2, the mole (seat 1) on b4 with one piece left: its step ends the
    game (M8). Visited: 21 spaces with the flowers b6, h6 (white) and e7 (red), so it
    scores 12 + 2 + 2 = 16, or 18 by stepping onto the red a4 (M9); seat 0 made 17, so
    only a4 wins (M10)."""
    row7 = [f"{c}7" for c in "abcdefghi"]
    row6 = [f"{c}6" for c in "ihgfedcba"]
    rods = [f"{a}{r}-{b}{r}" for r in (1, 2) for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
    rods += [f"{c}1-{c}2" for c in "abcd"]
    state = MoleHillState.from_position(
        row7 + row6 + ["a5", "b5", "b4"], rods, round_number=2, round_scores=[17]
    )
    outcomes = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        assert child.is_terminal()
        outcomes[state.action_to_string(action)] = child.returns()[1]
    assert outcomes == {"a3": -1.0, "b3": -1.0, "c3": -1.0, "a4": 1.0, "c4": -1.0, "c5": -1.0}
    mask = np.zeros(173, dtype=bool)
    mask[state.legal_actions()] = True
    a4 = state.string_to_action("a4")
    assert MCTSAgent(100, seed=0, fast=fast).act(None, mask, state) == a4
    assert GreedyAgent(seed=0, fast=fast).act(None, mask, state) == a4
