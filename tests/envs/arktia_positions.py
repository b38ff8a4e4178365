"""Hand-built Arktia positions for the rules tests (``test_arktia_rules*.py``,
``test_arktia_serialization.py``): ``position`` builds one from a compact description
through ``ArktiaState.from_json``; cells are written bottom to top, ``"rTbD"`` = red Torus
under a blue Dome, either as a dict or as one string ``"b2=rTbD c3=bG"``.

2-player default layout (doubled columns; names per R4)::

      a1  a2  a3             a1(0,2) a2(0,4) a3(0,6)
    b1  b2  b3  b4           b1(1,1) b2(1,3) b3(1,5) b4(1,7)
  c1  c2  c3  c4             c1(2,0) c2(2,2) c3(2,4) c4(2,6)
    d1  d2  d3  d4           d1(3,1) d2(3,3) d3(3,5) d4(3,7)
      e1  e2  e3             e1(4,2) e2(4,4) e3(4,6)
"""

from __future__ import annotations

import json

from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, ArktiaState
from tabletop_zoo.envs.arktia.text import cell_text

__all__ = ["cell", "legal_strings", "moves_from", "parse_cell", "play", "position"]


OWNERS = {"r": 0, "b": 1, "y": 2, "g": 3, "n": "neutral"}
KINDS = "GDT"


def parse_cell(cell: str) -> list[list]:
    """``"rTbD"`` -> ``[[0, "T"], [1, "D"]]`` (bottom to top, as in ``str(state)``)."""
    return [[OWNERS[cell[i]], cell[i + 1]] for i in range(0, len(cell), 2)]


def position(
    stacks: dict[str, str] | str,
    *,
    n: int = 2,
    neutral: bool = False,
    layout: str | None = None,
    reserves: list[list[int]] | None = None,
    removed: list[int] | None = None,
    melted: list[int] | None = None,
    melted_tiles: tuple[str, ...] = (),
    rnd: int = 3,
    phase: str | None = None,
    cur: int = 0,
    ended: tuple[int, ...] = (),
    turn: int = 20,
    pending: list[dict] | None = None,
) -> ArktiaState:
    """A position from a compact description; reserves default to "nothing lost"."""
    if isinstance(stacks, str):
        stacks = dict(item.split("=") for item in stacks.split())
    on_board = {s: [0, 0, 0] for s in range(n)}
    for cell in stacks.values():
        for owner, kind in parse_cell(cell):
            if owner != "neutral":
                on_board[owner][KINDS.index(kind)] += 1
    if reserves is None:
        reserves = [[3 - x for x in on_board[s]] for s in range(n)]
    data = {
        "num_players": n,
        "neutral_pieces": neutral,
        "layout": layout if layout is not None else DEFAULT_LAYOUTS[n],
        "stacks": {name: parse_cell(cell) for name, cell in stacks.items()},
        "melted_tiles": list(melted_tiles),
        "reserves": reserves,
        "neutral_reserves": [[0, 0, 0]] * n,
        "removed": removed if removed is not None else [0] * n,
        "melted": melted if melted is not None else [0] * n,
        "round": rnd,
        "phase": phase or ("setup", "opening", "opening", "normal")[rnd],
        "current_player": cur,
        "ended": list(ended),
        "turn": turn,
        "pending_choices": pending or [],
    }
    return ArktiaState.from_json(json.dumps(data))


def legal_strings(state: ArktiaState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def moves_from(state: ArktiaState, tile: str) -> set[str]:
    return {s for s in legal_strings(state) if s.startswith(tile + "-")}


def play(state: ArktiaState, *moves: str) -> None:
    for m in moves:
        state.apply_action(state.string_to_action(m))


def cell(state: ArktiaState, name: str) -> str:
    t = state.game.layout.index_of(name)
    return cell_text(state, t)
