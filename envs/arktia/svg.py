"""Arktia positions as SVG: the ``rgb_array`` picture of :mod:`.render` as vectors.

Data attributes: every tile a group with ``data-cell`` (``c3``), ``data-melted`` (0/1)
and ``data-height`` (pieces on it); every piece ``data-cell``, ``data-level`` (0 at the
bottom), ``data-owner`` (``red``, ``blue``, ``yellow``, ``green`` or ``neutral``) and
``data-kind`` (``G``, ``D``, ``T``); every seat line ``data-seat``, ``data-score``,
``data-reserve`` (``G,D,T`` counts) and ``data-ended``; the last move's mark
``data-last`` (its notation's tiles).
"""

from __future__ import annotations

import functools

from tabletop_zoo.envs.arktia import render as pic
from tabletop_zoo.envs.arktia.constants import KIND_LETTERS, NEUTRAL
from tabletop_zoo.envs.arktia.rules import ArktiaGame, ArktiaState
from tabletop_zoo.envs.drawing.svg import LAST, el, rgb


@functools.lru_cache(maxsize=16)
def _geometry(game: ArktiaGame) -> pic.ArktiaImageRenderer:
    """The picture renderer of ``game``: its hex centres, sizes and panel layout."""
    return pic.ArktiaImageRenderer(game)


def _hex(cy: float, cx: float, r: float, fill: tuple[int, int, int], **attrs: object) -> str:
    w = pic.SQRT3 / 2 * r
    points = f"{cx:.1f},{cy - r:.1f} {cx + w:.1f},{cy - r / 2:.1f} {cx + w:.1f},{cy + r / 2:.1f} "
    points += f"{cx:.1f},{cy + r:.1f} {cx - w:.1f},{cy + r / 2:.1f} {cx - w:.1f},{cy - r / 2:.1f}"
    return el("polygon", points=points, fill=rgb(fill), **attrs)


def piece(cy: float, cx: float, s: float, kind: int, owner: int, **data: object) -> str:
    """One piece for hex radius ``s`` (kind 0 Globus, 1 Diskus, 2 Torus) in ``owner``'s colour."""
    colour = rgb(pic.OWNER_RGB[owner])
    tag = {"data_owner": pic.OWNER_NAMES[owner], "data_kind": KIND_LETTERS[kind], **data}
    if kind == 2:
        mid = (pic.TORUS_OUTER + pic.TORUS_INNER) / 2 * s
        width = (pic.TORUS_OUTER - pic.TORUS_INNER) * s
        ring = el(
            "circle",
            cx=cx,
            cy=cy,
            r=mid,
            fill="none",
            stroke=rgb(pic.OUTLINE),
            stroke_width=width + 3,
        )
        return ring + el(
            "circle", cx=cx, cy=cy, r=mid, fill="none", stroke=colour, stroke_width=width, **tag
        )
    r = (pic.DISKUS_RADIUS if kind == 1 else pic.GLOBUS_RADIUS) * s
    body = el(
        "circle",
        cx=cx,
        cy=cy,
        r=r + 0.75,
        fill=colour,
        stroke=rgb(pic.OUTLINE),
        stroke_width=1.5,
        **tag,
    )
    if kind == 0:
        body += el(
            "circle", cx=cx - 0.35 * r, cy=cy - 0.35 * r, r=0.3 * r, fill="#fff", fill_opacity=0.45
        )
    return body


def _tiles(geo: pic.ArktiaImageRenderer, state: ArktiaState) -> list[str]:
    out = []
    s = geo.s
    for t, (cy, cx) in enumerate(geo.centres):
        alive = state.alive(t)
        name = geo.layout.names[t]
        stack = state.stack(t) if alive else ()
        parts = [
            _hex(
                cy,
                cx,
                s - 2.0,
                pic.ICE if alive else pic.WATER,
                stroke=rgb(pic.ICE_EDGE if alive else pic.WATER_EDGE),
                stroke_width=2,
            ),
            el(
                "text",
                name,
                x=cx,
                y=cy + s * 0.72,
                text_anchor="middle",
                font_size=max(9, s / 4),
                fill=rgb(pic.LABEL if alive else pic.WATER_EDGE),
            ),
        ]
        for level, (owner, kind) in enumerate(stack):
            y = cy - (pic.PIECE_LIFT + level * pic.LEVEL_SHIFT) * s
            parts.append(piece(y, cx, s, kind, owner, data_cell=name, data_level=level))
        head = f'<g data-cell="{name}" data-melted="{int(not alive)}" data-height="{len(stack)}">'
        out.append(f"{head}{''.join(parts)}</g>")
    return out


