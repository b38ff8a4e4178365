"""Arktia in pictures: seat names, status text and clicks on the board picture.

Used by the generic status band of :mod:`tabletop_zoo.envs._display` (recordings) and by
the play window (:mod:`tabletop_zoo.baselines.agents.gui`).
"""

from __future__ import annotations

from tabletop_zoo.envs.arktia.render import OWNER_NAMES
from tabletop_zoo.envs.arktia.state import ArktiaState

#: What each phase of :attr:`ArktiaState.phase` means, for status lines.
PHASE_TEXT = {
    "setup": "setup: neutral pieces",
    "opening": "opening: placing",
    "normal": "normal play",
    "melt": "melting a tile",
    "choose": "choosing a group",
}


def seat_label(state: ArktiaState, seat: int) -> str:
    """``"player_0 (red)"``: the seat and its colour."""
    return f"player_{seat} ({OWNER_NAMES[seat]})"


def status(state: ArktiaState) -> str:
    """Turn number and phase, e.g. ``"turn 7, normal play"``; a pending tie names the
    colour whose groups are offered."""
    text = f"turn {state.turn + 1}, {PHASE_TEXT[state.phase]}"
    colour = state.choosing_colour
    if state.phase == "choose" and colour is not None:
        text += f" ({OWNER_NAMES[colour]} groups tied)"
    return text
