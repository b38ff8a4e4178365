"""Batched loops over compiled Arktia rows: step with autoreset and truncation, legal
masks, and the random-play driver (single-threaded and over two threads).

``tables`` is ``(neighbours, rays, params, shapes)`` as built by
:class:`tabletop_zoo.envs.arktia.fast.engine.FastArktia`.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia.fast import kernels as K
from tabletop_zoo.envs.fast_common import jit, numba


@jit
def first_illegal(states, actions, active):
    """Index of the first active game whose action is not legal, -1 if all are."""
    for i in range(states.shape[0]):
        if active[i] and not K.is_legal(states[i], actions[i]):
            return i
    return -1


@jit
def legal_mask(states, mask):
    """Set ``mask[i, a]`` for the legal actions ``a`` of every game ``i``."""
    for i in range(states.shape[0]):
        row = states[i]
        for j in range(row[K.LEGAL_COUNT]):
            mask[i, row[K.LEGAL + j]] = True


@jit
def win_rewards(row, n, out):
    """R22 from the scores as they stand: +1 sole top, 0 tied top, -1 others."""
    best = -1
    tied = 0
    for s in range(n):
        score = K.score(row, s)
        if score > best:
            best, tied = score, 1
        elif score == best:
            tied += 1
    for s in range(n):
        if K.score(row, s) == best:
            out[s] = 1.0 if tied == 1 else 0.0
        else:
            out[s] = -1.0


@jit
def record_end(row, i, n, max_turns, rewards, done, cut, scores):
    """If the game in ``row`` is over or has reached ``max_turns``, record game ``i``'s
    flags, scores and R22 rewards and return True; else change nothing and return False."""
    over = row[K.CUR] < 0
    if not over and row[K.TURN] < max_turns:
        return False
    done[i] = over
    cut[i] = not over
    for s in range(n):
        scores[i, s] = K.score(row, s)
    win_rewards(row, n, rewards[i])
    return True


@jit
def step_batch(
    states, actions, active, autoreset, max_turns, initial, tables, rewards, done, cut, scores
):
    """Apply one legal action per active game; score and (optionally) restart finished
    games."""
    nbr, rays, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    for i in range(states.shape[0]):
        if not active[i]:
            continue
        row = states[i]
        K.apply_action(row, actions[i], nbr, rays, prm, shapes)
        if record_end(row, i, n, max_turns, rewards, done, cut, scores) and autoreset:
            row[:] = initial


@jit
def play_row(row, num_steps, max_turns, initial, nbr, rays, prm, shapes):
    """``num_steps`` uniform random decisions on one row; returns the games finished."""
    games = 0
    for _ in range(num_steps):
        action = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]
        K.apply_action(row, action, nbr, rays, prm, shapes)
        if row[K.CUR] < 0 or row[K.TURN] >= max_turns:
            games += 1
            row[:] = initial
    return games


@jit
def random_play(states, num_steps, seed, max_turns, initial, tables):
    """Random play on every row (one thread, repeatable for a seed); games finished."""
    np.random.seed(seed)
    nbr, rays, prm, shapes = tables
    games = 0
    for i in range(states.shape[0]):
        games += play_row(states[i], num_steps, max_turns, initial, nbr, rays, prm, shapes)
    return games


@numba.njit(cache=True, parallel=True)
def random_play_parallel(states, num_steps, seed, max_turns, initial, tables):
    """:func:`random_play` with the rows spread over numba's threads (not repeatable)."""
    np.random.seed(seed)
    nbr, rays, prm, shapes = tables
    games = np.zeros(states.shape[0], dtype=np.int64)
    for i in numba.prange(states.shape[0]):
        games[i] = play_row(states[i], num_steps, max_turns, initial, nbr, rays, prm, shapes)
    return games.sum()


@jit
def seed(value):
    """Seed the compiled code's random generator (this thread)."""
    np.random.seed(value)


@jit
def random_actions(states, active, out):
    """A uniformly random legal action for every active game that is not over."""
    for i in range(states.shape[0]):
        row = states[i]
        if active[i] and row[K.CUR] >= 0:
            out[i] = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]


@jit
def greedy_action(row, scratch, tables):
    """The greedy agent's action: best (result if the game ends, score margin) one ply
    deep; ties uniformly at random (reservoir sampling)."""
    nbr, rays, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    player = row[K.CUR]
    count = row[K.LEGAL_COUNT]
    best_result, best_margin, ties, choice = -2.0, -(10**9), 0, row[K.LEGAL]
    results = np.zeros(n, dtype=np.float32)
    for j in range(count):
        action = row[K.LEGAL + j]
        scratch[: K.LEGAL] = row[: K.LEGAL]
        K.apply_action(scratch, action, nbr, rays, prm, shapes)
        other = -(10**9)
        for s in range(n):
            if s != player:
                other = max(other, K.score(scratch, s))
        margin = K.score(scratch, player) - other
        result = 0.0
        if scratch[K.CUR] < 0:
            win_rewards(scratch, n, results)
            result = results[player]
        if result > best_result or (result == best_result and margin > best_margin):
            best_result, best_margin, ties, choice = result, margin, 1, action
        elif result == best_result and margin == best_margin:
            ties += 1
            if np.random.randint(0, ties) == 0:
                choice = action
    return choice


@jit
def greedy_actions(states, active, tables, out):
    """:func:`greedy_action` for every active game that is not over."""
    scratch = np.empty(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        if active[i] and states[i, K.CUR] >= 0:
            out[i] = greedy_action(states[i], scratch, tables)


@jit
def play_opponents(states, seats, active, greedy, max_turns, tables, rewards, done, cut, scores):
    """Random or greedy decisions in every active game until seat ``seats[i]`` is to act,
    the game ends or it reaches ``max_turns`` (scored, not restarted)."""
    nbr, rays, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    scratch = np.empty(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        row = states[i]
        while active[i] and row[K.CUR] >= 0 and row[K.CUR] != seats[i]:
            if greedy:
                action = greedy_action(row, scratch, tables)
            else:
                action = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]
            K.apply_action(row, action, nbr, rays, prm, shapes)
            if record_end(row, i, n, max_turns, rewards, done, cut, scores):
                break
