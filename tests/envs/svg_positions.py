"""Reading a position back from its SVG picture's data attributes (the SVG tests and the
browser tests of the HTML replays)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tabletop_zoo.envs.arktia.constants import KIND_LETTERS
from tabletop_zoo.envs.arktia.render import OWNER_NAMES
from tabletop_zoo.envs.mole_hill import board


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
