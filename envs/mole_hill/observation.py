"""Observation planes for Mole Hill (numpy only, no gymnasium imports).

The board is the 7 x 9 grid of spaces; every plane is one channel of a ``(7, 9, 16)``
``float32`` array (channels last) with values in ``[0, 1]``. Planes are relative to the
observing seat ("me" / "opponent"); ``state()`` is the view of seat 0 (seat-absolute).

 0 visited by the mole this round     8 spaces the mole may go to next
 1 trail order (k / 22 for the k-th)  9 I am the mole this round (const)
 2 the mole                          10 the mole is to move (const)
 3 rod on the edge to the right      11 round (0 first, 1 second) (const)
 4 rod on the edge below             12 my score so far / 24 (const)
 5 red flower                        13 opponent's score so far / 24 (const)
 6 white flower                      14 mole pieces left / 22 (const)
 7 centre                            15 the mole may jump next (const)
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.mole_hill import board
from tabletop_zoo.envs.mole_hill.rules import (
    MAX_ROUND_SCORE,
    MOLE_PIECES,
    MoleHillGame,
    MoleHillState,
)

PLANE_NAMES = (
    "visited",
    "trail order",
    "mole",
    "rod right",
    "rod below",
    "red flower",
    "white flower",
    "centre",
    "mole destinations",
    "I am the mole",
    "mole to move",
    "round",
    "my score",
    "opponent score",
    "pieces left",
    "jump available",
)
NUM_PLANES = len(PLANE_NAMES)
(
    P_VISITED,
    P_ORDER,
    P_MOLE,
    P_ROD_RIGHT,
    P_ROD_BELOW,
    P_RED,
    P_WHITE,
    P_CENTRE,
    P_DEST,
    P_I_AM_MOLE,
    P_MOLE_TO_MOVE,
    P_ROUND,
    P_MY_SCORE,
    P_OPP_SCORE,
    P_PIECES_LEFT,
    P_JUMP,
) = range(NUM_PLANES)
OBS_SHAPE = (board.ROWS, board.COLS, NUM_PLANES)
# flat index (in a (63 * 16,) view) of the rod plane entry of each edge
_EDGE_FLAT = np.array(
    [
        a * NUM_PLANES + (P_ROD_RIGHT if e < board.NUM_H_EDGES else P_ROD_BELOW)
        for e, (a, _b) in enumerate(board.EDGE_SPACES)
    ],
    dtype=np.intp,
)
_TRAIL_ORDER = (np.arange(1, MOLE_PIECES + 1) / MOLE_PIECES).astype(np.float32)


class MoleHillObservationEncoder:
    """Builds agent-relative observation planes of Mole Hill positions.

    The planes that stay fixed for a whole game (flowers, centre) are built once per
    flower placement and reused.
    """

    def __init__(self, game: MoleHillGame, max_turns: int | None = None) -> None:
        """``max_turns`` is accepted for the common encoder signature; no plane uses it."""
        self.game = game
        self.max_turns = max_turns
        self.shape = OBS_SHAPE
        self._static_planes: dict[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray] = {}
        self._last_flowers: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._last_static = np.zeros((board.NUM_SPACES, NUM_PLANES), dtype=np.float32)

    def plane_names(self) -> list[str]:
        """Name of every plane, in order."""
        return list(PLANE_NAMES)

    def _static(self, state: MoleHillState) -> np.ndarray:
        """The fixed planes of ``state``'s flower placement, as a ``(63, 16)`` array."""
        red, white = state.red_flowers, state.white_flowers
        last_red, last_white = self._last_flowers
        if red is last_red and white is last_white:  # the same game (or a clone of it)
            return self._last_static
        key = (red, white)
        static = self._static_planes.get(key)
        if static is None:
            static = np.zeros((board.NUM_SPACES, NUM_PLANES), dtype=np.float32)
            static[list(state.red_flowers), P_RED] = 1.0
            static[list(state.white_flowers), P_WHITE] = 1.0
            static[board.CENTRE, P_CENTRE] = 1.0
            if len(self._static_planes) >= 64:  # random flowers: keep memory flat
                self._static_planes.clear()
            self._static_planes[key] = static
        self._last_flowers, self._last_static = key, static
        return static

    def encode(self, state: MoleHillState, seat: int) -> np.ndarray:
        """Planes of ``state`` seen by ``seat`` (``seat=0``: seat-absolute)."""
        obs = self._static(state).copy()
        trail = state.trail
        if trail:
            obs[trail, P_VISITED] = 1.0
            obs[trail, P_ORDER] = _TRAIL_ORDER[: len(trail)]
            obs[trail[-1], P_MOLE] = 1.0
        if state.rods:
            obs.reshape(-1)[_EDGE_FLAT[state.rods]] = 1.0
        destinations = state.mole_destinations()
        if destinations:
            obs[destinations, P_DEST] = 1.0
        scores = state.scores()
        playing = not state.is_terminal()
        obs[:, P_I_AM_MOLE:] = (
            seat == state.round,
            playing and state.mole_to_move,
            state.round,
            scores[seat] / MAX_ROUND_SCORE,
            scores[1 - seat] / MAX_ROUND_SCORE,
            state.pieces_left / MOLE_PIECES,
            state.jump_available,
        )
        return obs.reshape(OBS_SHAPE)
