"""Batched loops over compiled Arktia rows: step with autoreset and truncation, legal
masks, and the random-play driver (single-threaded and over two threads).

``tables`` is ``(neighbours, lines, params, shapes)`` as built by
:class:`tabletop_zoo.envs.arktia.fast.engine.FastArktia`.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia.fast import kernels as K
from tabletop_zoo.envs.compiled.common import copy_into, jit, lowest_bit, numba, popcount


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
def step(
    states, actions, active, autoreset, max_turns, initial, tables, rewards, done, cut, scores
):
    """Apply one legal action per active game; score and (optionally) restart finished
    games."""
    nbr, lines, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    for i in range(states.shape[0]):
        if not active[i]:
            continue
        row = states[i]
        K.apply_action(row, actions[i], nbr, lines, prm, shapes)
        if record_end(row, i, n, max_turns, rewards, done, cut, scores) and autoreset:
            copy_into(row, initial)


@jit
def play_row(row, num_steps, max_turns, initial, nbr, lines, prm, shapes):
    """``num_steps`` uniform random decisions on one row; returns the games finished."""
    games = 0
    for _ in range(num_steps):
        action = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]
        K.apply_action(row, action, nbr, lines, prm, shapes)
        if row[K.CUR] < 0 or row[K.TURN] >= max_turns:
            games += 1
            copy_into(row, initial)
    return games


@jit
def random_play(states, num_steps, seed, max_turns, initial, tables):
    """Random play on every row (one thread, repeatable for a seed); games finished."""
    np.random.seed(seed)
    nbr, lines, prm, shapes = tables
    games = 0
    for i in range(states.shape[0]):
        games += play_row(states[i], num_steps, max_turns, initial, nbr, lines, prm, shapes)
    return games


@numba.njit(cache=True, parallel=True)
def random_play_parallel(states, num_steps, seed, max_turns, initial, tables):
    """:func:`random_play` with the rows spread over numba's threads (not repeatable)."""
    np.random.seed(seed)
    nbr, lines, prm, shapes = tables
    games = np.zeros(states.shape[0], dtype=np.int64)
    for i in numba.prange(states.shape[0]):
        games[i] = play_row(states[i], num_steps, max_turns, initial, nbr, lines, prm, shapes)
    return games.sum()


@jit
def random_actions(states, active, out):
    """A uniformly random legal action for every active game that is not over."""
    for i in range(states.shape[0]):
        row = states[i]
        if active[i] and row[K.CUR] >= 0:
            out[i] = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]


@jit
def greedy_value(row, action, scratch, results, tables):
    """How the greedy rule ranks ``action`` in ``row``: (result for the player to act if
    the game then ends, else 0; its score margin over the best other seat), one ply deep.
    ``scratch`` (a row) and ``results`` (one float32 per seat) are working space."""
    nbr, lines, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    player = row[K.CUR]
    copy_into(scratch, row[: K.LEGAL])
    K.apply_action(scratch, action, nbr, lines, prm, shapes)
    other = -(10**9)
    for s in range(n):
        if s != player:
            other = max(other, K.score(scratch, s))
    margin = K.score(scratch, player) - other
    result = 0.0
    if scratch[K.CUR] < 0:
        win_rewards(scratch, n, results)
        result = results[player]
    return result, margin


@jit
def greedy_action(row, scratch, tables):
    """The greedy agent's action: best (result if the game ends, score margin) one ply
    deep; ties uniformly at random (reservoir sampling)."""
    n = tables[2][K.P_PLAYERS]  # tables: (neighbours, lines, params, shapes)
    count = row[K.LEGAL_COUNT]
    best_result, best_margin, ties, choice = -2.0, -(10**9), 0, row[K.LEGAL]
    results = np.zeros(n, dtype=np.float32)
    for j in range(count):
        action = row[K.LEGAL + j]
        result, margin = greedy_value(row, action, scratch, results, tables)
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
    nbr, lines, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    scratch = np.empty(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        row = states[i]
        while active[i] and row[K.CUR] >= 0 and row[K.CUR] != seats[i]:
            if greedy:
                action = greedy_action(row, scratch, tables)
            else:
                action = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]
            K.apply_action(row, action, nbr, lines, prm, shapes)
            if record_end(row, i, n, max_turns, rewards, done, cut, scores):
                break


