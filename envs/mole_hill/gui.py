"""Mole Hill in pictures: seat names, status text and clicks on the board picture.

Used by the generic status band of :mod:`tabletop_zoo.envs.drawing.status` (recordings) and by
the play window (:mod:`tabletop_zoo.baselines.agents.gui`).
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.drawing.status import Choice
from tabletop_zoo.envs.mole_hill import board
from tabletop_zoo.envs.mole_hill.render import CELL, MoleHillImageRenderer, edge_rect, space_centre
from tabletop_zoo.envs.mole_hill.rules import MOLE_PIECES, NUM_ROUNDS, MoleHillState

#: Half the width (pixels) of the clickable strip along an edge, and the part of each end
#: of an edge that is not clickable (so that no strip overlaps another).
EDGE_REACH = 10
EDGE_CORNER = 9


def seat_label(state: MoleHillState, seat: int) -> str:
    """``"player_0 (mole)"`` or ``"player_1 (gardener)"``: the seat's role this round."""
    if state.is_terminal():
        return f"player_{seat}"
    role = "mole" if seat == state.mole_seat else "gardener"
    return f"player_{seat} ({role})"


def status(state: MoleHillState) -> str:
    """The round, the mole's pieces left and whether it may jump; round 1's score once
    round 2 has begun."""
    if state.is_terminal():
        return f"game over after {NUM_ROUNDS} rounds"
    text = (
        f"round {state.round + 1} of {NUM_ROUNDS}, {state.pieces_left} of {MOLE_PIECES} pieces left"
    )
    if state.jump_available:
        text += ", mole may jump"
    if state.round_scores and not state.trail:
        text += f", round 1 over: player_0 scored {state.round_scores[0]}"
    return text


class Picker:
    """Clicks on the Mole Hill picture: a space for the mole, an edge for a rod.

    Built from the env's image renderer (``env.unwrapped.renderer``); :meth:`draw` is the
    env's ``rgb_array`` picture and :meth:`choices` says what may be clicked in it.
    """

    def __init__(self, renderer: MoleHillImageRenderer) -> None:
        self.renderer = renderer

    def draw(self, state: MoleHillState) -> np.ndarray:
        """The picture the spots of :meth:`choices` refer to."""
        return self.renderer.draw(state)

    def choices(self, state: MoleHillState, selection: tuple = ()) -> tuple[str, list[Choice]]:
        """The prompt and the clickable choices for the player to act (none when over).

        Mole Hill needs one click per action, so ``selection`` is never used.
        """
        if state.is_terminal():
            return "the game is over", []
        legal = state.legal_actions()
        if state.mole_to_move:
            spots = [
                Choice(
                    board.SPACE_NAMES[s],
                    frozenset((s,)),
                    play=s,
                    spot=(*space_centre(s), 0.45 * CELL),
                )
                for s in legal
            ]
            where = "any space" if not state.trail else "a marked space"
            return f"mole: click {where} to move there", spots
        return "gardener: click an edge between two spaces to put a rod on it", [
            Choice(
                board.ACTION_NAMES[a], frozenset((a,)), play=a, box=edge_box(a - board.ROD_OFFSET)
            )
            for a in legal
        ]


def edge_box(edge: int) -> tuple[int, int, int, int]:
    """``(y0, x0, y1, x1)``: the clickable strip along ``edge`` (its corners left out, so
    strips never overlap)."""
    y0, x0, y1, x1 = edge_rect(edge, EDGE_REACH, EDGE_CORNER)
    return int(y0), int(x0), int(y1), int(x1)
