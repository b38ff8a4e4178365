"""Mole Hill (Reiner Knizia) as a two-player PettingZoo AEC environment.

| Import             | ``from tabletop_zoo.envs import mole_hill_v0``                  |
|--------------------|-----------------------------------------------------------------|
| Make               | ``pettingzoo.make("aec", "tabletop_zoo/mole_hill-v0")``         |
| Agents             | ``player_0`` (mole in round 1), ``player_1`` (mole in round 2)  |
| Actions            | ``Discrete(173)``: 0..62 mole goes to space, 63..172 rod on edge |
| Observation        | ``float32 (7, 9, 16)`` planes + ``int8 (173,)`` action mask     |
| Rewards            | at the end: +1 / -1 / 0, or the score margin                    |
| Options            | ``random_flowers`` (bool), ``reward_mode`` ("win"/"score") |

Each agent plays both roles (mole one round, gardener the other), so both use
the same action space; the action encoding and notation are in
:mod:`tabletop_zoo.envs.mole_hill.actions`. Observation planes are relative to
the observing agent ("me" / "opponent"); ``state()`` gives the same planes from
``player_0``'s side (seat-absolute). ``env.unwrapped.game`` is the live
:class:`~tabletop_zoo.envs.mole_hill.MoleHillState` (agents must not mutate it).
Observation planes (index: meaning):

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

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from tabletop_zoo.envs import _render as R
from tabletop_zoo.envs._aec_base import TurnBasedAECEnv, check_options, wrap_classic
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import actions as A
from tabletop_zoo.envs.mole_hill.game import LIGHT_PIECES, MAX_ROUND_SCORE, MOLE_PIECES

NUM_PLANES = 16
(
    P_VISITED, P_ORDER, P_MOLE, P_ROD_RIGHT, P_ROD_BELOW, P_RED, P_WHITE, P_CENTRE, P_DEST,
    P_I_AM_MOLE, P_MOLE_TO_MOVE, P_ROUND, P_MY_SCORE, P_OPP_SCORE, P_PIECES_LEFT, P_JUMP,
) = range(NUM_PLANES)  # fmt: skip
OBS_SHAPE = (A.ROWS, A.COLS, NUM_PLANES)
# flat index (in a (63 * 16,) view) of the rod plane entry of each edge
_EDGE_FLAT = np.array(
    [a * NUM_PLANES + (P_ROD_RIGHT if e < A.NUM_H_EDGES else P_ROD_BELOW)
     for e, (a, _b) in enumerate(A.EDGE_SPACES)],
    dtype=np.intp,
)  # fmt: skip
_TRAIL_ORDER = (np.arange(1, MOLE_PIECES + 1) / MOLE_PIECES).astype(np.float32)

OPTIONS = {
    "random_flowers": "bool, flowers on random spaces (default False)",
    "reward_mode": "'win' (+1/-1/0, default) or 'score' (score margin)",
}


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env: an illegal action ends the game with -1 for the offender."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TurnBasedAECEnv, EzPickle):  # noqa: N801  # PettingZoo naming
    """Unwrapped Mole Hill env; raises IllegalActionError on an illegal action."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "mole_hill_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, **options: Any
    ) -> None:
        check_options(options, OPTIONS)
        EzPickle.__init__(self, num_players=num_players, render_mode=render_mode, **options)
        self._engine = MoleHillGame(
            num_players=num_players, random_flowers=options.get("random_flowers", False)
        )
        box = spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32)
        super().__init__(
            2,
            A.NUM_ACTIONS,
            box,
            render_mode=render_mode,
            reward_mode=options.get("reward_mode", "win"),
        )
        self.state_space = box
        self._static = np.zeros((A.NUM_SPACES, NUM_PLANES), dtype=np.float32)

    def _new_game(self, seed: int) -> MoleHillState:
        state = self._engine.new_initial_state(seed)
        static = np.zeros((A.NUM_SPACES, NUM_PLANES), dtype=np.float32)
        static[list(state.red_flowers), P_RED] = 1.0
        static[list(state.white_flowers), P_WHITE] = 1.0
        static[A.CENTRE, P_CENTRE] = 1.0
        self._static = static  # planes that stay fixed for the whole game
        return state

    def _observation(self, seat: int) -> np.ndarray:
        st: MoleHillState = self.game
        obs = self._static.copy()
        trail = st.trail
        if trail:
            obs[trail, P_VISITED] = 1.0
            obs[trail, P_ORDER] = _TRAIL_ORDER[: len(trail)]
            obs[trail[-1], P_MOLE] = 1.0
        if st.rods:
            obs.reshape(-1)[_EDGE_FLAT[st.rods]] = 1.0
        dest = st.mole_destinations()
        if dest:
            obs[dest, P_DEST] = 1.0
        scores = st.scores()
        playing = not st.is_terminal()
        obs[:, P_I_AM_MOLE:] = (
            seat == st.round,
            playing and st.mole_to_move,
            st.round,
            scores[seat] / MAX_ROUND_SCORE,
            scores[1 - seat] / MAX_ROUND_SCORE,
            st.pieces_left / MOLE_PIECES,
            st.jump_available,
        )
        return obs.reshape(OBS_SHAPE)

    def _state(self) -> np.ndarray:
        return self._observation(0)

    def _render_rgb(self) -> np.ndarray:
        return draw_board(self.game)


