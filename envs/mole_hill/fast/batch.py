"""Batched loops over compiled Mole Hill rows: step with autoreset, legal masks,
observation planes, compiled random / greedy opponents and the random-play driver.

``red`` / ``white`` are the printed flower bit sets used when a game restarts without the
random-flowers variant. Used by :class:`tabletop_zoo.envs.mole_hill.fast.engine.FastMoleHill`.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.compiled.common import jit, numba, popcount
from tabletop_zoo.envs.mole_hill.fast import kernels as K


@jit
def reset(row, random_flowers, red, white):
    """Start a new game in ``row`` (random flowers drawn, or the printed ones)."""
    if random_flowers:
        K.draw_flowers(row)
    else:
        K.new_game(row, red, white)


@jit
def first_illegal(states, actions, active):
    """Index of the first active game whose action is not legal, -1 if all are."""
    for i in range(states.shape[0]):
        if active[i] and not K.is_legal(states[i], actions[i]):
            return i
    return -1


@jit
def record_end(row, i, rewards, done, scores):
    """If the game in ``row`` is over, record game ``i``'s flag, scores and +1/-1/0
    rewards and return True; else change nothing and return False."""
    if row[K.PLAYER] >= 0:
        return False
    s0, s1 = row[K.SCORES], row[K.SCORES + 1]
    done[i] = True
    scores[i, 0], scores[i, 1] = s0, s1
    rewards[i, 0] = 1.0 if s0 > s1 else -1.0 if s0 < s1 else 0.0
    rewards[i, 1] = -rewards[i, 0]
    return True


@jit
def step(
    states, actions, active, autoreset, random_flowers, red, white, rewards, done, cut, scores
):
    """Apply one legal action per active game; score and (optionally) restart the
    games that end (``cut`` stays False: the rules end every game)."""
    for i in range(states.shape[0]):
        if not active[i]:
            continue
        row = states[i]
        K.apply_action(row, actions[i])
        if record_end(row, i, rewards, done, scores) and autoreset:
            reset(row, random_flowers, red, white)


@jit
def random_actions(states, active, out):
    """A uniformly random legal action for every active game that is not over."""
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    for i in range(states.shape[0]):
        if active[i] and states[i, K.PLAYER] >= 0:
            out[i] = K.random_action(states[i], buffer)


@jit
def greedy_actions(states, active, out):
    """The greedy rule's action for every active game that is not over."""
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    scratch = np.empty(K.WIDTH, dtype=np.int64)
    for i in range(states.shape[0]):
        if active[i] and states[i, K.PLAYER] >= 0:
            out[i] = K.greedy_action(states[i], buffer, scratch)


@jit
def play_opponents(states, seats, active, greedy, rewards, done, cut, scores):
    """Random or greedy decisions until seat ``seats[i]`` is to move or the game ends
    (``cut`` stays False)."""
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    scratch = np.empty(K.WIDTH, dtype=np.int64)
    for i in range(states.shape[0]):
        row = states[i]
        while active[i] and row[K.PLAYER] >= 0 and row[K.PLAYER] != seats[i]:
            if greedy:
                action = K.greedy_action(row, buffer, scratch)
            else:
                action = K.random_action(row, buffer)
            K.apply_action(row, action)
            record_end(row, i, rewards, done, scores)


@jit
def legal_mask(states, mask):
    """Set ``mask[i, a]`` for the legal actions ``a`` of every game ``i``."""
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    for i in range(states.shape[0]):
        row = states[i]
        if row[K.PLAYER] >= 0 and row[K.MOLE] == 0:  # gardener: every free edge
            for e in range(K.NUM_EDGES):
                mask[i, K.NUM_SPACES + e] = not K.rod_placed(row, e)
            continue
        for j in range(K.legal_actions(row, buffer)):
            mask[i, buffer[j]] = True


@jit
def observe(states, seats, obs):
    """Planes of every game into ``obs`` (B, 63, 16), game ``i`` seen by ``seats[i]``."""
    for i in range(states.shape[0]):
        K.encode(states[i], seats[i], obs[i])  # obs: (B, 63, 16)


@jit
def new_states(states, seed, random_flowers, red, white):
    """Start a new game in every row (``seed`` >= 0 seeds the generator first)."""
    if seed >= 0:
        np.random.seed(seed)
    for i in range(states.shape[0]):
        reset(states[i], random_flowers, red, white)


@jit
def play_row(row, num_steps, random_flowers, red, white, buffer):
    """``num_steps`` uniform random actions on one row; returns the games finished."""
    games = 0
    for _ in range(num_steps):
        K.apply_action(row, K.random_action(row, buffer))
        if row[K.PLAYER] < 0:
            games += 1
            reset(row, random_flowers, red, white)
    return games


