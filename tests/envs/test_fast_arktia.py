"""Differential tests: the compiled Arktia engine against the Python reference engine,
for 2, 3 and 4 players, both neutral variants and custom layouts.

Both engines play the same random actions; at every decision the legal lists, scores,
seat to act, phases and the states (Python -> compiled row each step, compiled row ->
Python state through ``from_json`` on some games at every step, on all at the end) are
compared. ``FAST_TEST_GAMES`` scales the counts (docs/fast.md quotes a longer run).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled engines need the 'fast' extra")

from tabletop_zoo.envs.arktia import ArktiaGame
from tabletop_zoo.envs.arktia.constants import DEFAULT_MAX_TURNS
from tabletop_zoo.envs.arktia.fast.engine import FastArktia
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError
from tabletop_zoo.envs.registry import fast_engine, make_raw_env

GAMES = max(400, int(os.environ.get("FAST_TEST_GAMES", "400")))  # 400: every phase is met
RING = "\n".join(["  o o o", " o   o o", "o o o o o", " o o   o", "  o o o"])  # holes inside
STRIP = "\n".join(["o o o o o o o o o", " o o o o o o o o"])  # long straight lines
CONFIGS = {
    "2p": (2, None, None),
    "2p no neutral": (2, None, False),
    "3p": (3, None, None),
    "3p neutral": (3, None, True),
    "4p": (4, None, None),
    "2p ring layout": (2, RING, None),
    "3p strip layout": (3, STRIP, False),
}


def _play_both(game: ArktiaGame, games: int, seed: int) -> Counter:
    """Random games through both engines, compared at every decision; phases seen."""
    engine = FastArktia(game)
    rng = random.Random(seed)
    phases: Counter = Counter()
    for g in range(games):
        state = game.new_initial_state()
        fast = engine.new_initial_state()
        deep = g % 10 == 0
        while not state.is_terminal() and state.turn < DEFAULT_MAX_TURNS:
            legal = state.legal_actions()
            assert fast.legal_actions() == legal
            assert fast.current_player == state.current_player
            assert fast.scores() == state.scores()
            phases[state.phase] += 1
            action = rng.choice(legal)
            state.apply_action(action)
            fast.apply_action(action)
            expected = engine.canonical(engine.from_state(state))  # Python -> compiled
            assert np.array_equal(engine.canonical(fast.row), expected)
            if deep:  # compiled -> Python
                assert engine.to_state(fast.row).to_json() == state.to_json()
        assert fast.is_terminal() == state.is_terminal()
        assert fast.returns() == state.returns()
        assert engine.to_state(fast.row).to_json() == state.to_json()
    return phases


@pytest.mark.slow
@pytest.mark.parametrize(
    "config", [c if c == "2p" else pytest.param(c, marks=pytest.mark.slow) for c in sorted(CONFIGS)]
)
def test_random_games_match_the_reference_both_ways(config: str) -> None:
    players, layout, neutral = CONFIGS[config]
    game = ArktiaGame(players, layout=layout, neutral_pieces=neutral)
    phases = _play_both(game, GAMES, seed=len(config))
    # the games reached every kind of decision the configuration has (R6, R16, R17)
    expected = {"opening", "normal", "melt", "choose"} | (
        {"setup"} if game.neutral_pieces else set()
    )
    assert expected <= set(phases), phases


@pytest.mark.slow
def test_batched_step_with_truncation_and_autoreset_matches_the_reference() -> None:
    for players in (2, 4):
        game = ArktiaGame(players)
        engine = FastArktia(game, max_turns=40)  # short: some games are truncated (R23)
        states = engine.new_states(24)
        reference = [engine.to_state(row) for row in states]
        rng = np.random.default_rng(players)
        seen = Counter()
        while seen["truncated"] < 10 or seen["terminated"] < 10:
            mask = engine.legal_mask(states)
            for i, state in enumerate(reference):
                assert np.flatnonzero(mask[i]).tolist() == state.legal_actions()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            result = engine.step(states, actions)
            for i, state in enumerate(reference):
                state.apply_action(int(actions[i]))
                over, cut = state.is_terminal(), not state.is_terminal() and state.turn >= 40
                assert (result.terminated[i], result.truncated[i]) == (over, cut)
                if over or cut:
                    seen["terminated" if over else "truncated"] += 1
                    assert result.final_scores[i].tolist() == state.scores()
                    best = max(state.scores())
                    tied = state.scores().count(best)
                    expected = [(1.0 if tied == 1 else 0.0) if s == best else -1.0
                                for s in state.scores()]  # fmt: skip
                    assert result.rewards[i].tolist() == expected
                    reference[i] = game.new_initial_state()  # autoreset
                else:
                    assert not result.rewards[i].any()
                assert engine.to_state(states[i]).to_json() == reference[i].to_json()


@pytest.mark.parametrize(
    ("players", "layout"),
    [
        (2, None),
        *(pytest.param(*c, marks=pytest.mark.slow) for c in [(3, None), (4, None), (2, RING)]),
    ],
)
def test_observation_planes_equal_the_env_planes(players: int, layout: str | None) -> None:
    env = make_raw_env("arktia", players, layout=layout, max_turns=120)
    engine = fast_engine("arktia", players, layout=layout)
    engine = FastArktia(engine.game, max_turns=120)
    rng = np.random.default_rng(players)
    for g in range(max(3, GAMES // 100)):
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            live = env.unwrapped.game_state
            rows = np.repeat(engine.from_state(live)[None], players, axis=0)
            planes = engine.observe(rows, np.arange(players))
            assert np.array_equal(planes[env.possible_agents.index(agent)], obs["observation"])
            assert np.array_equal(planes[0], env.state())
            if terminated or truncated:
                env.step(None)
                continue
            mask = engine.legal_mask(rows[:1])[0]
            assert np.array_equal(mask.astype(obs["action_mask"].dtype), obs["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(mask))))


def test_illegal_actions_raise_and_change_nothing() -> None:
    engine = fast_engine("arktia", 2)
    states = engine.new_states(2)
    before = states.copy()
    with pytest.raises(IllegalActionError, match="game 0"):
        engine.step(states, [engine.game.codec.STOP, 0])  # no stop during the setup
    assert np.array_equal(states, before)
    fast = engine.new_initial_state()
    with pytest.raises(IllegalActionError):
        fast.apply_action(engine.game.codec.STOP)
    assert np.array_equal(fast.row, engine.initial_row)
    with pytest.raises(InvalidOptionError):
        FastArktia(engine.game, max_turns=0)


def test_default_truncation_is_the_envs() -> None:
    from tabletop_zoo.envs import arktia_v0

    assert DEFAULT_MAX_TURNS == arktia_v0.DEFAULT_MAX_TURNS


@pytest.mark.slow
def test_random_play_driver_counts_games() -> None:
    engine = FastArktia(ArktiaGame(3), max_turns=50)
    steps, games = engine.random_play(8, 500, seed=1)
    assert steps == 4000
    assert 8 * (500 // 400) <= games <= steps // 3  # a game lasts at least 3 decisions
    assert engine.random_play(8, 500, seed=1) == (steps, games)


def test_line_table_holds_each_line_and_what_lies_beyond_a_tile() -> None:
    """``lines[o, t]``: ``t`` and the tiles beyond it on its line from ``o`` (what a hole
    at ``t`` hides, R14a); ``lines[o, 64]``: every tile on the lines from ``o``."""
    layout = ArktiaGame(2, layout=STRIP).layout
    engine = FastArktia(ArktiaGame(2, layout=STRIP))
    lines = engine.lines.view(np.uint64)
    a1, a3 = layout.index_of("a1"), layout.index_of("a3")
    east = layout.rays[a1][0]  # a2 ... a9
    assert a3 == east[1]
    assert int(lines[a1, a3]) == sum(1 << t for t in east[1:])  # a3 and beyond
    assert int(lines[a1, east[-1]]) == 1 << east[-1]
    everything = {t for ray in layout.rays[a1] for t in ray}
    assert int(lines[a1, 64]) == sum(1 << t for t in everything)
    off_line = set(range(layout.num_tiles)) - everything - {a1}
    assert off_line and all(int(lines[a1, t]) == 0 for t in off_line)
