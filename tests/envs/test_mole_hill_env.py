"""Mole Hill AEC env: PettingZoo API tests, determinism, illegal actions, options,
observation planes, rendering and random-play invariants (engine and env level)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

from tabletop_zoo.envs import mole_hill_v0
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import board as A
from tabletop_zoo.envs.mole_hill.observation import (
    P_CENTRE,
    P_DEST,
    P_I_AM_MOLE,
    P_JUMP,
    P_MOLE,
    P_MOLE_TO_MOVE,
    P_MY_SCORE,
    P_OPP_SCORE,
    P_ORDER,
    P_PIECES_LEFT,
    P_RED,
    P_ROD_BELOW,
    P_ROD_RIGHT,
    P_ROUND,
    P_VISITED,
    P_WHITE,
)

RED = {"e1", "a4", "i4", "e7"}
WHITE = {"b2", "h2", "b6", "h6"}


def _trajectory(env, episodes: int, seed: int) -> list:
    """Play ``episodes`` games after one seeded reset, actions from a seeded rng."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    record = []
    for episode in range(episodes):
        if episode:
            env.reset()
        game = env.unwrapped.game_state
        record.append((game.red_flowers, game.white_flowers))
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]))
            record.append((agent, reward, info["scores"], action, obs["observation"].sum()))
            env.step(None if action is None else int(action))
    return record


# ---------------------------------------------------------------- PettingZoo test suite
def test_pettingzoo_api_test_with_random_flowers() -> None:
    # the defaults run in test_env_contract.py
    api_test(mole_hill_v0.env(random_flowers=True, reward_mode="score"), num_cycles=50)


def test_pettingzoo_seed_test_with_random_flowers() -> None:
    seed_test(lambda: mole_hill_v0.env(random_flowers=True), num_cycles=100)


# ---------------------------------------------------------------- determinism
def test_same_seed_same_trajectory_over_many_episodes() -> None:
    first = _trajectory(mole_hill_v0.env(random_flowers=True), episodes=6, seed=11)
    again = _trajectory(mole_hill_v0.env(random_flowers=True), episodes=6, seed=11)
    other = _trajectory(mole_hill_v0.env(random_flowers=True), episodes=6, seed=12)
    assert first == again
    assert first != other
    flowers = {first[0]} | {x for x in first if isinstance(x[0], tuple)}
    assert len(flowers) > 1  # each episode draws new flowers from the seeded stream


# ---------------------------------------------------------------- illegal actions / end
def test_wrapped_env_illegal_action_ends_game_with_minus_one() -> None:
    env = mole_hill_v0.env()
    env.reset(seed=0)
    env.step(A.string_to_action("e4-f4"))  # a rod on the mole's first turn: illegal
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0}
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        seen[agent] = reward
        assert term or trunc
        env.step(None)
    assert seen == {"player_0": -1.0, "player_1": 0}
    assert env.agents == []
    # a step after everyone is gone is a no-op with a warning (OrderEnforcingWrapper)
    EnvLogger.mqueue.clear()
    EnvLogger.suppress_output()
    env.step(0)
    EnvLogger.unsuppress_output()
    assert any("step() called after all agents" in m for m in EnvLogger.mqueue)


def test_dead_agent_must_step_with_none() -> None:
    env = mole_hill_v0.raw_env()
    env.reset(seed=0)
    env.unwrapped.game_state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[0]
    )
    env.agent_selection = "player_0"
    env.step(A.string_to_action("a1-a2"))
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="None"):
        env.step(0)


