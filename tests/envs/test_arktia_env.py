"""Arktia AEC env (``tabletop_zoo.envs.arktia_v0``): PettingZoo API, turn structure,
rewards, truncation (R23), errors and rendering; the observation planes are in
``test_arktia_observation.py``.

Hand-built positions use ``ArktiaState.from_json``; their expected answers were worked
out from the rules (``docs/rules/ARKTIA.md``), not copied from the code's output.

Default 2-player layout (R2), tile (text line, text column) -> grid cell (line, column // 2):

    a1 (0,2)  a2 (0,4)  a3 (0,6)
    b1 (1,1)  b2 (1,3)  b3 (1,5)  b4 (1,7)
    c1 (2,0)  c2 (2,2)  c3 (2,4)  c4 (2,6)
    d1 (3,1)  d2 (3,3)  d3 (3,5)  d4 (3,7)
    e1 (4,2)  e2 (4,4)  e3 (4,6)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tabletop_zoo.envs import arktia_v0
from tabletop_zoo.envs.arktia import ArktiaState
from tabletop_zoo.envs.errors import (
    InvalidLayoutError,
    InvalidOptionError,
)
from tests.envs.arktia_env_positions import act, load, position

CUSTOM_LAYOUT = "\n".join([" o o o", "o o o o", " o o o o", "  o o"])  # 13 tiles


def random_step(env: Any, rng: np.random.Generator) -> None:
    """One step of a random legal action (None for a done agent); avoids 'stop'."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env.step(None)
        return
    legal = np.flatnonzero(env.observe(agent)["action_mask"])
    stop = env.unwrapped.game_state.game.codec.STOP
    if len(legal) > 1 and rng.random() < 0.97:
        legal = legal[legal != stop]
    env.step(int(rng.choice(legal)))


# ---------------------------------------------------------------- PettingZoo tests
ENV_OPTIONS = [  # the defaults of every player count run in test_env_contract.py
    {"num_players": 2, "layout": CUSTOM_LAYOUT},
    {"num_players": 3, "neutral_pieces": True, "reward_mode": "score"},
]


