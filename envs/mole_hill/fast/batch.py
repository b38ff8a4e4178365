"""Batched loops over compiled Mole Hill rows: step with autoreset, legal masks,
observation planes, compiled random / greedy opponents and the random-play driver.

``red`` / ``white`` are the printed flower bit sets used when a game restarts without the
random-flowers variant. Used by :class:`tabletop_zoo.envs.mole_hill.fast.engine.FastMoleHill`.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.fast_common import jit, numba
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
def step(states, actions, active, autoreset, random_flowers, red, white, rewards, done, scores):
    """Apply one legal action per active game; score and (optionally) restart the
    games that end."""
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
def play_opponents(states, seats, active, greedy, rewards, done, scores):
    """Random or greedy decisions until seat ``seats[i]`` is to move or the game ends."""
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
def seed(value):
    """Seed the compiled random generator (this thread)."""
    np.random.seed(value)


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
