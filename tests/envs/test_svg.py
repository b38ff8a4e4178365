"""SVG pictures: the position read back from the data attributes equals the engine's state,
for states (``_repr_svg_``) and envs (``render_mode="svg"``), at every move of short games."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from tabletop_zoo.envs.registry import GAMES, make_env, make_raw_env
from tests.envs.svg_positions import check_picture

CASES = [(name, n) for name, spec in sorted(GAMES.items()) for n in spec.players]


@pytest.mark.parametrize(("name", "players"), CASES)
def test_the_svg_of_every_position_of_a_game_shows_the_engines_state(name, players) -> None:
    env = make_raw_env(name, players, render_mode="svg")
    env.reset(seed=players)
    rng = random.Random(players)
    for moves in range(400):
        state = env.game_state
        if moves % 11 == 0 or state.is_terminal():  # the state's own picture now and then
            check_picture(name, state._repr_svg_(), state)
        if state.is_terminal() or any(env.truncations.values()):
            break
        action = rng.choice(state.legal_actions())
        notation = state.action_to_string(action)
        env.step(action)
        if moves % 5:  # every fifth move's picture (the browser test looks at every move)
            continue
        root = check_picture(name, env.render(), env.game_state)
        marks = [e.get("data-last") for e in root.iter() if e.get("data-last") is not None]
        assert all(part in notation for mark in marks for part in mark.split("-")), marks
        assert f"played {notation}" in "".join(root.itertext())
    assert env.game_state.is_terminal() or any(env.truncations.values())


def test_an_env_shows_itself_inline_and_the_svg_scales() -> None:
    env = make_env("mole_hill", render_mode="rgb_array")  # PettingZoo's wrappers around it
    assert env._repr_svg_() is None  # no game yet
    env.reset(seed=1)
    env.step(env.unwrapped.game_state.legal_actions()[0])
    root = ET.fromstring(env._repr_svg_())
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width > 300 and height > 300
    plain = make_raw_env("mole_hill")  # no render mode: no notation kept while playing
    plain.reset(seed=1)
    plain.step(plain.game_state.legal_actions()[0])
    assert "played action 0" in "".join(ET.fromstring(plain._repr_svg_()).itertext())


def test_the_band_names_the_mover_in_its_role_at_the_move_that_ends_round_1() -> None:
    env = make_raw_env("mole_hill", render_mode="svg")
    env.reset(seed=0)
    while env.game_state.round == 0:
        env.step(env.game_state.legal_actions()[0])
    seat = env.last_move.seat  # round 1: player_0 the mole, player_1 the gardener (M10)
    role = "mole" if seat == 0 else "gardener"
    assert f"move {env.num_turns}: player_{seat} ({role}) played" in env.render()