@pytest.mark.slow
@pytest.mark.parametrize("options", ENV_OPTIONS, ids=lambda o: "-".join(map(str, o.values())))
def test_pettingzoo_api_seed_and_render(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # human mode waits 1/render_fps per frame: do not wait in tests
    monkeypatch.setitem(arktia_v0.raw_env.metadata, "render_fps", 1000)
    api_test(arktia_v0.env(**options), num_cycles=300)
    seed_test(lambda: arktia_v0.env(**options), num_cycles=300)
    render_test(lambda **kw: arktia_v0.env(**options, **kw))


def test_metadata_agents_and_spaces() -> None:
    env = arktia_v0.env(num_players=3)
    env.reset()
    raw = env.unwrapped
    assert raw.metadata["name"] == "arktia_v0"
    assert raw.metadata["render_modes"] == ["human", "ansi", "rgb_array", "svg"]
    assert raw.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    n = 27  # default 3-player layout
    assert env.action_space("player_1").n == 3 * n + 3 * n * n + n + n + 1
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == raw.encoder.shape == (6, 6, raw.encoder.num_planes)
    assert env.state().shape == raw.state_space.shape
    assert raw.max_turns == arktia_v0.DEFAULT_MAX_TURNS == 300


# ---------------------------------------------------------------- masks and turn structure
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_masks_equal_legal_actions_in_random_games(num_players: int) -> None:
    """Every step: the actor's mask is legal_actions(), others' all zeros; the actor is
    game.current_player and never a player whose game has ended (R20); sub-decisions
    (choose, melt) stay with the same agent; all agents terminate together."""
    rng = np.random.default_rng(num_players)
    env = arktia_v0.raw_env(num_players=num_players)
    seen_phases = set()
    for seed in range(6):
        env.reset(seed=seed)
        while env.agents:
            game = env.game_state
            agent = env.agent_selection
            done = env.terminations[agent] or env.truncations[agent]
            if not done:
                seat = game.current_player
                assert agent == f"player_{seat}" and not game.ended(seat)
                for other in env.agents:
                    mask = env.observe(other)["action_mask"]
                    if other == agent:
                        assert np.flatnonzero(mask).tolist() == game.legal_actions()
                    else:
                        assert not mask.any()
            random_step(env, rng)
            if not done and env.agents:
                seen_phases.add(env.game_state.phase)
                if env.game_state.phase in ("choose", "melt"):
                    assert env.agent_selection == agent
                terminated = [env.terminations[a] for a in env.agents]
                assert all(terminated) or not any(terminated)
                if all(terminated):  # the final rewards are the engine's returns (R22)
                    assert [env.rewards[a] for a in env.agents] == env.game_state.returns()
        assert env.game_state.is_terminal() or env.game_state.turn >= env.max_turns
    assert "melt" in seen_phases


def test_ruling_R17_melt_is_a_second_decision_of_the_same_agent() -> None:
    # red's reserve is empty (7 of its pieces were removed by blue): after its move it
    # must melt an empty border tile (R17); b2 b3 c2 c3 d2 d3 are inner tiles, a1 a2 blue
    state = position(
        {"c2": [[0, "D"]], "c3": [[0, "G"]], "a1": [[1, "T"]], "a2": [[1, "D"]]},
        reserves=[[0, 0, 0], [3, 2, 2]],
        removed=[0, 7],
    )
    env = arktia_v0.env()
    env.reset()
    load(env, state)
    act(env, "c3-b2")
    assert env.agent_selection == "player_0"
    assert env.unwrapped.game_state.phase == "melt"
    mask = env.observe("player_0")["action_mask"]
    codec = env.unwrapped.engine.codec
    melt_tiles = {env.unwrapped.game_state.action_to_string(a) for a in np.flatnonzero(mask)}
    expected = {"a3", "b1", "b4", "c1", "c4", "d1", "d4", "e1", "e2", "e3"}
    assert melt_tiles == {f"melt {t}" for t in expected}
    assert not env.observe("player_1")["action_mask"].any()
    env.step(codec.encode_melt(env.unwrapped.engine.layout.index_of("e3")))
    assert env.agent_selection == "player_1"
    assert env.last()[4]["scores"] == [0 + 1 + 2, 7 + 2]  # melted + controlled; removed + ctrl


def test_ruling_R16_group_choice_is_a_decision_of_the_mover() -> None:
    # red moves its Globus with the blue Diskus under it (A stack) from c2 over its Torus
    # on b2 to a2 (red stays connected: a2-b2); blue
    # falls apart into c1 (2 pieces), c3 (2 pieces) and a2 (1 piece): the a2 Diskus is
    # removed and red chooses between the tied groups c1 and c3
    state = position(
        {
            "c1": [[1, "D"], [1, "G"]],
            "c2": [[1, "D"], [0, "G"]],
            "c3": [[1, "D"], [1, "G"]],
            "b2": [[0, "T"]],
        },
        reserves=[[2, 3, 2], [1, 0, 3]],
    )
    env = arktia_v0.env()
    env.reset()
    load(env, state)
    act(env, "c2-a2")
    game = env.unwrapped.game_state
    assert env.agent_selection == "player_0"
    assert game.phase == "choose"
    legal = {
        game.action_to_string(a) for a in np.flatnonzero(env.observe("player_0")["action_mask"])
    }
    assert legal == {"keep c1", "keep c3"}
    planes = env.observe("player_0")["observation"]
    enc = env.unwrapped.encoder
    assert planes[0, 0, enc.CHOOSING + 1] == 1.0  # blue is seat+1 for red
    act(env, "keep c1")
    assert env.agent_selection == "player_1"
    # red removed 2 (c3) + 1 (a2) and controls a2, b2; blue controls c1
    assert env.last()[4]["scores"] == [5, 1]


def test_ruling_R20_ended_players_are_skipped() -> None:
    state = three_player_position(ended=(1,))
    env = arktia_v0.env(num_players=3)
    env.reset()
    load(env, state)
    act(env, "G@b3")
    assert env.agent_selection == "player_2"
    assert not env.terminations["player_1"]  # still in the game until everyone is done


# ---------------------------------------------------------------- rewards (R21, R22)
def two_player_end_position(**kw: Any) -> ArktiaState:
    """Red: T a1, D a2 (under blue's G), G a3; blue: G on a2, T b2; e3 melted by red;
    red removed 2 blue pieces. Scores: red 2 + 1 + 2 (a1, a3) = 5, blue 2 (a2, b2)."""
    return position(
        {
            "a1": [[0, "T"]],
            "a2": [[0, "D"], [1, "G"]],
            "a3": [[0, "G"]],
            "b2": [[1, "T"]],
        },
        reserves=[[2, 2, 2], [1, 2, 2]],
        removed=[2, 0],
        melted=[1, 0],
        melted_tiles=("e3",),
        **kw,
    )


def three_player_position(ended: tuple[int, ...]) -> ArktiaState:
    """3 players: red T a1, G a2 (controls 2, removed 2); blue D b1, G b2 (controls 2,
    melted f1 f4); yellow D a3, T b4 (controls 2). Scores 4, 4, 2."""
    return position(
        {
            "a1": [[0, "T"]],
            "a2": [[0, "G"]],
            "b1": [[1, "D"]],
            "b2": [[1, "G"]],
            "a3": [[2, "D"]],
            "b4": [[2, "T"]],
        },
        num_players=3,
        reserves=[[2, 3, 2], [1, 2, 2], [3, 2, 2]],
        removed=[2, 0, 0],
        melted=[0, 2, 0],
        melted_tiles=("f1", "f4"),
        ended=ended,
    )


@pytest.mark.parametrize(
    ("reward_mode", "expected"),
    [
        ("win", {"player_0": 1.0, "player_1": -1.0}),
        ("score", {"player_0": 3.0, "player_1": -3.0}),
    ],
)
def test_ruling_R22_rewards_two_players_sole_winner(reward_mode: str, expected: dict) -> None:
    env = arktia_v0.env(reward_mode=reward_mode, neutral_pieces=False)
    env.reset()
    load(env, two_player_end_position(ended=(1,)))
    act(env, "stop")  # red ends its game: the whole game is over
    assert env.unwrapped.game_state.is_terminal()
    assert all(env.terminations.values()) and not any(env.truncations.values())
    finals = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        assert term and not trunc and info["scores"] == [5, 2]
        finals[agent] = reward
        env.step(None)
    assert finals == expected


@pytest.mark.parametrize(
    ("reward_mode", "expected"), [("win", [0.0, 0.0, -1.0]), ("score", [0.0, 0.0, -2.0])]
)
def test_ruling_R22_rewards_three_players_tied_for_top(reward_mode: str, expected: list) -> None:
    env = arktia_v0.env(num_players=3, reward_mode=reward_mode)
    env.reset()
    load(env, three_player_position(ended=(1, 2)))
    act(env, "stop")
    assert [env.rewards[f"player_{i}"] for i in range(3)] == expected
    assert all(env.terminations.values())


def test_two_player_tie_gives_zero_to_both() -> None:
    state = position(
        {"a1": [[0, "T"]], "a2": [[0, "D"], [1, "G"]], "a3": [[0, "G"]], "b2": [[1, "T"]]},
        reserves=[[2, 2, 2], [2, 3, 2]],
        ended=(1,),
    )  # red controls a1 a3, blue a2 b2: 2 - 2
    env = arktia_v0.env()
    env.reset()
    load(env, state)
    act(env, "stop")
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


# ---------------------------------------------------------------- truncation (R23)
@pytest.mark.parametrize(
    ("reward_mode", "expected"), [("win", [1.0, -1.0]), ("score", [4.0, -4.0])]
)
def test_ruling_R23_truncation_scores_the_position_as_it_stands(
    reward_mode: str, expected: list
) -> None:
    env = arktia_v0.env(max_turns=10, reward_mode=reward_mode)
    env.reset()
    load(env, two_player_end_position(turn=9))
    act(env, "G@b1")  # turn 10: red now controls a1, a3, b1 -> 2 + 1 + 3 = 6, blue 2
    assert not env.unwrapped.game_state.is_terminal()
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert [env.rewards[a] for a in ("player_0", "player_1")] == expected
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        assert trunc and reward == expected[int(agent[-1])] and info["scores"] == [6, 2]
        env.step(None)
    assert env.agents == []


def test_ruling_R23_truncation_counts_completed_turns_from_the_start() -> None:
    env = arktia_v0.env(num_players=3, max_turns=5)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while not env.truncations[env.agent_selection]:
        random_step(env, rng)
        steps += 1
    assert env.unwrapped.game_state.turn == 5 and steps == 5  # one decision per opening turn
    assert all(env.truncations.values())
    # opening placements remove nothing: seats 0 and 1 control 2 tiles, seat 2 one tile
    assert env.infos["player_0"]["scores"] == [2, 2, 1]
    assert [env.rewards[f"player_{i}"] for i in range(3)] == [0.0, 0.0, -1.0]


# ---------------------------------------------------------------- illegal actions and options
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"num_players": 5}, "2 to 4"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"reward_mode": "winner"}, r"reward_mode must be one of \('win', 'score'\)"),
        ({"max_turns": 0}, "positive int"),
        ({"max_turns": 2.5}, "positive int"),
        ({"max_turns": True}, "positive int"),
        ({"num_players": 4, "neutral_pieces": True}, "not allowed with 4 players"),
        ({"neutral_pieces": "yes"}, "neutral_pieces"),
        ({"render_mode": "pdf"}, "render_mode"),
        ({"board_size": 9}, "unknown option.*board_size.*num_players.*max_turns"),
    ],
)
def test_bad_options_raise_invalid_option_error(options: dict, match: str) -> None:
    with pytest.raises(InvalidOptionError, match=match):
        arktia_v0.env(**options)


