"""Arktia observation planes (``tabletop_zoo.envs.arktia.observation``) through the AEC env:
relative to the observer, colour slots for 2, 3 and 4 players, the documented plane names.

Hand-built positions use ``ArktiaState.from_json``; their expected answers were worked
out from the rules (``docs/rules/ARKTIA.md``) and the plane table documented in
``tabletop_zoo.envs.arktia.observation``, not copied from the code's output.

The default 2-player layout with its grid cells: ``test_arktia_env.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_zoo.envs import arktia_v0
from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, ArktiaState
from tests.envs.arktia_env_positions import act, load, position


def test_observation_planes_are_relative_to_the_observer() -> None:
    """a1 = [red T, blue D] (blue controls), a2 = [blue G, red T] (C, red controls),
    b2 = neutral G, d4 melted; blue to act. Plane numbers from the documented table for
    2 players (3 colour slots): stack plane = 1 + (level * 3 + slot) * 3 + kind,
    control 28 + slot, melted 30, reserves 31-36, removed 43-44, melted-by 45-46,
    phase 49-53, to act 54-55, turn 59; cells a1 (0,1), a2 (0,2), b2 (1,1), d4 (3,3)."""
    state = ArktiaState.from_json(
        json.dumps(
            {
                "num_players": 2,
                "neutral_pieces": True,
                "layout": DEFAULT_LAYOUTS[2],
                "stacks": {
                    "a1": [[0, "T"], [1, "D"]],
                    "a2": [[1, "G"], [0, "T"]],
                    "b2": [["neutral", "G"]],
                },
                "melted_tiles": ["d4"],
                "reserves": [[3, 3, 1], [2, 2, 3]],
                "neutral_reserves": [[0, 0, 0], [0, 0, 0]],
                "removed": [3, 2],  # 5 of the 6 neutral pieces
                "melted": [1, 0],
                "round": 3,
                "phase": "normal",
                "current_player": 1,
                "ended": [],
                "turn": 30,
                "pending_choices": [],
            }
        )
    )
    env = arktia_v0.env()
    env.reset()
    load(env, state)
    board = {
        # observer red: red = slot 0, blue = slot 1, neutral = slot 2
        "player_0": {
            (0, 1, 3), (0, 1, 14), (0, 1, 29),  # a1: T slot0 L0, D slot1 L1, blue controls
            (0, 2, 4), (0, 2, 12), (0, 2, 28),  # a2: G slot1 L0, T slot0 L1, red controls
            (1, 1, 7),  # b2: neutral G
            (3, 3, 30),  # d4 melted
        },
        # observer blue: blue = slot 0, red = slot 1
        "player_1": {
            (0, 1, 6), (0, 1, 11), (0, 1, 28),
            (0, 2, 1), (0, 2, 15), (0, 2, 29),
            (1, 1, 7),
            (3, 3, 30),
        },
    }  # fmt: skip
    constants = {
        "player_0": {31: 1, 32: 1, 33: 1 / 3, 34: 2 / 3, 35: 2 / 3, 36: 1,
                     43: 3 / 24, 44: 2 / 24, 45: 1 / 18, 51: 1, 55: 1, 59: 30 / 300},
        "player_1": {31: 2 / 3, 32: 2 / 3, 33: 1, 34: 1, 35: 1, 36: 1 / 3,
                     43: 2 / 24, 44: 3 / 24, 46: 1 / 18, 51: 1, 54: 1, 59: 30 / 300},
    }  # fmt: skip
    tiles = {(0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (2, 2),
             (2, 3), (3, 0), (3, 1), (3, 2), (3, 3), (4, 1), (4, 2), (4, 3)}  # fmt: skip
    for agent in ("player_0", "player_1"):
        obs = env.observe(agent)["observation"]
        assert obs.shape == (5, 4, 60)
        assert {(r, c) for r, c in zip(*np.nonzero(obs[:, :, 0]), strict=True)} == tiles
        assert {tuple(int(i) for i in x) for x in np.argwhere(obs[:, :, 1:31])} == {
            (r, c, p - 1) for r, c, p in board[agent]
        }
        for p in range(31, 60):
            assert np.allclose(obs[:, :, p], constants[agent].get(p, 0.0)), (agent, p)
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])
    assert not env.observe("player_0")["action_mask"].any()
    assert env.observe("player_1")["action_mask"].any()


def test_plane_names_match_the_documented_count() -> None:
    enc = arktia_v0.raw_env(num_players=4).encoder
    names = enc.plane_names()
    # 4 players, 5 colour slots: 1 + 45 + 4 + 1 + 12 + 12 + 4 + 4 + 4 + 5 + 4 + 5 + 1
    assert len(names) == enc.num_planes == 102
    assert names[1 + (2 * 5 + 4) * 3 + 2] == "level2 neutral T"


def _board_and_constants(obs: np.ndarray, first_constant: int) -> tuple[set, dict]:
    """(row, col, plane) of every set board plane below ``first_constant`` (the tile plane
    0 left out), and plane -> value of the constant planes from ``first_constant`` on."""
    board = {tuple(int(i) for i in x) for x in np.argwhere(obs[:, :, 1:first_constant])}
    board = {(r, c, p + 1) for r, c, p in board}
    constants = {}
    for p in range(first_constant, obs.shape[2]):
        assert np.all(obs[:, :, p] == obs[0, 0, p]), p  # constant over the grid
        if obs[0, 0, p]:
            constants[p] = float(obs[0, 0, p])
    return board, constants


def test_observation_relative_colours_three_players() -> None:
    """3 players + neutral (4 colour slots): stack plane = 1 + (level * 4 + slot) * 3 + kind,
    control 37-39, melted 40, reserves 41-49, neutral reserves 50-58, removed 59-61,
    melted-by 62-64, ended 65-67, phase 68-72, to act 73-75, choosing 76-79, turn 80.
    c3 = [blue G, red T] (C, red controls) at cell (2, 2); d3 = [yellow T, blue D] (blue
    controls) at (3, 2); b2 = neutral G at (1, 2). Red's game has ended, yellow to act."""
    state = position(
        {"c3": [[1, "G"], [0, "T"]], "d3": [[2, "T"], [1, "D"]], "b2": [["neutral", "G"]]},
        num_players=3, neutral=True,
        reserves=[[3, 3, 2], [2, 2, 3], [3, 3, 2]], removed=[3, 3, 2],  # 8 neutral gone
        current_player=2, ended=(0,), turn=30,
    )  # fmt: skip
    env = arktia_v0.env(num_players=3, neutral_pieces=True)
    env.reset()
    load(env, state)
    third, twelfth = 1 / 3, 1 / 12  # removed / 36 pieces in the game: 3 -> 1/12
    expected = {
        # red: red 0, blue 1, yellow 2, neutral 3
        "player_0": (
            {(2, 2, 4), (2, 2, 15), (2, 2, 37), (3, 2, 9), (3, 2, 17), (3, 2, 38), (1, 2, 10)},
            {41: 1, 42: 1, 43: 2 * third, 44: 2 * third, 45: 2 * third, 46: 1,
             47: 1, 48: 1, 49: 2 * third, 59: twelfth, 60: twelfth, 61: 2 / 36,
             65: 1, 70: 1, 75: 1, 80: 30 / 300},
        ),
        # blue: blue 0, yellow 1, red 2, neutral 3
        "player_1": (
            {(2, 2, 1), (2, 2, 21), (2, 2, 39), (3, 2, 6), (3, 2, 14), (3, 2, 37), (1, 2, 10)},
            {41: 2 * third, 42: 2 * third, 43: 1, 44: 1, 45: 1, 46: 2 * third,
             47: 1, 48: 1, 49: 2 * third, 59: twelfth, 60: 2 / 36, 61: twelfth,
             67: 1, 70: 1, 74: 1, 80: 30 / 300},
        ),
        # yellow: yellow 0, red 1, blue 2, neutral 3
        "player_2": (
            {(2, 2, 7), (2, 2, 18), (2, 2, 38), (3, 2, 3), (3, 2, 20), (3, 2, 39), (1, 2, 10)},
            {41: 1, 42: 1, 43: 2 * third, 44: 1, 45: 1, 46: 2 * third,
             47: 2 * third, 48: 2 * third, 49: 1, 59: 2 / 36, 60: twelfth, 61: twelfth,
             66: 1, 70: 1, 73: 1, 80: 30 / 300},
        ),
    }  # fmt: skip
    for agent, (board, constants) in expected.items():
        obs = env.observe(agent)["observation"]
        assert obs.shape == (6, 6, 81)
        got_board, got_constants = _board_and_constants(obs, 41)
        assert got_board == board, agent
        assert got_constants.keys() == constants.keys(), agent
        for p, v in constants.items():
            assert got_constants[p] == pytest.approx(v), (agent, p)
    mask = env.observe("player_2")["action_mask"]
    assert np.flatnonzero(mask).tolist() == state.legal_actions()


