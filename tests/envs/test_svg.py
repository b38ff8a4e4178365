"""SVG pictures: the position read back from the data attributes equals the engine's state,
for states (``_repr_svg_``) and envs (``render_mode="svg"``), at every move of short games."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from tabletop_zoo.envs.arktia.constants import KIND_LETTERS
from tabletop_zoo.envs.arktia.render import OWNER_NAMES
from tabletop_zoo.envs.mole_hill import board
from tabletop_zoo.envs.registry import GAMES, make_raw_env

CASES = [(name, n) for name, spec in sorted(GAMES.items()) for n in spec.players]


def drawn(svg: str) -> tuple[ET.Element, list[dict[str, str]]]:
    """The root element and the attributes of every element carrying data attributes."""
    root = ET.fromstring(svg)
    items = [dict(e.attrib) for e in root.iter() if any(k.startswith("data-") for k in e.attrib)]
    return root, items


def mole_hill_position(items: list[dict[str, str]]) -> dict:
    return {
        "trail": sorted((int(i["data-piece"]), i["data-cell"]) for i in items if "data-piece" in i),
        "flowers": sorted((i["data-flower"], i["data-cell"]) for i in items if "data-flower" in i),
        "rods": sorted(i["data-cell"] for i in items if "data-rod" in i),
    }


def mole_hill_expected(state) -> dict:
    flowers = [("red", s) for s in state.red_flowers] + [("white", s) for s in state.white_flowers]
    return {
        "trail": [(k + 1, board.SPACE_NAMES[s]) for k, s in enumerate(state.trail)],
        "flowers": sorted((kind, board.SPACE_NAMES[s]) for kind, s in flowers),
        "rods": sorted(board.ACTION_NAMES[board.rod_action(e)] for e in state.rods),
    }


def arktia_position(items: list[dict[str, str]]) -> dict:
    tiles = {i["data-cell"]: i for i in items if "data-melted" in i}
    stacks = {name: [] for name in tiles}
    for i in sorted((i for i in items if "data-level" in i), key=lambda i: int(i["data-level"])):
        stacks[i["data-cell"]].append((i["data-owner"], i["data-kind"]))
    seats = [i for i in items if "data-seat" in i]
    return {
        "melted": sorted(name for name, i in tiles.items() if i["data-melted"] == "1"),
        "heights": {name: int(i["data-height"]) for name, i in tiles.items()},
        "stacks": stacks,
        "reserves": [i["data-reserve"] for i in seats],
        "ended": [i["data-ended"] for i in seats],
    }


def arktia_expected(state) -> dict:
    names = state.game.layout.names
    stacks = {
        names[t]: [(OWNER_NAMES[o], KIND_LETTERS[k]) for o, k in state.stack(t)]
        if state.alive(t)
        else []
        for t in range(len(names))
    }
    seats = range(state.num_players)
    return {
        "melted": sorted(names[t] for t in range(len(names)) if not state.alive(t)),
        "heights": {name: len(stack) for name, stack in stacks.items()},
        "stacks": stacks,
        "reserves": [",".join(map(str, state.reserve(s))) for s in seats],
        "ended": [str(int(state.ended(s))) for s in seats],
    }


READ = {"mole_hill": (mole_hill_position, mole_hill_expected),
        "arktia": (arktia_position, arktia_expected)}  # fmt: skip


def check_picture(name: str, svg: str, state) -> ET.Element:
    """The drawn position of ``svg`` equals ``state``'s; returns the root element."""
    root, items = drawn(svg)
    read, expected = READ[name]
    assert read(items) == expected(state)
    assert root.get("data-scores") == ",".join(map(str, state.scores()))
    assert root.get("data-to-act") == str(state.current_player)
    return root


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
    env = make_raw_env("mole_hill", render_mode="rgb_array")
    assert env._repr_svg_() is None  # no game yet
    env.reset(seed=1)
    env.step(env.game_state.legal_actions()[0])
    root = ET.fromstring(env._repr_svg_())
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width > 300 and height > 300
    plain = make_raw_env("mole_hill")  # no render mode: no notation kept while playing
    plain.reset(seed=1)
    plain.step(plain.game_state.legal_actions()[0])
    assert "played action 0" in "".join(ET.fromstring(plain._repr_svg_()).itertext())
