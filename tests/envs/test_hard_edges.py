"""Hard edges: every bad input refused cleanly, every accepted state playable, copies that
keep the game, misuse order on ``raw_env``. Generic tests run on every game of ``GAMES``
(and the Nim toy); the game-specific edges name their game.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import re

import numpy as np
import pytest

from tabletop_zoo.envs.arktia import ArktiaGame, ArktiaState, parse_layout
from tabletop_zoo.envs.errors import (
    InvalidLayoutError,
    InvalidStateError,
    NotationError,
    UsageError,
)
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import board as mole_hill_board
from tabletop_zoo.envs.registry import make_env, make_raw_env


def _play(env, rng: random.Random, steps: int) -> None:
    """``steps`` random legal steps (``None`` for done agents) of an AEC env."""
    for _ in range(steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"])))


def _snapshot(env) -> tuple:
    """What a player of ``env`` can see: position, agent, rewards, every observation."""
    raw = env.unwrapped
    views = [
        (env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
        for a in env.agents
    ]
    return (
        raw.game_state.to_json(),
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards) if hasattr(env, "_cumulative_rewards") else None,
        dict(env.terminations),
        views,
    )


# ---------------------------------------------------------------- copies keep the game
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_continue_the_same_game_independently(game_case, wrapped: bool, how: str) -> None:
    spec, n = game_case
    make = make_env if wrapped else make_raw_env
    env = make(spec.name, n)
    env.reset(seed=3)
    _play(env, random.Random(1), 9)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert _snapshot(twin) == _snapshot(env)
    # the same actions give the same game, ...
    _play(env, random.Random(2), 40)
    _play(twin, random.Random(2), 40)
    assert _snapshot(twin) == _snapshot(env)
    # ... the same RNG stream on the next unseeded reset, ...
    env.reset()
    twin.reset()
    assert _snapshot(twin) == _snapshot(env)
    # ... and the copy is independent of the original
    before = _snapshot(env)
    _play(twin, random.Random(3), 5)
    assert _snapshot(env) == before


# ---------------------------------------------------------------- misuse order
def test_raw_env_calls_before_reset_say_to_reset(game_case) -> None:
    spec, n = game_case
    raw = make_raw_env(spec.name, n)
    calls = {
        "step()": lambda: raw.step(0),
        "observe()": lambda: raw.observe("player_0"),
        "last()": lambda: raw.last(),
        "state()": lambda: raw.state(),
        "action_mask()": lambda: raw.action_mask("player_0"),
    }
    drawing = make_raw_env(spec.name, n, render_mode="ansi")
    calls["render()"] = drawing.render
    for name, call in calls.items():
        with pytest.raises(UsageError, match=re.escape(f"{name} before reset(): call env.reset()")):
            call()


def test_raw_env_step_after_the_end_says_to_reset(game_case) -> None:
    spec, n = game_case
    raw = make_raw_env(spec.name, n)
    raw.reset(seed=0)
    _play(raw, random.Random(0), 10_000)
    assert raw.agents == []
    with pytest.raises(UsageError, match="reset"):
        raw.step(0)
    raw.reset(seed=0)  # and a new game starts normally
    assert raw.agents == raw.possible_agents


def test_raw_env_unknown_agent_is_named(game_case) -> None:
    spec, n = game_case
    raw = make_raw_env(spec.name, n)
    raw.reset(seed=0)
    with pytest.raises(UsageError, match="player_0"):
        raw.observe("player_9")


def test_reset_after_a_failed_step_starts_a_clean_game(game_case) -> None:
    spec, n = game_case
    raw = make_raw_env(spec.name, n)
    raw.reset(seed=4)
    with pytest.raises(ValueError):
        raw.step(-1)
    raw.reset(seed=4)
    fresh = make_raw_env(spec.name, n)
    fresh.reset(seed=4)
    assert _snapshot(raw) == _snapshot(fresh)
    _play(raw, random.Random(0), 20)  # and plays on


def test_wrapped_env_keeps_pettingzoo_order_checks(game_case) -> None:
    spec, n = game_case
    env = make_env(spec.name, n)
    with pytest.raises(Exception) as caught:  # PettingZoo's OrderEnforcingWrapper decides
        env.step(0)
    assert not isinstance(caught.value, UsageError)


# ---------------------------------------------------------------- Arktia saved states
def _arktia_setup(seed: int = 0, plies: int = 2) -> dict:
    rng = random.Random(seed)
    state = ArktiaGame(2).new_initial_state()  # 2 players: setup with neutral pieces
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    return json.loads(state.to_json())


def test_arktia_refuses_a_player_ended_during_the_setup() -> None:
    data = _arktia_setup()
    assert data["round"] == 0
    data["ended"] = [1]
    with pytest.raises(InvalidStateError, match="setup"):
        ArktiaState.from_json(json.dumps(data))


def test_arktia_refuses_several_own_pieces_in_opening_round_1() -> None:
    state = ArktiaGame(3).new_initial_state()  # 3 players: no neutrals, round 1 at once
    state.apply_action(state.legal_actions()[0])  # seat 0 places its first piece
    data = json.loads(state.to_json())
    assert data["round"] == 1 and data["current_player"] == 1
    tile = next(name for name, stack in data["stacks"].items() if stack)
    free = [name for name, stack in data["stacks"].items() if not stack]
    layout = parse_layout(data["layout"])
    neighbour = next(
        layout.names[t] for t in layout.neighbours[layout.index_of(tile)] if layout.names[t] in free
    )
    data["stacks"][neighbour] = [[0, "G"]]
    data["reserves"][0][0] -= 1
    data["turn"] += 1
    with pytest.raises(InvalidStateError, match="opening round 1"):
        ArktiaState.from_json(json.dumps(data))


def test_arktia_refuses_a_turn_counter_below_the_pieces_placed() -> None:
    data = _arktia_setup(plies=4)
    data["turn"] = 1
    with pytest.raises(InvalidStateError, match="turn"):
        ArktiaState.from_json(json.dumps(data))


def test_arktia_accepts_any_large_turn_count_and_plays_on() -> None:
    rng = random.Random(1)
    state = ArktiaGame(2).new_initial_state()
    while state.round < 3:
        state.apply_action(rng.choice(state.legal_actions()))
    data = json.loads(state.to_json())
    data["turn"] = 10**9
    loaded = ArktiaState.from_json(json.dumps(data))
    for _ in range(5):
        if loaded.is_terminal():
            break
        loaded.apply_action(rng.choice(loaded.legal_actions()))
        assert ArktiaState.from_json(loaded.to_json()) == loaded


# ---------------------------------------------------------------- Mole Hill saved states
def test_mole_hill_refuses_a_float_round_with_invalid_state_error() -> None:
    data = json.loads(MoleHillGame().new_initial_state().to_json())
    data["round"] = 1.0
    with pytest.raises(InvalidStateError, match="round"):
        MoleHillState.from_json(json.dumps(data))


# ---------------------------------------------------------------- notation and layouts
def test_arktia_notation_is_ascii_and_bounded() -> None:
    state = ArktiaGame(2).new_initial_state()
    for text in ("a1-b1/" + "9" * 5000, "a1-b1/\u0662", "T@c\u0663", "t@c3" + " " * 40):
        with pytest.raises(NotationError):
            state.string_to_action(text)


def test_mole_hill_notation_is_ascii_and_rejects_bools() -> None:
    for action in (True, False, 1.0):
        with pytest.raises(NotationError):
            mole_hill_board.action_to_string(action)
    for text in ("e\u0664", "e4" + " " * 40, "e4-" * 2000):
        with pytest.raises(NotationError):
            mole_hill_board.string_to_action(text)


def test_layout_lines_with_a_trailing_tab_are_refused() -> None:
    with pytest.raises(InvalidLayoutError, match="tab"):
        parse_layout(" o o\no o o\t")
    with pytest.raises(InvalidLayoutError, match="characters"):
        parse_layout("o o\n" + " " * 20_000)