#: What :func:`check_row` found wrong, by the code it returns (0: nothing).
ROW_PROBLEMS = (
    "",
    "was made by another engine configuration (CONFIG column)",
    "ROUND, SUB, MUST_MELT, CUR or TURN out of range",
    "tile sets must be tiles of the layout (ALIVE connected, OCC alive, CMASK occupied)",
    "stacks must be 0..3 pieces of this game's colours in a legal shape on alive tiles, "
    "-1 above, matching OCC and CMASK",
    "reserves, pieces on the board and lost pieces must add up to each colour's material",
    "REMOVED, MELTED and ENDED must be in range and add up (removed = lost, melted = holes)",
    "each colour's tiles must be connected (except the tied groups of a pending choice)",
    "the pending group choices must be tied groups of other colours than the mover's",
    "the legal list must hold the legal actions of the position (LEGAL_COUNT, LEGAL)",
)


@jit
def check_row(row, config, max_legal, num_neutral, tables, scratch, counts):
    """0 if every kernel can use ``row`` (a position of this configuration), else the
    code of the first problem (:data:`ROW_PROBLEMS`). ``scratch``: a row-wide buffer
    (the legal list is recomputed there); ``counts``: 5 int64. Every index taken from the
    row is checked before it is used."""
    nbr, lines, prm, shapes = tables
    n = prm[K.P_PLAYERS]
    if row[K.CONFIG] != config:
        return 1
    rnd, sub, cur = row[K.ROUND], row[K.SUB], row[K.CUR]
    if rnd < K.SETUP or rnd > K.NORMAL or sub < K.NO_SUB or sub > K.MELT_SUB:
        return 2
    if row[K.MUST_MELT] < 0 or row[K.MUST_MELT] > 1 or cur < -1 or cur >= n or row[K.TURN] < 0:
        return 2
    if cur == -1 and (sub != K.NO_SUB or row[K.LEGAL_COUNT] != 0):
        return 2
    code = _check_tiles(row, n, num_neutral, prm[K.P_ALL], nbr, counts)
    if code == 0:
        code = _check_stacks(row, n, num_neutral, shapes, counts)
    if code == 0:
        code = _check_material(row, n, num_neutral, prm[K.P_TILES], counts)
    if code == 0:
        code = _check_pending(row, cur, sub, nbr)
    if code == 0:
        code = _check_legal(row, cur, sub, max_legal, tables, scratch)
    return code


@jit
def _check_tiles(row, n, num_neutral, every, nbr, counts):
    """Code 3 of :func:`check_row` (the tile sets); zeroes ``counts``."""
    alive, occ = row[K.ALIVE], row[K.OCC]
    if alive == 0 or alive & ~every != 0 or occ & ~alive != 0:
        return 3
    if K.component_of(lowest_bit(alive), alive, nbr) != alive:
        return 3
    union = np.int64(0)
    for c in range(5):
        m = row[K.CMASK + c]
        absent = (c < K.NEUTRAL and c >= n) or (c == K.NEUTRAL and num_neutral == 0)
        if m & ~occ != 0 or (absent and m != 0):
            return 3
        union |= m
        counts[c] = 0
    return 3 if union != occ else 0


@jit
def _check_stacks(row, n, num_neutral, shapes, counts):
    """Code 4 of :func:`check_row` (the stacks); counts each colour's pieces in ``counts``."""
    occ = row[K.OCC]
    for t in range(K.MAX_TILES):
        h = row[K.HEIGHT + t]
        base = K.PIECES + 3 * t
        if (occ >> t) & 1 == 0:  # CMASK is within OCC: only the empty stack to check
            if h != 0 or row[base] != -1 or row[base + 1] != -1 or row[base + 2] != -1:
                return 4
            continue
        if h < 1 or h > 3:
            return 4
        colours = 0
        for level in range(3):
            piece = row[K.PIECES + 3 * t + level]
            if level >= h:
                if piece != -1:
                    return 4
                continue
            if piece < 0 or piece >= 15:
                return 4
            c = piece // 3
            if (c < K.NEUTRAL and c >= n) or (c == K.NEUTRAL and num_neutral == 0):
                return 4
            colours |= 1 << c
            counts[c] += 1
        if h > 0 and not shapes[K.kinds_code(row, t, 0, h)]:
            return 4
        for c in range(5):
            if ((row[K.CMASK + c] >> t) & 1 == 1) != ((colours >> c) & 1 == 1):
                return 4
    return 0


