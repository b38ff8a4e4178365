"""Status lines for pictures of a game in progress (recordings and the play window).

Generic over the games of :data:`~tabletop_zoo.envs.registry.GAMES`: what differs per game
(how a seat is named, the round or phase) comes from the gui module its
:class:`~tabletop_zoo.envs.registry.GameSpec` names (:func:`game_gui`):

* ``seat_label(state, seat) -> str``, e.g. ``"player_0 (mole)"``;
* ``status(state) -> str``, the round or phase, e.g. ``"round 1 of 2, 12 pieces left"``.

A game without one (``gui=None``) gets a plain band (:class:`PlainGui`): seats named
``player_<seat>``, no round or phase.

:func:`status_lines` builds the text (move number, mover, last move in notation, who is to
act or the result, scores) and :func:`with_status` draws it in a band above a picture with
the bitmap font of :mod:`tabletop_zoo.envs._render` (numpy only, no pygame).
:func:`move_frames` lists the pictures a move adds to a recording: a move that ends a round
or phase (the engine state's ``round`` changes) says so, and where the next round starts on
a cleared board (the state's ``round_end_board(action)``) the finished board comes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from tabletop_zoo.envs._render import Color, blank_image, draw_text, text_size
from tabletop_zoo.envs.errors import InvalidOptionError, TabletopZooError, as_integer
from tabletop_zoo.envs.registry import GameSpec, spec_of

BAND: Color = (250, 250, 245)
INK: Color = (20, 20, 20)
TEXT_SCALE = 2
LINE_GAP = 4


@dataclass(frozen=True)
class LastMove:
    """The action just played: who played it and its notation (taken before it was applied)."""

    seat: int
    notation: str
    action: int | None = None
    """The action's number (pictures mark it on the board), when known."""
    label: str = ""
    """The mover as named when it moved (its role then, :func:`move_of`); empty: named as
    the position after the move names its seat."""


def move_of(state: Any, action: Any) -> LastMove:
    """``action`` as played from ``state`` (taken before it is applied): the mover, with its
    role at the move, and the notation (``"illegal action 5"`` if it is no action)."""
    seat = state.current_player
    try:
        notation, number = state.action_to_string(action), as_integer(action)
    except (TabletopZooError, TypeError):
        notation, number = f"illegal action {action!r}", None  # not marked on a board
    return LastMove(seat, notation, number, game_gui(state).seat_label(state, seat))


@dataclass(frozen=True)
class Choice:
    """One thing a person can click in the play window: a spot on the board picture or a
    button under it.

    Clicking plays ``play`` when it is set, otherwise makes ``selection`` the new partial
    choice (e.g. the stack to move). ``actions`` are the legal actions the choice leads to
    (one of them is played in the end), so every legal action is reachable by clicks.
    """

    label: str
    actions: frozenset[int]
    play: int | None = None
    selection: tuple = ()
    spot: tuple[float, float, float] | None = None
    """``(y, x, radius)`` of a round spot on the picture (pixels)."""
    box: tuple[int, int, int, int] | None = None
    """``(y0, x0, y1, x1)`` of a rectangular spot on the picture (e.g. a rod's edge)."""
    selected: bool = False
    """Part of the current selection (drawn highlighted)."""

    @property
    def is_button(self) -> bool:
        """A button in the panel (no spot on the picture)."""
        return self.spot is None and self.box is None

    def hit(self, y: float, x: float) -> bool:
        """Whether picture pixel ``(y, x)`` lies on this spot."""
        if self.spot is not None:
            cy, cx, r = self.spot
            return (y - cy) ** 2 + (x - cx) ** 2 <= r * r
        if self.box is not None:
            y0, x0, y1, x1 = self.box
            return y0 <= y < y1 and x0 <= x < x1
        return False


class PlainGui:
    """The status band's words for a game whose spec names no gui module."""

    @staticmethod
    def seat_label(state: Any, seat: int) -> str:
        """``"player_<seat>"`` (the AEC agent name)."""
        return f"player_{seat}"

    @staticmethod
    def status(state: Any) -> str:
        """``"in play"`` (the band's first line already counts the moves)."""
        return "in play"


def game_spec(spec_or_obj: Any) -> GameSpec | None:
    """The spec itself, or the spec of one of the game's objects (engine state, Game,
    renderer); ``None`` for an object of no game of ``GAMES``."""
    if isinstance(spec_or_obj, GameSpec):
        return spec_or_obj
    try:
        return spec_of(spec_or_obj)
    except InvalidOptionError:
        return None


def game_gui(spec_or_obj: Any) -> ModuleType | type[PlainGui]:
    """The gui module a game's spec names (``seat_label``, ``status``, ``Picker``), given
    the spec or one of the game's objects; :class:`PlainGui` when the spec names none (or
    the object belongs to no game of ``GAMES``)."""
    spec = game_spec(spec_or_obj)
    return (spec and spec.gui_module()) or PlainGui


