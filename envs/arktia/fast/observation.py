"""Observation planes of compiled Arktia rows: the planes of
:mod:`tabletop_zoo.envs.arktia.observation` (same order, same values), for a batch."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.envs.arktia.fast import kernels as K
from tabletop_zoo.envs.compiled.common import jit

# indices into the ``layout`` array given to :func:`encode`
L_PLAYERS, L_TILES, L_TOTAL_PIECES, L_MAX_TURNS = range(4)


@jit
def _slot(observer, colour, n):
    """Colour slot of a seat (relative to the observer) or of the neutral colour."""
    return n if colour == K.NEUTRAL else (colour - observer) % n


@jit
def encode(row, observer, cells, sizes, obs):
    """Planes of ``row`` seen by seat ``observer`` into ``obs`` (rows, cols, planes).

    ``cells[t]`` = (grid row, grid col) of tile ``t``; ``sizes`` = players, tiles, all
    pieces of the game and ``max_turns``.
    """
    n, n_tiles = sizes[L_PLAYERS], sizes[L_TILES]
    slots = n + 1
    control = 1 + 9 * slots
    melted = control + n
    base = melted + 1  # first constant plane (reserve)
    const = np.zeros(obs.shape[2] - base, dtype=np.float64)
    for s in range(n):
        seat = (observer + s) % n
        for kind in range(3):
            const[3 * s + kind] = row[K.RESERVE + 3 * seat + kind] / 3.0
            const[3 * n + 3 * s + kind] = float(row[K.NEUTRAL_RESERVE + 3 * seat + kind])
        const[6 * n + s] = row[K.REMOVED + seat] / sizes[L_TOTAL_PIECES]
        const[7 * n + s] = row[K.MELTED + seat] / n_tiles
        const[8 * n + s] = float(row[K.ENDED + seat])
    phase = 9 * n
    if row[K.SUB] == K.CHOOSE:
        const[phase + 4] = 1.0
    elif row[K.SUB] == K.MELT_SUB:
        const[phase + 3] = 1.0
    else:
        const[phase + (0, 1, 1, 2)[row[K.ROUND]]] = 1.0
    player = row[K.CUR]
    if player >= 0:
        const[phase + 5 + _slot(observer, player, n)] = 1.0
    if row[K.SUB] == K.CHOOSE:
        const[phase + 5 + n + _slot(observer, row[K.PENDING_COLOUR], n)] = 1.0
    const[phase + 5 + n + slots] = min(row[K.TURN] / sizes[L_MAX_TURNS], 1.0)
    for r in range(obs.shape[0]):  # every cell: zeros, then the constant planes
        for col in range(obs.shape[1]):
            cell = obs[r, col]
            cell[:base] = 0.0
            for i in range(const.shape[0]):
                cell[base + i] = const[i]
    alive = row[K.ALIVE]
    for t in range(n_tiles):
        r, c = cells[t, 0], cells[t, 1]
        obs[r, c, 0] = 1.0
        if (alive >> t) & 1 == 0:
            obs[r, c, melted] = 1.0
            continue
        h = row[K.HEIGHT + t]
        for level in range(h):
            piece = row[K.PIECES + 3 * t + level]
            slot = _slot(observer, piece // 3, n)
            obs[r, c, 1 + (level * slots + slot) * 3 + piece % 3] = 1.0
        if h > 0:
            top = row[K.PIECES + 3 * t + h - 1] // 3
            if top != K.NEUTRAL:
                obs[r, c, control + _slot(observer, top, n)] = 1.0


@jit
def encode_batch(states, observers, cells, sizes, obs):
    """:func:`encode` for every row of a batch."""
    for i in range(states.shape[0]):
        encode(states[i], observers[i], cells, sizes, obs[i])


def observation_tables(encoder: Any) -> tuple[np.ndarray, np.ndarray]:
    """(cells, sizes) arrays for :func:`encode` from the Python encoder of the same game."""
    cells = np.stack([encoder.tile_rows, encoder.tile_cols], axis=1).astype(np.int64)
    sizes = [encoder.num_players, encoder.num_tiles, encoder.total_pieces, encoder.max_turns]
    return cells, np.array(sizes, dtype=np.int64)