@jit
def random_play(states, num_steps, seed, random_flowers, red, white):
    """Random play on every row (one thread, repeatable for a seed); games finished."""
    np.random.seed(seed)
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    games = 0
    for i in range(states.shape[0]):
        games += play_row(states[i], num_steps, random_flowers, red, white, buffer)
    return games


@numba.njit(cache=True, parallel=True)
def random_play_parallel(states, num_steps, seed, random_flowers, red, white):
    """``random_play`` with the rows spread over numba's threads (not repeatable)."""
    np.random.seed(seed)  # seeds the calling thread only: parallel runs are not repeatable
    games = np.zeros(states.shape[0], dtype=np.int64)
    for i in numba.prange(states.shape[0]):
        buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
        games[i] = play_row(states[i], num_steps, random_flowers, red, white, buffer)
    return games.sum()


#: What :func:`check_rows` found wrong, by the code it returns (0: nothing).
ROW_PROBLEMS = (
    "",
    "was made by another engine configuration (CONFIG column)",
    "round (column ROUND) must be 0 or 1",
    "MOLE must be 0 or 1 and PLAYER -1, 0 or 1, the seat the round and the mover give",
    "flowers must be 4 red and 4 white spaces of the board, not the centre, not shared",
    "flowers differ from this engine's printed ones (random_flowers=False)",
    "LENGTH must be 0..21 (0..22 once the game is over)",
    "NUM_RODS must be 0..21 (0..22 once the game is over)",
    "the trail must list LENGTH distinct spaces 0..62 matching VISITED, zeros after",
    "the rods must list NUM_RODS distinct edges 0..109 matching RODS, zeros after",
    "round scores must be 0..24 for the finished rounds and 0 for the others",
    "the mole is to move but has no move (the round should have ended)",
)


@jit
def check_row(row, config, random_flowers, red, white):
    """0 if every kernel can use ``row`` (a ``(WIDTH,)`` int64 row), else the code of the
    first problem (:data:`ROW_PROBLEMS`). Reads only; every index it uses is checked
    before it is used."""
    if row[K.CONFIG] != config:
        return 1
    rnd, mole, player = row[K.ROUND], row[K.MOLE], row[K.PLAYER]
    if rnd != 0 and rnd != 1:
        return 2
    if mole != 0 and mole != 1:
        return 3
    if player >= 0 and player != (rnd if mole == 1 else 1 - rnd):
        return 3
    if player < -1 or (player == -1 and rnd != 1):
        return 3
    r, w = row[K.RED], row[K.WHITE]
    outside = ~K.ALL_SPACES | (np.int64(1) << K.CENTRE)
    if (r | w) & outside != 0 or r & w != 0 or popcount(r) != 4 or popcount(w) != 4:
        return 4
    if not random_flowers and (r != red or w != white):
        return 5
    n = row[K.LENGTH]
    if n < 0 or n > K.MOLE_PIECES or (n == K.MOLE_PIECES and player >= 0):
        return 6
    rods = row[K.NUM_RODS]
    if rods < 0 or rods > K.MOLE_PIECES or (rods == K.MOLE_PIECES and player >= 0):
        return 7
    visited = np.int64(0)
    for k in range(K.MOLE_PIECES):
        space = row[K.TRAIL + k]
        if k >= n:
            if space != 0:
                return 8
            continue
        if space < 0 or space >= K.NUM_SPACES or (visited >> space) & 1 == 1:
            return 8
        visited |= np.int64(1) << space
    if visited != row[K.VISITED]:
        return 8
    words = np.zeros(2, dtype=np.int64)  # the RODS bit set: edges 0..63, then 64..109
    for k in range(K.MOLE_PIECES):
        edge = row[K.ROD_ORDER + k]
        if k >= rods:
            if edge != 0:
                return 9
            continue
        if edge < 0 or edge >= K.NUM_EDGES:
            return 9
        word, bit = edge // 64, edge % 64
        if (words[word] >> bit) & 1 == 1:
            return 9
        words[word] |= np.int64(1) << bit
    if words[0] != row[K.RODS] or words[1] != row[K.RODS + 1]:
        return 9
    for seat in range(2):
        finished = seat < rnd or player < 0
        value = row[K.SCORES + seat]
        if (finished and (value < 0 or value > K.MAX_ROUND_SCORE)) or (not finished and value):
            return 10
    if player >= 0 and mole == 1 and not K.mole_can_move(row):
        return 11
    return 0


@jit
def check_rows(states, config, random_flowers, red, white):
    """(index, code) of the first row :func:`check_row` refuses; (-1, 0) if none."""
    for i in range(states.shape[0]):
        code = check_row(states[i], config, random_flowers, red, white)
        if code != 0:
            return i, code
    return -1, 0