# ---------------------------------------------------------------- a game by hand
def test_full_game_by_hand_through_notation() -> None:
    env = mole_hill_v0.env()
    env.reset(seed=0)
    moves = [
        # round 1, player_0 mole: a2, b1 (no flowers), trapped in a1 by a2-b2 and b1-b2
        ("player_0", "a2"), ("player_1", "a2-b2"), ("player_0", "b1"),
        ("player_1", "b1-b2"), ("player_0", "a1"),
        ("player_1", "h7-i7"),  # M8: the round ends at the mole's next turn
        # round 2, player_1 mole: b1, b2 (white), then a1 closed by a1-a2
        ("player_1", "b1"), ("player_0", "a1-a2"), ("player_1", "b2"),
        ("player_0", "h6-i6"), ("player_1", "a1"), ("player_0", "h7-i7"),
    ]  # fmt: skip
    for agent, move in moves:
        assert env.agent_selection == agent
        obs, *_ = env.last()
        action = env.unwrapped.game_state.string_to_action(move)
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.game_state.scores() == [0, 1]
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_0"]["scores"] == [0, 1]


def test_reward_mode_score_gives_the_margin() -> None:
    env = mole_hill_v0.raw_env(reward_mode="score")
    env.reset(seed=0)
    env.unwrapped.game_state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[5]
    )
    env.agent_selection = "player_0"
    env.step(A.string_to_action("a1-a2"))
    assert env.rewards == {"player_0": 4.0, "player_1": -4.0}


# ---------------------------------------------------------------- options
@pytest.mark.parametrize(
    "kwargs",
    [{"flowers": True}, {"reward_mode": "points"}, {"random_flowers": 1}, {"render_mode": "x"}],
)
def test_bad_options_raise(kwargs: dict) -> None:
    with pytest.raises(InvalidOptionError):
        mole_hill_v0.env(**kwargs)


# ---------------------------------------------------------------- observation planes
def test_observation_planes_from_each_point_of_view() -> None:
    env = mole_hill_v0.raw_env()
    env.reset(seed=0)
    # player_0 is the mole: e1 (red), e2, e3 then onto the centre e4
    state = MoleHillState.from_position(["e1", "e2", "e3", "e4"], ["a1-b1", "a1-a2"])
    env.unwrapped.game_state = state
    me = env.observe("player_0")["observation"]
    opp = env.observe("player_1")["observation"]
    assert me.shape == (7, 9, 16) and me.dtype == np.float32
    assert me[0, 4, P_VISITED] == 1 and me[3, 4, P_VISITED] == 1 and me[:, :, P_VISITED].sum() == 4
    assert me[0, 4, P_ORDER] == pytest.approx(1 / 22) and me[3, 4, P_ORDER] == pytest.approx(4 / 22)
    assert me[3, 4, P_MOLE] == 1 and me[:, :, P_MOLE].sum() == 1
    assert me[0, 0, P_ROD_RIGHT] == 1 and me[0, 0, P_ROD_BELOW] == 1
    assert me[:, :, P_ROD_RIGHT].sum() == 1 and me[:, :, P_ROD_BELOW].sum() == 1
    red = {A.SPACE_NAMES[r * 9 + c] for r, c in zip(*np.nonzero(me[:, :, P_RED]), strict=True)}
    white = {A.SPACE_NAMES[r * 9 + c] for r, c in zip(*np.nonzero(me[:, :, P_WHITE]), strict=True)}
    assert (red, white) == (RED, WHITE)
    assert me[3, 4, P_CENTRE] == 1 and me[:, :, P_CENTRE].sum() == 1
    assert me[:, :, P_DEST].sum() == 63 - 4  # jump: every unvisited space
    assert me[0, 0, P_I_AM_MOLE] == 1 and opp[0, 0, P_I_AM_MOLE] == 0
    assert me[0, 0, P_MOLE_TO_MOVE] == 1 and me[0, 0, P_ROUND] == 0
    assert (
        me[0, 0, P_MY_SCORE] == pytest.approx(2 / 24)
        and opp[0, 0, P_OPP_SCORE] == me[0, 0, P_MY_SCORE]
    )
    assert me[0, 0, P_PIECES_LEFT] == pytest.approx(18 / 22) and me[6, 8, P_JUMP] == 1
    np.testing.assert_array_equal(env.state(), me)
    assert env.state_space.contains(env.state())
    mask = env.observe("player_0")["action_mask"]
    assert mask.dtype == np.int8 and mask.sum() == 59
    assert env.observe("player_1")["action_mask"].sum() == 0


