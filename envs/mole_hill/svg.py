"""Mole Hill positions as SVG: the ``rgb_array`` picture of :mod:`.render` as vectors.

Data attributes: every space ``data-cell`` (``e4``); a flower ``data-cell`` and
``data-flower`` (``red`` / ``white``); a trail piece ``data-cell``, ``data-piece`` (1-22)
and ``data-kind`` (``light`` / ``dark``); the mole's ring ``data-mole``; a possible mole
destination ``data-destination``; a rod ``data-cell`` (its edge, ``e4-f4``) and
``data-rod``; the last move's mark ``data-last``. The legend under the board is the
picture's (round, roles, scores).
"""

from __future__ import annotations

import functools

from tabletop_zoo.envs.drawing.svg import LAST, el, rgb
from tabletop_zoo.envs.mole_hill import board
from tabletop_zoo.envs.mole_hill import render as pic
from tabletop_zoo.envs.mole_hill.render import CELL, MARGIN, space_centre
from tabletop_zoo.envs.mole_hill.rules import LIGHT_PIECES, MOLE_PIECES, MoleHillState


def _flower(space: int, colour: tuple[int, int, int]) -> str:
    y, x = space_centre(space)
    y, x = y - 0.3 * CELL, x - 0.3 * CELL
    petals = "".join(
        el("circle", cx=x + dx * 4.0, cy=y + dy * 4.0, r=4.5, fill=rgb(colour))
        for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1))
    )
    kind = "red" if colour == pic.RED else "white"
    centre = el("circle", cx=x, cy=y, r=3, fill=rgb(pic.YELLOW))
    return f'<g data-cell="{board.SPACE_NAMES[space]}" data-flower="{kind}">{petals}{centre}</g>'


def _edge_box(edge: int, half: float) -> dict[str, float]:
    """``x, y, width, height`` of a bar of half-thickness ``half`` on ``edge``."""
    y0, x0, y1, x1 = pic.edge_rect(edge, half)
    return {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}


@functools.cache
def _lawn() -> tuple[str, ...]:
    """The spaces, their names and the centre hole: the same in every position."""
    out = []
    for s, name in enumerate(board.SPACE_NAMES):
        r, c = divmod(s, board.COLS)
        out.append(
            el(
                "rect",
                x=MARGIN + c * CELL + 0.5,
                y=MARGIN + r * CELL + 0.5,
                width=CELL - 1,
                height=CELL - 1,
                fill=rgb(pic.LAWN[(r + c) % 2]),
                stroke=rgb(pic.GRID),
                data_cell=name,
            )
        )
    for c, letter in enumerate(board.COLUMN_LETTERS):
        out.append(el("text", letter, x=MARGIN + (c + 0.5) * CELL, y=20, text_anchor="middle"))
    for r in range(board.ROWS):
        out.append(el("text", str(r + 1), x=14, y=MARGIN + (r + 0.5) * CELL + 5))
    cy, cx = space_centre(board.CENTRE)
    out.append(
        el(
            "circle",
            cx=cx,
            cy=cy,
            r=0.405 * CELL,
            fill="none",
            stroke=rgb(pic.HOLE),
            stroke_width=0.09 * CELL,
        )
    )
    return tuple(out)


def _board(state: MoleHillState) -> list[str]:
    out = list(_lawn())
    out += [_flower(s, pic.RED) for s in state.red_flowers]
    out += [_flower(s, pic.WHITE) for s in state.white_flowers]
    if not state.is_terminal() and state.mole_to_move:
        for s in state.mole_destinations():
            y, x = space_centre(s)
            out.append(
                el(
                    "circle",
                    cx=x,
                    cy=y,
                    r=4,
                    fill=rgb(pic.YELLOW),
                    data_destination=board.SPACE_NAMES[s],
                )
            )
    return out


def board_svg(state: MoleHillState, last_action: int | None = None) -> tuple[int, int, list[str]]:
    """``(width, height, elements)`` of the position (see the module docstring)."""
    out = _board(state)
    trail = state.trail
    for p, q in zip(trail[:-1], trail[1:], strict=True):
        (py, px), (qy, qx) = space_centre(p), space_centre(q)
        width = 3 if p == board.CENTRE else 7  # thin line for a jump
        out.append(
            el(
                "path",
                d=f"M{px} {py}L{qx} {qy}",
                stroke=rgb(pic.EARTH),
                stroke_linecap="round",
                stroke_width=width,
            )
        )
    for k, s in enumerate(trail):
        y, x = space_centre(s)
        light = k < LIGHT_PIECES
        colour = pic.LIGHT_PIECE if light else pic.DARK_PIECE
        disc = el("circle", cx=x, cy=y, r=0.3 * CELL, fill=rgb(colour))
        number = el(
            "text",
            str(k + 1),
            x=x,
            y=y + 5,
            text_anchor="middle",
            fill=rgb(pic.INK if light else pic.WHITE),
        )
        kind = "light" if light else "dark"
        out.append(
            f'<g data-cell="{board.SPACE_NAMES[s]}" data-piece="{k + 1}" data-kind="{kind}">'
            f"{disc}{number}</g>"
        )
    if trail:
        y, x = space_centre(trail[-1])
        out.append(
            el(
                "circle",
                cx=x,
                cy=y,
                r=0.41 * CELL,
                fill="none",
                stroke=rgb(pic.YELLOW),
                stroke_width=0.1 * CELL,
                data_mole=board.SPACE_NAMES[trail[-1]],
            )
        )
    for e in state.rods:
        name = board.ACTION_NAMES[board.rod_action(e)]
        out.append(
            el(
                "rect",
                **_edge_box(e, 4.0),
                fill=rgb(pic.WHITE),
                stroke=rgb(pic.ROD_EDGE),
                stroke_width=2,
                data_cell=name,
                data_rod=1,
            )
        )
    out += _last_mark(last_action)
    key = f"pieces 1-{LIGHT_PIECES}: 0 points, {LIGHT_PIECES + 1}-{MOLE_PIECES}: 1 point each; "
    key += "red flower 2, white flower 1"
    for k, line in enumerate((*pic.legend_lines(state), key)):
        out.append(el("text", line, x=MARGIN, y=pic.BOARD_HEIGHT + 14 + k * pic.LEGEND_LINE))
    return pic.WIDTH, pic.HEIGHT, out


def _last_mark(action: int | None) -> list[str]:
    """A red outline around the space or rod of the last move."""
    if action is None:
        return []
    name = board.ACTION_NAMES[action]
    if action < board.ROD_OFFSET:
        y, x = space_centre(action)
        box = {"x": x - CELL / 2 + 2, "y": y - CELL / 2 + 2, "width": CELL - 4, "height": CELL - 4}
    else:
        box = _edge_box(action - board.ROD_OFFSET, 7.0)
    return [el("rect", **box, fill="none", stroke=LAST, stroke_width=3, data_last=name)]


def action_cell(game: object, action: int) -> str:
    """The ``data-cell`` ``action`` aims at: its space, or its rod's edge (``e4-f4``)."""
    return board.ACTION_NAMES[action]