def _panel(geo: pic.ArktiaImageRenderer, state: ArktiaState) -> list[str]:
    lh = geo.line_h
    small = lh / 1.6
    y0 = geo.board_h + 2
    out, x = [], 10.0
    for kind, name in enumerate(pic.KIND_NAMES):
        out.append(piece(y0 + lh / 2, x + lh / 2, small, kind, NEUTRAL))
        out.append(el("text", name, x=x + lh, y=y0 + lh / 2 + 5))
        x += lh + 8 * len(name) + lh // 2
    out.append(_hex(y0 + lh / 2, x + lh / 2, lh / 2 - 2, pic.WATER, stroke=rgb(pic.WATER_EDGE)))
    out.append(el("text", "melted", x=x + lh + 2, y=y0 + lh / 2 + 5))
    scores = state.scores()
    for seat in range(state.num_players):
        y0 = geo.board_h + (seat + 1) * lh + 2
        reserve = state.reserve(seat)
        parts = [
            el("rect", x=10, y=y0 + 2, width=lh - 4, height=lh - 4, fill=rgb(pic.OWNER_RGB[seat]))
        ]
        if state.current_player == seat:
            parts.append(el("rect", x=2, y=y0 + 2, width=4, height=lh - 4, fill=rgb(pic.OUTLINE)))
        if state.ended(seat):
            parts.append(
                el(
                    "path",
                    d=f"M11 {y0 + 3}l{lh - 6} {lh - 6}m0 -{lh - 6}l-{lh - 6} {lh - 6}",
                    stroke=rgb(pic.OUTLINE),
                    stroke_width=2,
                )
            )
        parts.append(el("text", f"player_{seat}: {scores[seat]}", x=16 + lh, y=y0 + lh / 2 + 5))
        x = 16 + lh + 110
        for kind, count in enumerate(reserve):
            for _ in range(count):
                parts.append(piece(y0 + lh / 2, x + small * 0.6, small, kind, seat))
                x += small * 1.3
            x += lh // 3
        head = (
            f'<g data-seat="{seat}" data-score="{scores[seat]}" data-ended='
            f'"{int(state.ended(seat))}" data-reserve="{",".join(map(str, reserve))}">'
        )
        out.append(f"{head}{''.join(parts)}</g>")
    return out


def board_svg(state: ArktiaState, last_action: int | None = None) -> tuple[int, int, list[str]]:
    """``(width, height, elements)`` of the position (see the module docstring)."""
    geo = _geometry(state.game)
    out = _tiles(geo, state) + _panel(geo, state)
    if last_action is not None:
        move = geo.game.codec.decode(last_action)
        tiles = {"place": move[2:3], "move": move[1:3]}.get(move[0], move[1:2])
        names = "-".join(geo.layout.names[t] for t in tiles)
        if move[0] == "move":
            (ay, ax), (by, bx) = geo.centres[move[1]], geo.centres[move[2]]
            out.append(
                el(
                    "path",
                    d=f"M{ax:.1f} {ay:.1f}L{bx:.1f} {by:.1f}",
                    stroke=LAST,
                    stroke_width=3,
                    stroke_dasharray="6 4",
                    data_last=names,
                )
            )
        elif tiles:
            cy, cx = geo.centres[tiles[-1]]
            out.append(
                _hex(
                    cy,
                    cx,
                    geo.s - 4.0,
                    (0, 0, 0),
                    fill_opacity=0,
                    stroke=LAST,
                    stroke_width=3,
                    data_last=names,
                )
            )
    return geo.width, geo.height, out


def action_cell(game: ArktiaGame, action: int) -> str | None:
    """The ``data-cell`` ``action`` aims at: the tile placed on, moved to, melted or kept
    (``None`` for ``stop``)."""
    move = game.codec.decode(action)
    tile = {"place": 2, "move": 2, "melt": 1, "keep": 1}.get(move[0])
    return None if tile is None else game.layout.names[move[tile]]
