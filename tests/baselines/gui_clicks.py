"""Where to click in a play window (:class:`~tabletop_zoo.baselines.agents.gui.PlayWindow`)
to hit a choice shown in its last frame: the tests' synthetic mouse events aim here."""

from __future__ import annotations

from typing import Any


def button_centre(window: Any, choice: Any) -> tuple[int, int]:
    """Window pixel ``(x, y)`` at the middle of a button shown in the last frame."""
    for (y0, x0, y1, x1), shown in window._buttons:
        if shown == choice:
            return (x0 + x1) // 2, (y0 + y1) // 2
    raise ValueError(f"button {choice.label!r} is not shown")


def spot_centre(window: Any, choice: Any) -> tuple[int, int]:
    """Window pixel ``(x, y)`` at the middle of a spot on the picture (or of a button)."""
    if choice.spot is not None:
        y, x, _ = choice.spot
    elif choice.box is not None:
        y0, x0, y1, x1 = choice.box
        y, x = (y0 + y1) / 2, (x0 + x1) / 2
    else:
        return button_centre(window, choice)
    return int(x), int(y + window.picture_top)