# ---------------------------------------------------------------- image
CELL = 56
MARGIN = 28
LAWN = ((104, 168, 80), (94, 156, 72))  # checkered lawn
GRID = (70, 120, 55)
RED = (215, 40, 40)
WHITE = (245, 245, 245)
YELLOW = (250, 215, 50)
EARTH = (110, 72, 40)
HOLE = (60, 40, 25)
LIGHT_PIECE = (240, 150, 50)
DARK_PIECE = (45, 35, 30)
ROD_EDGE = (40, 40, 40)
INK = (20, 20, 20)


def _centre(s: int) -> tuple[float, float]:
    r, c = divmod(s, A.COLS)
    return MARGIN + (r + 0.5) * CELL, MARGIN + (c + 0.5) * CELL


def draw_board(state: MoleHillState) -> np.ndarray:
    """RGB image of the position: lawn, flowers, centre hole, rods, numbered trail, mole."""
    h, w = MARGIN + A.ROWS * CELL + 8, MARGIN + A.COLS * CELL + 8
    img = R.blank_image(h, w, (235, 230, 215))
    for s in range(A.NUM_SPACES):
        r, c = divmod(s, A.COLS)
        y, x = MARGIN + r * CELL, MARGIN + c * CELL
        R.fill_rect(img, y, x, y + CELL, x + CELL, GRID)
        R.fill_rect(img, y + 1, x + 1, y + CELL - 1, x + CELL - 1, LAWN[(r + c) % 2])
    for c, letter in enumerate(A.COLUMN_LETTERS):
        R.draw_text(img, letter, 8, MARGIN + c * CELL + CELL // 2 - 3, 2, INK)
    for r in range(A.ROWS):
        R.draw_text(img, str(r + 1), MARGIN + r * CELL + CELL // 2 - 5, 8, 2, INK)
    cy, cx = _centre(A.CENTRE)
    R.fill_ring(img, cy, cx, 0.45 * CELL, 0.36 * CELL, HOLE)
    for spaces_, colour in ((state.red_flowers, RED), (state.white_flowers, WHITE)):
        for s in spaces_:  # a flower in the top-left corner stays visible under a piece
            fy, fx = _centre(s)
            fy, fx = fy - 0.3 * CELL, fx - 0.3 * CELL
            for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                R.fill_disc(img, fy + dy * 4, fx + dx * 4, 4.5, colour)
            R.fill_disc(img, fy, fx, 3, YELLOW)
    if not state.is_terminal() and state.mole_to_move:
        for s in state.mole_destinations():
            dy, dx = _centre(s)
            R.fill_disc(img, dy, dx, 4, YELLOW)
    trail = state.trail
    for p, q in zip(trail[:-1], trail[1:], strict=True):
        width = 3 if p == A.CENTRE else 7  # thin line for a jump
        R.draw_segment(img, _centre(p), _centre(q), width, EARTH)
    for k, s in enumerate(trail):
        y, x = _centre(s)
        light = k < LIGHT_PIECES
        R.fill_disc(img, y, x, 0.3 * CELL, LIGHT_PIECE if light else DARK_PIECE)
        label = str(k + 1)
        th, tw = R.text_size(label, 2)
        R.draw_text(img, label, int(y - th / 2), int(x - tw / 2), 2, INK if light else WHITE)
    if trail:
        y, x = _centre(trail[-1])
        R.fill_ring(img, y, x, 0.46 * CELL, 0.36 * CELL, YELLOW)  # the mole's stack
    for e in state.rods:
        a, b = A.EDGE_SPACES[e]
        ay, ax = _centre(a)
        if b == a + 1:  # vertical bar on the edge to the right of a
            x = int(ax + CELL / 2)
            top, bottom = int(ay - CELL / 2), int(ay + CELL / 2)
            R.fill_rect(img, top - 1, x - 4, bottom + 1, x + 4, ROD_EDGE)
            R.fill_rect(img, top + 1, x - 2, bottom - 1, x + 2, WHITE)
        else:  # horizontal bar on the edge below a
            y = int(ay + CELL / 2)
            left, right = int(ax - CELL / 2), int(ax + CELL / 2)
            R.fill_rect(img, y - 4, left - 1, y + 4, right + 1, ROD_EDGE)
            R.fill_rect(img, y - 2, left + 1, y + 2, right - 1, WHITE)
    return img