def round_name(state: Any, number: int) -> str:
    """What players call the engine's round ``number`` (``ROUND_NAMES`` of the game's help
    module, e.g. ``"round 1"`` for round 0; ``"round <number>"`` without one)."""
    spec = game_spec(state)
    names = getattr(spec and spec.help_module(), "ROUND_NAMES", ())
    return names[number] if 0 <= number < len(names) else f"round {number}"


def result_text(state: Any, truncated: bool = False) -> str:
    """``"game over: player_0 (mole) wins"`` / ``"... draw"``; truncated games say so."""
    gui = game_gui(state)
    scores = list(state.scores())
    if truncated:
        top = max(scores)
        leaders = [s for s, x in enumerate(scores) if x == top]
        lead = gui.seat_label(state, leaders[0]) if len(leaders) == 1 else "nobody"
        return f"stopped at the turn limit: {lead} leads"
    returns = list(state.returns())
    winners = [s for s, r in enumerate(returns) if r > 0]
    if winners:
        return f"game over: {gui.seat_label(state, winners[0])} wins"
    return "game over: draw"


def status_lines(
    state: Any, moves_played: int, last: LastMove | None = None, truncated: bool = False
) -> list[str]:
    """Three lines: the last move, the game's round/phase with who acts (or the result),
    and the scores."""
    gui = game_gui(state)
    if last is None:
        first = "start of the game"
    else:
        mover = last.label or gui.seat_label(state, last.seat)
        first = f"move {moves_played}: {mover} played {last.notation}"
    if state.is_terminal() or truncated:
        second = result_text(state, truncated)
    else:
        second = f"{gui.status(state)}, to act: {gui.seat_label(state, state.current_player)}"
    third = "scores: " + ", ".join(
        f"{gui.seat_label(state, seat)} {score}" for seat, score in enumerate(state.scores())
    )
    return [first, second, third]


Frame = tuple[Any, LastMove | None, list[str]]
"""A picture of a recording: the position, the move marked on it, the status lines."""


def move_frames(
    before: Any, last: LastMove, after: Any, moves_played: int, truncated: bool = False
) -> list[Frame]:
    """The pictures of the move ``last`` (the ``moves_played``-th), played from ``before`` to
    ``after``: ``after`` with its status lines; if the move ends a round or phase (the
    state's ``round`` changes) its second line begins with ``"<round> is over, "``, unless
    the next round starts on a cleared board (``before.round_end_board(action)`` is the
    finished one): then the finished board, labelled with the move, and ``after`` as the
    start of the next round (``"<round> begins"``, no move marked)."""
    lines = status_lines(after, moves_played, last, truncated)
    ended = getattr(before, "round", None)
    if ended is None or ended == getattr(after, "round", None):
        return [(after, last, lines)]
    over = f"{round_name(before, ended)} is over"
    finish = getattr(before, "round_end_board", None)
    board = None if finish is None or last.action is None else finish(last.action)
    if board is None:  # the board stays: the move's picture is the finished board
        return [(after, last, [lines[0], f"{over}, {lines[1]}", lines[2]])]
    scores = status_lines(board, moves_played, last)[2]  # the roles of the finished round
    start = f"{round_name(after, after.round)} begins"
    return [(board, last, [lines[0], over, scores]), (after, None, [start, *lines[1:]])]


def wrap(text: str, width_px: int, scale: int = TEXT_SCALE) -> list[str]:
    """Split ``text`` at spaces into lines at most ``width_px`` wide in the bitmap font
    (a single word wider than that is cut)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if not current or text_size(candidate, scale)[1] <= width_px:
            current = candidate
        else:
            lines.append(current)
            current = word
    lines.append(current)
    out = []
    for line in lines:
        while len(line) > 1 and text_size(line, scale)[1] > width_px:
            line = line[:-1]
        out.append(line)
    return out


def band_lines(lines: list[str], width_px: int, scale: int = TEXT_SCALE) -> list[str]:
    """``lines`` wrapped to the band width (what :func:`with_status` draws)."""
    return [part for line in lines for part in wrap(line, width_px - 2 * 6, scale)]


def band_height(num_lines: int, scale: int = TEXT_SCALE) -> int:
    """Pixel height of a status band with ``num_lines`` lines."""
    return 6 + num_lines * (5 * scale + LINE_GAP) + 2


def with_status(
    img: np.ndarray, lines: list[str], min_lines: int = 0, scale: int = TEXT_SCALE
) -> np.ndarray:
    """A new picture: a light band with ``lines`` (wrapped) above ``img``.

    The band has room for at least ``min_lines`` lines, so frames of one animation can
    share a size.
    """
    h, w = img.shape[:2]
    wrapped = band_lines(lines, w, scale)
    top = band_height(max(len(wrapped), min_lines), scale)
    out = blank_image(top + h, w, BAND)
    for k, line in enumerate(wrapped):
        draw_text(out, line, 6 + k * (5 * scale + LINE_GAP), 6, scale, INK)
    out[top - 2 : top] = (200, 200, 190)  # a thin rule under the band
    out[top:] = img
    return out
