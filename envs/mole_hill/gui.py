"""Mole Hill in pictures: seat names, status text and clicks on the board picture.

Used by the generic status band of :mod:`tabletop_zoo.envs._display` (recordings) and by
the play window (:mod:`tabletop_zoo.baselines.agents.gui`).
"""

from __future__ import annotations

from tabletop_zoo.envs.mole_hill.game import MOLE_PIECES, NUM_ROUNDS, MoleHillState


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
    text = f"round {state.round + 1} of {NUM_ROUNDS}, {state.pieces_left} of {MOLE_PIECES} left"
    if state.jump_available:
        text += ", mole may jump"
    if state.round_scores and not state.trail:
        text += f", round 1 over: player_0 scored {state.round_scores[0]}"
    return text