@jit
def _check_material(row, n, num_neutral, n_tiles, counts):
    """Codes 5 and 6 of :func:`check_row`: reserves, lost, removed and melted pieces."""
    neutral_per_kind = 1 if num_neutral > 0 else 0
    neutral_left = 0
    lost_total = 0
    for s in range(4):
        reserve = 0
        for kind in range(3):
            own, neutral = row[K.RESERVE + 3 * s + kind], row[K.NEUTRAL_RESERVE + 3 * s + kind]
            top_own, top_neutral = (3, neutral_per_kind) if s < n else (0, 0)
            if own < 0 or own > top_own or neutral < 0 or neutral > top_neutral:
                return 5
            reserve += own
            neutral_left += neutral
        lost = row[K.LOST + s]
        if lost < 0 or counts[s] + reserve + lost != (9 if s < n else 0):
            return 5
        lost_total += lost
    lost = row[K.LOST + K.NEUTRAL]
    if lost < 0 or counts[K.NEUTRAL] + neutral_left + lost != num_neutral:
        return 5
    lost_total += lost
    removed_total = 0
    melted_total = 0
    for s in range(4):
        removed, melted, ended = row[K.REMOVED + s], row[K.MELTED + s], row[K.ENDED + s]
        if s >= n and (removed != 0 or melted != 0 or ended != 0):
            return 6
        if removed < 0 or melted < 0 or melted > n_tiles or ended < 0 or ended > 1:
            return 6
        removed_total += removed
        melted_total += melted
    if removed_total != lost_total or melted_total != n_tiles - popcount(row[K.ALIVE]):
        return 6
    return 0


@jit
def _check_pending(row, cur, sub, nbr):
    """Codes 8 and 7 of :func:`check_row`: the pending group choices, then connectivity."""
    count = row[K.PENDING_COUNT]
    if count < 0 or count > K.MAX_PENDING or (count > 0) != (sub == K.CHOOSE):
        return 8
    pending = 0
    for e in range(K.MAX_PENDING):
        colour, size = row[K.PENDING_COLOUR + e], row[K.PENDING_SIZE + e]
        slot = K.PENDING_GROUPS + e * K.MAX_GROUPS
        if e >= count:
            if colour != 0 or size != 0:
                return 8
            for i in range(K.MAX_GROUPS):
                if row[slot + i] != 0:
                    return 8
            continue
        if colour < 0 or colour > K.NEUTRAL or colour == cur or (pending >> colour) & 1 == 1:
            return 8
        if size < 2 or size > K.MAX_GROUPS:
            return 8
        m = row[K.CMASK + colour]
        groups = np.int64(0)
        for i in range(K.MAX_GROUPS):
            group = row[slot + i]
            if i >= size:
                if group != 0:
                    return 8
                continue
            if group == 0 or group & groups != 0 or group & ~m != 0:
                return 8
            if K.component_of(lowest_bit(group), m, nbr) != group:
                return 8
            groups |= group
        if groups != m:
            return 8
        pending |= 1 << colour
    for c in range(5):
        m = row[K.CMASK + c]
        if (pending >> c) & 1 == 0 and m != 0 and K.component_of(lowest_bit(m), m, nbr) != m:
            return 7
    return 0


@jit
def _check_legal(row, cur, sub, max_legal, tables, scratch):
    """Code 9 of :func:`check_row`: the legal list, recomputed in ``scratch``."""
    nbr, lines, prm, shapes = tables
    k = row[K.LEGAL_COUNT]
    if k < 0 or k > max_legal or (cur >= 0 and k == 0):
        return 9
    if cur < 0:
        return 0
    copy_into(scratch, row[: K.LEGAL])
    if sub == K.NO_SUB:
        K.turn_actions(scratch, nbr, lines, prm, shapes)
    elif sub == K.MELT_SUB:
        K.melt_actions(scratch, nbr, prm)
    else:
        K.keep_actions(scratch, prm)
    if scratch[K.LEGAL_COUNT] != k:
        return 9
    for j in range(k):
        if scratch[K.LEGAL + j] != row[K.LEGAL + j]:
            return 9
    return 0


@jit
def check_rows(states, config, max_legal, num_neutral, tables):
    """(index, code) of the first row :func:`check_row` refuses; (-1, 0) if none."""
    scratch = np.empty(states.shape[1], dtype=np.int64)
    counts = np.zeros(5, dtype=np.int64)
    for i in range(states.shape[0]):
        code = check_row(states[i], config, max_legal, num_neutral, tables, scratch, counts)
        if code != 0:
            return i, code
    return -1, 0