# ---------------------------------------------------------------- rendering
def test_rgb_array_shows_rods_pieces_and_mole() -> None:
    env = mole_hill_v0.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    empty = env.render()
    env.unwrapped.game_state = MoleHillState.from_position(["c3", "d3"], ["e4-f4"])
    img = env.render()
    assert img.shape == empty.shape and img.dtype == np.uint8
    changed = np.any(img != empty, axis=2)
    assert changed.sum() > 500
    env.close()


def test_ansi_render_is_the_engine_board() -> None:
    env = mole_hill_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    env.unwrapped.game_state = MoleHillState.from_position(["c3", "d3"], ["d3-e3", "d3-d4"])
    text = env.render()
    assert text == str(env.unwrapped.game_state)
    row3 = next(line for line in text.splitlines() if line.startswith(" 3"))
    assert "@ 2" in row3 and "|" in row3
    assert "----" in text


# ---------------------------------------------------------------- random play invariants
def _reference_destinations(state: MoleHillState) -> list[int]:
    """M4/M6/M7/M8 written directly from the rule text, with coordinates."""
    trail = state.trail
    if not trail:
        return list(range(63))
    if len(trail) >= 22:
        return []
    visited = set(trail)
    rods = {frozenset(A.EDGE_SPACES[e]) for e in state.rods}
    pr, pc = divmod(trail[-1], 9)
    if (pr, pc) == (3, 4):
        return [s for s in range(63) if s not in visited]

    def free(a: tuple[int, int], b: tuple[int, int]) -> bool:
        return frozenset((a[0] * 9 + a[1], b[0] * 9 + b[1])) not in rods

    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            q = (pr + dr, pc + dc)
            if (dr, dc) == (0, 0) or not (0 <= q[0] < 7 and 0 <= q[1] < 9):
                continue
            if q[0] * 9 + q[1] in visited:
                continue
            p = (pr, pc)
            if dr == 0 or dc == 0:
                ok = free(p, q)
            else:
                s1, s2 = (pr, q[1]), (q[0], pc)
                ok = (free(p, s1) and free(s1, q)) or (free(p, s2) and free(s2, q))
            if ok:
                out.append(q[0] * 9 + q[1])
    return sorted(out)


def _reference_score(trail: list[int], red: tuple, white: tuple) -> int:
    return (
        max(0, len(trail) - 10) + sum(s in white for s in trail) + 2 * sum(s in red for s in trail)
    )


@pytest.mark.slow
def test_random_games_engine_invariants() -> None:
    rng = random.Random(2024)
    game = MoleHillGame(random_flowers=True)
    for g in range(300):
        state = game.new_initial_state(seed=g)
        mole_actions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.mole_to_move:
                assert legal == _reference_destinations(state)
            else:
                assert legal == [63 + e for e in range(110) if e not in state.rods]
            assert len(state.trail) == mole_actions
            expected = _reference_score(state.trail, state.red_flowers, state.white_flowers)
            assert state.scores()[state.round] == expected
            if g % 10 == 0:  # JSON replay is the slow part: check a tenth of the games
                text = state.to_json()
                assert MoleHillState.from_json(text).to_json() == text
            action = rng.choice(legal)
            round_before = state.round
            state.apply_action(action)
            mole_actions += action < 63
            if state.round != round_before:
                mole_actions = 0
        assert len(state.round_scores) == 2
        assert state.scores() == state.round_scores
        assert state.round_scores[1] == _reference_score(
            state.trail, state.red_flowers, state.white_flowers
        )
        text = state.to_json()
        assert MoleHillState.from_json(text).to_json() == text


