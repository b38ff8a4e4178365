"""Compiled Mole Hill rules (numba): one game is one ``int64`` row of fixed width.

The rules are those of :mod:`tabletop_zoo.envs.mole_hill` (rulings M1-M10), transcribed
onto arrays; ``tests/envs/test_fast_mole_hill.py`` plays both engines side by side. The
board geometry and action encoding are the documented ones (``Discrete(173)``: space
``s = row * 9 + col`` for the mole, ``63 + edge`` for a rod; horizontal edges
``r * 8 + c`` then vertical edges ``56 + r * 9 + c``).

Row layout (column: meaning):

===========  ==================================================================
``VISITED``  bit set of the spaces visited this round
``RED``      bit set of the red flower spaces; ``WHITE`` the white ones
``ROUND``    0 (seat 0 is the mole) or 1
``SCORES``   two columns: the mole score of each finished round
``MOLE``     1 if the mole is to move, 0 if the gardener
``PLAYER``   seat to move, -1 once the game is over
``LENGTH``   spaces on the trail; ``NUM_RODS`` rods placed this round
``RODS``     two words: bit set of the edges with a rod (edge ``e`` is bit
             ``e % 64`` of word ``e // 64``)
``TRAIL``    22 columns: the trail in order (the last one is the mole)
``ROD_ORDER`` 22 columns: the rods in the order placed
``CONFIG``   the fingerprint of the engine configuration that made the row
             (:meth:`FastMoleHill.check_states` refuses rows of another one)
===========  ==================================================================
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.compiled.common import copy_into, jit, kernel, popcount
from tabletop_zoo.envs.mole_hill.observation import (  # the planes, in the env's order
    P_CENTRE,
    P_DEST,
    P_I_AM_MOLE,
    P_JUMP,
    P_MOLE,
    P_MOLE_TO_MOVE,
    P_MY_SCORE,
    P_OPP_SCORE,
    P_ORDER,
    P_PIECES_LEFT,
    P_RED,
    P_ROD_BELOW,
    P_ROD_RIGHT,
    P_ROUND,
    P_VISITED,
    P_WHITE,
)

ROWS, COLS = 7, 9
NUM_SPACES = ROWS * COLS
CENTRE = 3 * COLS + 4
NUM_H_EDGES = ROWS * (COLS - 1)
NUM_EDGES = NUM_H_EDGES + (ROWS - 1) * COLS
NUM_ACTIONS = NUM_SPACES + NUM_EDGES
MOLE_PIECES, LIGHT_PIECES, MAX_ROUND_SCORE = 22, 10, 24

VISITED, RED, WHITE, ROUND, SCORES, MOLE, PLAYER, LENGTH, NUM_RODS, RODS = (
    0, 1, 2, 3, 4, 6, 7, 8, 9, 10,
)  # fmt: skip
TRAIL = 12
ROD_ORDER = TRAIL + MOLE_PIECES
CONFIG = ROD_ORDER + MOLE_PIECES
WIDTH = CONFIG + 1


def _edge_between(a: int, b: int) -> int:
    (ra, ca), rb = divmod(min(a, b), COLS), max(a, b) // COLS
    if ra == rb:
        return ra * (COLS - 1) + ca
    return NUM_H_EDGES + ra * COLS + ca


def _tables() -> tuple[np.ndarray, ...]:
    """King-step tables: target, and the two rod paths (M6) as 2-word edge masks."""
    target = np.full((NUM_SPACES, 8), -1, dtype=np.int64)
    paths = np.zeros((NUM_SPACES, 8, 2, 2), dtype=np.int64)  # [p, i, path, word]
    count = np.zeros(NUM_SPACES, dtype=np.int64)
    for p in range(NUM_SPACES):
        pr, pc = divmod(p, COLS)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                qr, qc = pr + dr, pc + dc
                if (dr, dc) == (0, 0) or not (0 <= qr < ROWS and 0 <= qc < COLS):
                    continue
                q, i = qr * COLS + qc, count[p]
                if dr == 0 or dc == 0:
                    routes = [[_edge_between(p, q)]] * 2
                else:
                    s1, s2 = pr * COLS + qc, qr * COLS + pc
                    routes = [[_edge_between(p, s), _edge_between(s, q)] for s in (s1, s2)]
                for j, route in enumerate(routes):
                    for e in route:
                        bit = np.int64(1) << np.int64(e % 64)
                        paths[p, i, j, e // 64] |= bit
                target[p, i] = q
                count[p] += 1
    return target, count, paths


STEP_TARGET, STEP_COUNT, STEP_PATHS = _tables()
ALL_SPACES = np.int64((1 << NUM_SPACES) - 1)
# edge to the right of / below each space (-1 on the border)
RIGHT_EDGE = np.array(
    [_edge_between(s, s + 1) if s % COLS < COLS - 1 else -1 for s in range(NUM_SPACES)],
    dtype=np.int64,
)
BELOW_EDGE = np.array(
    [_edge_between(s, s + COLS) if s + COLS < NUM_SPACES else -1 for s in range(NUM_SPACES)],
    dtype=np.int64,
)


@kernel
def start_round(row):
    """Clear the board for the round in ``row[ROUND]``; the mole (seat = round) starts."""
    row[VISITED] = 0
    row[LENGTH] = 0
    row[NUM_RODS] = 0
    row[RODS] = 0
    row[RODS + 1] = 0
    row[TRAIL:CONFIG] = 0  # rows of equal positions are equal arrays
    row[MOLE] = 1
    row[PLAYER] = row[ROUND]


@kernel
def new_game(row, red, white):
    """Round 1 with the given flower bit sets (the ``CONFIG`` column is kept)."""
    row[:CONFIG] = 0
    row[RED] = red
    row[WHITE] = white
    start_round(row)


@jit
def draw_flowers(row):
    """Variant of M2: 4 red and 4 white flowers on 8 distinct random non-centre spaces."""
    spaces = np.empty(NUM_SPACES - 1, dtype=np.int64)
    k = 0
    for s in range(NUM_SPACES):
        if s != CENTRE:
            spaces[k] = s
            k += 1
    red = np.int64(0)
    white = np.int64(0)
    for i in range(8):  # partial Fisher-Yates shuffle
        j = np.random.randint(i, NUM_SPACES - 1)
        spaces[i], spaces[j] = spaces[j], spaces[i]
        if i < 4:
            red |= np.int64(1) << spaces[i]
        else:
            white |= np.int64(1) << spaces[i]
    new_game(row, red, white)


@kernel
def step_open(row, p, i):
    """Whether the ``i``-th king step from ``p`` is free of rods (M6)."""
    r0, r1 = row[RODS], row[RODS + 1]
    return (
        (r0 & STEP_PATHS[p, i, 0, 0]) == 0
        and (r1 & STEP_PATHS[p, i, 0, 1]) == 0
        or ((r0 & STEP_PATHS[p, i, 1, 0]) == 0 and (r1 & STEP_PATHS[p, i, 1, 1]) == 0)
    )


@kernel
def destinations(row, out):
    """Spaces the mole may go to next (as the position stands); returns their count."""
    n = row[LENGTH]
    if n == 0:
        for s in range(NUM_SPACES):
            out[s] = s
        return NUM_SPACES
    if n >= MOLE_PIECES or row[PLAYER] < 0:
        return 0
    pos = row[TRAIL + n - 1]
    visited = row[VISITED]
    k = 0
    if pos == CENTRE:  # M7: jump anywhere unvisited
        for s in range(NUM_SPACES):
            if (visited >> s) & 1 == 0:
                out[k] = s
                k += 1
        return k
    for i in range(STEP_COUNT[pos]):
        q = STEP_TARGET[pos, i]
        if (visited >> q) & 1 == 0 and step_open(row, pos, i):
            out[k] = q
            k += 1
    return k


@kernel
def mole_can_move(row):
    """M8: the mole has a move (fewer than 22 pieces left behind and a free step)."""
    n = row[LENGTH]
    if n == 0:
        return True
    if n >= MOLE_PIECES:
        return False
    pos = row[TRAIL + n - 1]
    if pos == CENTRE:
        return True
    visited = row[VISITED]
    for i in range(STEP_COUNT[pos]):
        if (visited >> STEP_TARGET[pos, i]) & 1 == 0 and step_open(row, pos, i):
            return True
    return False


@kernel
def rod_placed(row, edge):
    """Whether ``edge`` holds a rod."""
    return (row[RODS + edge // 64] >> (edge % 64)) & 1 == 1


@kernel
def is_legal(row, action):
    """Whether ``action`` is legal for the player to move."""
    if row[PLAYER] < 0 or action < 0 or action >= NUM_ACTIONS:
        return False
    if row[MOLE] == 1:
        if action >= NUM_SPACES:
            return False
        n = row[LENGTH]
        if n == 0:
            return True
        pos = row[TRAIL + n - 1]
        if (row[VISITED] >> action) & 1 == 1:
            return False
        if pos == CENTRE:
            return True
        for i in range(STEP_COUNT[pos]):
            if STEP_TARGET[pos, i] == action:
                return step_open(row, pos, i)
        return False
    return action >= NUM_SPACES and not rod_placed(row, action - NUM_SPACES)


@kernel
def legal_actions(row, out):
    """Legal actions of the player to move, ascending, into ``out``; returns the count."""
    if row[PLAYER] < 0:
        return 0
    if row[MOLE] == 1:
        return destinations(row, out)
    k = 0
    for e in range(NUM_EDGES):
        if not rod_placed(row, e):
            out[k] = NUM_SPACES + e
            k += 1
    return k


@kernel
def round_score(row):
    """M9 for the round in progress."""
    visited = row[VISITED]
    return (
        max(0, row[LENGTH] - LIGHT_PIECES)
        + popcount(visited & row[WHITE])
        + 2 * popcount(visited & row[RED])
    )


@kernel
def score_of(row, seat):
    """Mole score of ``seat``: its finished round, the live one, or 0 before its round."""
    if row[PLAYER] >= 0 and seat == row[ROUND]:
        return round_score(row)
    if seat < row[ROUND] or row[PLAYER] < 0:
        return row[SCORES + seat]
    return 0


@kernel
def end_round(row):
    """M8/M10: score the round; start round 2 or end the game."""
    row[SCORES + row[ROUND]] = round_score(row)
    if row[ROUND] == 0:
        row[ROUND] = 1
        start_round(row)
    else:
        row[PLAYER] = -1


@kernel
def apply_action(row, action):
    """Play a legal ``action`` (check with :func:`is_legal` first)."""
    if row[MOLE] == 1:
        n = row[LENGTH]
        row[TRAIL + n] = action
        row[LENGTH] = n + 1
        row[VISITED] |= np.int64(1) << action
        if n + 1 >= MOLE_PIECES:
            end_round(row)
            return
        row[MOLE] = 0
        row[PLAYER] = 1 - row[ROUND]
    else:
        edge = action - NUM_SPACES
        row[RODS + edge // 64] |= np.int64(1) << (edge % 64)
        row[ROD_ORDER + row[NUM_RODS]] = edge
        row[NUM_RODS] += 1
        if not mole_can_move(row):
            end_round(row)
            return
        row[MOLE] = 1
        row[PLAYER] = row[ROUND]


@kernel
def random_action(row, buffer):
    """A uniformly random legal action (the game must not be over)."""
    if row[MOLE] == 1:
        k = destinations(row, buffer)
        return buffer[np.random.randint(0, k)]
    while True:  # rejection sampling over the free edges: uniform among them
        edge = np.random.randint(0, NUM_EDGES)
        if not rod_placed(row, edge):
            return NUM_SPACES + edge


@kernel
def destination_mask(row):
    """Bit set of :func:`destinations` (no buffer)."""
    n = row[LENGTH]
    if n == 0:
        return ALL_SPACES
    if n >= MOLE_PIECES or row[PLAYER] < 0:
        return np.int64(0)
    pos = row[TRAIL + n - 1]
    visited = row[VISITED]
    if pos == CENTRE:
        return ALL_SPACES & ~visited
    mask = np.int64(0)
    for i in range(STEP_COUNT[pos]):
        q = STEP_TARGET[pos, i]
        if (visited >> q) & 1 == 0 and step_open(row, pos, i):
            mask |= np.int64(1) << q
    return mask


@kernel
def encode(row, seat, obs):
    """Observation planes of ``row`` for ``seat`` into ``obs``, a ``(63, 16)`` view of the
    env's (7, 9, 16) planes: one pass over the spaces, 16 contiguous values each."""
    n = row[LENGTH]
    playing = row[PLAYER] >= 0
    dest = destination_mask(row)
    mole = row[TRAIL + n - 1] if n > 0 else -1
    i_am_mole = 1.0 if seat == row[ROUND] else 0.0
    mole_to_move = 1.0 if playing and row[MOLE] == 1 else 0.0
    round_plane = float(row[ROUND])
    my_score = score_of(row, seat) / MAX_ROUND_SCORE
    opponent_score = score_of(row, 1 - seat) / MAX_ROUND_SCORE
    pieces_left = (MOLE_PIECES - n) / MOLE_PIECES
    jump = 1.0 if playing and mole == CENTRE else 0.0
    visited, red, white = row[VISITED], row[RED], row[WHITE]
    rods0, rods1 = row[RODS], row[RODS + 1]
    for s in range(NUM_SPACES):
        cell = obs[s]
        cell[P_VISITED] = (visited >> s) & 1
        cell[P_ORDER] = 0.0
        cell[P_MOLE] = 1.0 if s == mole else 0.0
        right, below = RIGHT_EDGE[s], BELOW_EDGE[s]
        cell[P_ROD_RIGHT] = 0.0 if right < 0 else (rods0 >> right) & 1  # right edges < 64
        if below < 0:
            cell[P_ROD_BELOW] = 0.0
        elif below < 64:
            cell[P_ROD_BELOW] = (rods0 >> below) & 1
        else:
            cell[P_ROD_BELOW] = (rods1 >> (below - 64)) & 1
        cell[P_RED] = (red >> s) & 1
        cell[P_WHITE] = (white >> s) & 1
        cell[P_CENTRE] = 1.0 if s == CENTRE else 0.0
        cell[P_DEST] = (dest >> s) & 1
        cell[P_I_AM_MOLE] = i_am_mole
        cell[P_MOLE_TO_MOVE] = mole_to_move
        cell[P_ROUND] = round_plane
        cell[P_MY_SCORE] = my_score
        cell[P_OPP_SCORE] = opponent_score
        cell[P_PIECES_LEFT] = pieces_left
        cell[P_JUMP] = jump
    for k in range(n):
        obs[row[TRAIL + k], P_ORDER] = (k + 1) / MOLE_PIECES


@kernel
def greedy_action(row, buffer, scratch):
    """The greedy agent's action: best (result if the game ends, score margin) one ply
    deep; ties uniformly at random (reservoir sampling)."""
    player = row[PLAYER]
    count = legal_actions(row, buffer)
    best_result, best_margin, ties, choice = -2.0, -1000, 0, buffer[0]
    for j in range(count):
        copy_into(scratch, row)
        apply_action(scratch, buffer[j])
        margin = score_of(scratch, player) - score_of(scratch, 1 - player)
        result = 0.0
        if scratch[PLAYER] < 0:
            result = 1.0 if margin > 0 else -1.0 if margin < 0 else 0.0
        if result > best_result or (result == best_result and margin > best_margin):
            best_result, best_margin, ties, choice = result, margin, 1, buffer[j]
        elif result == best_result and margin == best_margin:
            ties += 1
            if np.random.randint(0, ties) == 0:
                choice = buffer[j]
    return choice
