"""SVG pictures of positions: the ``rgb_array`` picture as vectors, crisp at any size.

Each game's spec names its SVG module (``GameSpec.svg``: ``board_svg(state, last_action)
-> (width, height, elements)`` and ``action_cell``); :func:`state_svg` puts the status band of
:mod:`tabletop_zoo.envs.drawing.status` (the last move, the round or phase with who acts or the
result, the scores) above it. Every drawn thing of the position carries what it shows as
data attributes (``data-cell``, ``data-owner``, ``data-height``, ...), so a test or a page
script reads the position back from the picture; the root element carries the game, the
seat to act and the scores. Standard library only (plus the status texts).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any
from xml.sax.saxutils import escape

from tabletop_zoo.envs.drawing.status import LastMove, band_lines, status_lines
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import spec_of

FONT = 13
LINE = 17
#: The colour that marks the last move on a board.
LAST = "#d62828"


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}".removesuffix(".0")
    return str(value)


def _quoted(text: str) -> str:
    """``text`` fit for a double-quoted attribute (most need no change: checked first)."""
    if "&" in text or "<" in text or '"' in text:
        return escape(text, {'"': "&quot;"})
    return text


def el(tag: str, text: str | None = None, /, **attrs: Any) -> str:
    """One SVG element: ``el("rect", x=1, data_cell="a1")`` -> ``<rect x="1" data-cell="a1"/>``
    (``class_`` for ``class``; ``None`` values are left out; floats to one decimal)."""
    parts = "".join(
        f' {key.rstrip("_").replace("_", "-")}="{_quoted(_value(value))}"'
        for key, value in attrs.items()
        if value is not None
    )
    return f"<{tag}{parts}/>" if text is None else f"<{tag}{parts}>{escape(text)}</{tag}>"


def rgb(color: tuple[int, int, int]) -> str:
    """``#rrggbb`` of an RGB triple."""
    return "#{:02x}{:02x}{:02x}".format(*color)


def svg_module(state: Any) -> ModuleType | None:
    """The SVG module of ``state``'s game (``None``: none, or not a game of ``GAMES``)."""
    try:
        return spec_of(state).svg_module()
    except InvalidOptionError:
        return None


def state_svg(
    state: Any,
    last: LastMove | None = None,
    moves: int | None = None,
    truncated: bool = False,
    lines: list[str] | None = None,
) -> str | None:
    """The SVG picture of ``state`` under its status band; ``None`` for a game whose spec
    names no SVG board. ``last``: the move just played (named in the band and marked on the
    board); ``moves``: how many have been played (without it and ``last`` the band leaves
    out the line of the last move); ``truncated``: the game was stopped at the turn limit;
    ``lines``: the band's lines, if not these."""
    module = svg_module(state)
    if module is None:
        return None
    width, height, parts = module.board_svg(state, None if last is None else last.action)
    if lines is None:
        lines = status_lines(state, moves or 0, last, truncated)
        if last is None and moves is None:
            lines = lines[1:]
    lines = band_lines(lines, int(width))
    top = 12 + LINE * len(lines)
    band = [el("text", line, x=6, y=4 + LINE * (k + 1)) for k, line in enumerate(lines)]
    w, h = _value(float(width)), _value(float(height + top))
    head = el(
        "svg",
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {w} {h}",
        width=w,
        height=h,
        font_family="sans-serif",
        font_size=FONT,
        data_to_act=state.current_player,
        data_scores=",".join(map(str, state.scores())),
        data_over=int(state.is_terminal() or truncated),
    )[:-2]
    rule = el("path", d=f"M0 {top - 1}H{w}", stroke="#c8c8be", stroke_width=2)
    band.insert(0, el("rect", width="100%", height="100%", fill="#fafaf5"))
    board = "".join(parts)
    return f'{head}>{"".join(band)}{rule}<g transform="translate(0 {top})">{board}</g></svg>'