def test_observation_planes_in_round_2_for_both_agents() -> None:
    env = mole_hill_v0.raw_env()
    env.reset(seed=0)
    # round 2: player_1 is the mole (b2 white, then c3); player_0 scored 5 as mole in round 1
    env.unwrapped.game_state = MoleHillState.from_position(
        ["b2", "c3"], ["c3-d3"], round_number=2, round_scores=[5]
    )
    env.agent_selection = "player_1"
    p0 = env.observe("player_0")["observation"]
    p1 = env.observe("player_1")["observation"]
    assert p1[0, 0, P_I_AM_MOLE] == 1 and p0[0, 0, P_I_AM_MOLE] == 0
    assert p0[0, 0, P_ROUND] == p1[0, 0, P_ROUND] == 1
    assert p0[0, 0, P_MOLE_TO_MOVE] == p1[0, 0, P_MOLE_TO_MOVE] == 1
    # "my" / "opponent" scores are relative to the observer
    assert p1[0, 0, P_MY_SCORE] == pytest.approx(1 / 24)
    assert p1[0, 0, P_OPP_SCORE] == pytest.approx(5 / 24)
    assert p0[0, 0, P_MY_SCORE] == pytest.approx(5 / 24)
    assert p0[0, 0, P_OPP_SCORE] == pytest.approx(1 / 24)
    assert p0[0, 0, P_PIECES_LEFT] == pytest.approx(20 / 22) and p0[0, 0, P_JUMP] == 0
    # board planes are the same for both; c3 neighbours minus b2 (visited) and d3 (rod)
    np.testing.assert_array_equal(p0[:, :, :P_I_AM_MOLE], p1[:, :, :P_I_AM_MOLE])
    dest = {A.SPACE_NAMES[r * 9 + c] for r, c in zip(*np.nonzero(p0[:, :, P_DEST]), strict=True)}
    assert dest == {"b3", "b4", "c2", "c4", "d2", "d4"}
    np.testing.assert_array_equal(env.state(), p0)  # state(): player_0's side
    assert env.observe("player_1")["action_mask"].sum() == 6
    assert env.observe("player_0")["action_mask"].sum() == 0


def test_observation_on_the_gardener_turn_and_after_the_end() -> None:
    env = mole_hill_v0.raw_env()
    env.reset(seed=0)
    env.unwrapped.game_state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[3]
    )
    env.agent_selection = "player_0"  # the gardener of round 2
    p0 = env.observe("player_0")["observation"]
    assert p0[0, 0, P_MOLE_TO_MOVE] == 0 and p0[0, 0, P_I_AM_MOLE] == 0
    assert p0[:, :, P_DEST].sum() == 1 and p0[1, 0, P_DEST] == 1  # only a2 is still open
    env.step(A.string_to_action("a1-a2"))  # the mole is shut in: the game ends (M8)
    for agent, mine, theirs in (("player_0", 3, 1), ("player_1", 1, 3)):
        obs = env.observe(agent)
        assert obs["action_mask"].sum() == 0
        assert obs["observation"][0, 0, P_MOLE_TO_MOVE] == 0
        assert obs["observation"][0, 0, P_DEST] == 0
        assert obs["observation"][0, 0, P_MY_SCORE] == pytest.approx(mine / 24)
        assert obs["observation"][0, 0, P_OPP_SCORE] == pytest.approx(theirs / 24)
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"scores": [3, 1]}


@pytest.mark.parametrize("mode", ["win", "score"])
def test_equal_totals_reward_zero_in_both_modes(mode: str) -> None:
    env = mole_hill_v0.raw_env(reward_mode=mode)
    env.reset(seed=0)
    env.unwrapped.game_state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[1]
    )
    env.agent_selection = "player_0"
    env.step(A.string_to_action("a1-a2"))
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())


def test_raw_env_out_of_range_and_wrong_role_actions_change_nothing() -> None:
    env = mole_hill_v0.raw_env()
    env.reset(seed=0)
    env.step(A.string_to_action("c3"))  # mole placed; the gardener (player_1) is to move
    before = env.unwrapped.game_state.to_json()
    for bad in (A.string_to_action("d4"), 173, -1):
        with pytest.raises(IllegalActionError, match="gardener"):
            env.step(bad)
        assert env.unwrapped.game_state.to_json() == before
        assert env.agent_selection == "player_1"
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