def test_numpy_integer_options_are_accepted() -> None:
    env = arktia_v0.env(num_players=np.int64(3), max_turns=np.int64(50))
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]


def test_bad_layout_raises_invalid_layout_error() -> None:
    with pytest.raises(InvalidLayoutError, match="blank"):
        arktia_v0.env(layout="o o\n\n o")
    with pytest.raises(InvalidLayoutError, match="not connected"):
        arktia_v0.env(layout="o o     o o")


# ---------------------------------------------------------------- rendering
def test_ansi_render_shows_the_board_with_tile_names_and_header() -> None:
    env = arktia_v0.env(render_mode="ansi", max_turns=50)
    env.reset()
    load(env, two_player_end_position())
    text = env.render()
    assert text.splitlines()[0].startswith("arktia_v0  turn 20/50")
    assert "rDbG" in text and "~~" in text and "a1" in text and "e3" in text
    assert "score 5" in text and "score 2" in text


def test_rgb_render_draws_pieces_in_player_colours() -> None:
    env = arktia_v0.env(render_mode="rgb_array")
    env.reset()
    empty = env.render()
    load(env, two_player_end_position())
    img = env.render()
    assert img.dtype == np.uint8 and img.shape == empty.shape and img.ndim == 3
    colours = {tuple(int(v) for v in px) for px in img.reshape(-1, 3)[::7]}
    red, blue, water = (214, 48, 49), (45, 105, 220), (40, 80, 140)
    assert {red, blue, water} <= colours
    board = empty[: env.unwrapped.renderer.board_h]  # the legend under it shows a melted tile
    assert water not in {tuple(int(v) for v in px) for px in board.reshape(-1, 3)}