def test_observation_relative_colours_four_players_during_a_group_choice() -> None:
    """4 players (5 colour slots): stack plane = 1 + (level * 5 + slot) * 3 + kind,
    control 46-49, reserves 51-62, phase 87-91 (choose = 91), to act 92-95, choosing
    96-100, turn 101. Red carries [green D, red G] from c2 to b2: green splits 1-1
    ({c1} | {b2}) and red must choose (R16)."""
    state = position(
        {"c1": [[3, "T"]], "c2": [[3, "D"], [0, "G"]], "b1": [[0, "T"]],
         "f1": [[1, "T"]], "g4": [[2, "D"]]},
        num_players=4,
        reserves=[[2, 3, 2], [3, 3, 2], [3, 2, 3], [3, 2, 2]],
    )  # fmt: skip
    env = arktia_v0.env(num_players=4)
    env.reset()
    load(env, state)
    act(env, "c2-b2")
    assert env.agent_selection == "player_0" and state.phase == "choose"
    t = 2 / 3
    reserves = {0: [t, 1, t], 1: [1, 1, t], 2: [1, t, 1], 3: [1, t, t]}  # by seat
    # cells: b2 (1, 2), b1 (1, 1), c1 (2, 0), f1 (5, 1), g4 (6, 4)
    for observer in range(4):
        slot = {seat: (seat - observer) % 4 for seat in range(4)}

        def piece(level: int, seat: int, kind: int, slot: dict = slot) -> int:
            return 1 + (level * 5 + slot[seat]) * 3 + kind

        board = {
            (1, 2, piece(0, 3, 1)), (1, 2, piece(1, 0, 0)), (1, 2, 46 + slot[0]),
            (1, 1, piece(0, 0, 2)), (1, 1, 46 + slot[0]),
            (2, 0, piece(0, 3, 2)), (2, 0, 46 + slot[3]),
            (5, 1, piece(0, 1, 2)), (5, 1, 46 + slot[1]),
            (6, 4, piece(0, 2, 1)), (6, 4, 46 + slot[2]),
        }  # fmt: skip
        constants = {91: 1.0, 92 + slot[0]: 1.0, 96 + slot[3]: 1.0, 101: 20 / 300}
        for seat in range(4):
            for kind in range(3):
                constants[51 + 3 * slot[seat] + kind] = reserves[seat][kind]
        obs = env.observe(f"player_{observer}")["observation"]
        assert obs.shape == (7, 6, 102)
        got_board, got_constants = _board_and_constants(obs, 51)
        assert got_board == board, observer
        assert got_constants == pytest.approx(constants), observer
    mask = env.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == state.legal_actions()  # keep b2 / keep c1
    assert len(state.legal_actions()) == 2
