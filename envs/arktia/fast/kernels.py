"""Compiled Arktia rules (numba): one game is one ``int64`` row; rulings R1-R23.

A transcription of :mod:`tabletop_zoo.envs.arktia` onto arrays, kept in the same order
(turn actions, moves, removals, group choice, melting, end of turn) so the two can be
read side by side; ``tests/envs/test_fast_arktia.py`` plays both engines together.

Every function takes the row and the layout tables ``(neighbours, lines, params, shapes)``:
``neighbours[t]`` the bit set of tile ``t``'s neighbours; ``lines[o, t]``, for a tile ``t``
on a straight line from ``o``, the bit set of ``t`` and the tiles beyond it on that line
(0 for other tiles), and ``lines[o, MAX_TILES]`` every tile on the six lines from ``o``
(:func:`line_table`); ``params`` the integers below (``P_*``); ``shapes`` the legal stacks
(:func:`stack_table`). Tile sets are ``int64`` bit sets (at most 64 tiles). A piece is
``owner * 3 + kind`` (owner 0..3 a seat, 4 neutral; kind 0 G, 1 D, 2 T).

Row layout: the scalar columns below, then per colour / seat blocks, the pending group
choices (at most 3 colours with at most 8 tied groups each), the stacks (``HEIGHT``: 64
columns, ``PIECES``: 3 per tile, bottom first, ``-1`` where empty), the fingerprint of
the engine configuration that made the row (``CONFIG``) and the legal actions of the
decision at hand (``LEGAL_COUNT``, then the list, ascending), as the Python
engine caches them.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia.constants import (
    MAX_TILES,
    NEUTRAL,
    NORMAL,
    OPENING_1,
    OPENING_2,
    SETUP,
    G,
    T,
)
from tabletop_zoo.envs.compiled.common import kernel, lowest_bit, popcount

NO_SUB, CHOOSE, MELT_SUB = 0, 1, 2
MAX_PENDING, MAX_GROUPS = 3, 8

ALIVE, OCC, CMASK = 0, 1, 2  # CMASK: 5 colours
ROUND, SUB, MUST_MELT, CUR, TURN = 7, 8, 9, 10, 11
RESERVE, NEUTRAL_RESERVE = 12, 24  # 4 seats x 3 kinds each
REMOVED, MELTED, LOST, ENDED = 36, 40, 44, 49  # LOST has 5 colours
PENDING_COUNT, PENDING_COLOUR, PENDING_SIZE, PENDING_GROUPS = 53, 54, 57, 60
HEIGHT = PENDING_GROUPS + MAX_PENDING * MAX_GROUPS
PIECES = HEIGHT + MAX_TILES
CONFIG = PIECES + 3 * MAX_TILES  # the engine configuration's fingerprint
LEGAL_COUNT = CONFIG + 1
LEGAL = LEGAL_COUNT + 1

# params
P_TILES, P_PLAYERS, P_ALL, P_MOVE, P_MELT, P_KEEP, P_STOP = range(7)


def stack_table(shapes: object) -> np.ndarray:
    """``table[code]``: the kinds sequence with this code is a legal stack (R11-R14).

    ``code`` = sum of ``(kind + 1) * 4**level``, bottom level 0.
    """
    table = np.zeros(64, dtype=np.bool_)
    for kinds in shapes:
        table[sum((k + 1) * 4**i for i, k in enumerate(kinds))] = True
    return table


def line_table(rays: object, num_tiles: int) -> np.ndarray:
    """``lines`` (see above) from a layout's ``rays[t][d]`` (the tiles met walking from
    ``t`` in direction ``d``, nearest first)."""
    table = np.zeros((num_tiles, MAX_TILES + 1), dtype=np.uint64)
    for origin, per_direction in enumerate(rays):
        for ray in per_direction:
            for i, tile in enumerate(ray):
                table[origin, tile] = sum(1 << t for t in ray[i:])
                table[origin, MAX_TILES] |= np.uint64(1 << tile)
    return table.view(np.int64)


@kernel
def bit(t):
    """The bit set of tile ``t``."""
    return np.int64(1) << t


@kernel
def closed_neighbourhood(mask, nbr):
    """``mask`` plus every tile adjacent to it."""
    out = mask
    while mask != 0:
        out |= nbr[lowest_bit(mask)]
        mask &= mask - 1
    return out


@kernel
def component_of(seed, mask, nbr):
    """The connected part of ``mask`` containing tile ``seed``."""
    comp = bit(seed)
    frontier = comp
    while frontier != 0:
        grow = closed_neighbourhood(frontier, nbr)
        frontier = grow & mask & ~comp
        comp |= frontier
    return comp


@kernel
def components(mask, nbr, out, start):
    """The connected parts of ``mask`` by lowest tile into ``out[start:]``; their count."""
    k = 0
    while mask != 0:
        comp = component_of(lowest_bit(mask), mask, nbr)
        out[start + k] = comp
        k += 1
        mask &= ~comp
    return k


@kernel
def owner(row, t, level):
    """Owner of the piece at ``level`` of tile ``t``."""
    return row[PIECES + 3 * t + level] // 3


@kernel
def kinds_code(row, t, start, stop):
    """Code (see :func:`stack_table`) of the kinds of levels ``start:stop`` of tile ``t``."""
    code = 0
    mult = 1
    for level in range(start, stop):
        code += (row[PIECES + 3 * t + level] % 3 + 1) * mult
        mult *= 4
    return code


@kernel
def count_pieces(row, colour, mask):
    """Pieces of ``colour`` on the tiles of ``mask`` (R15 counts pieces, not tiles)."""
    count = 0
    while mask != 0:
        t = lowest_bit(mask)
        for level in range(row[HEIGHT + t]):
            if owner(row, t, level) == colour:
                count += 1
        mask &= mask - 1
    return count


@kernel
def sort_segment(row, start, stop):
    """Insertion sort of ``row[start:stop]`` (the keep actions of a group choice)."""
    for i in range(start + 1, stop):
        value = row[i]
        j = i - 1
        while j >= start and row[j] > value:
            row[j + 1] = row[j]
            j -= 1
        row[j + 1] = value


@kernel
def add_moves(row, p, k, nbr, lines, prm, shapes):
    """Append the legal moves of seat ``p`` (R12-R14b) to the legal list at ``k``,
    ascending: origins in tile order, then targets in tile order, then the number taken."""
    n_tiles = prm[P_TILES]
    alive = row[ALIVE]
    own = row[CMASK + p]
    own_reach = closed_neighbourhood(own, nbr)
    origins = own
    while origins != 0:
        o = lowest_bit(origins)
        origins &= origins - 1
        h = row[HEIGHT + o]
        if owner(row, o, h - 1) != p:  # R12: only the owner of the top piece moves
            continue
        seen = lines[o, MAX_TILES]  # every tile on a straight line from o
        holes = seen & ~alive
        while holes != 0:  # R14a: a hole stops a move; it hides what lies beyond it
            seen &= ~lines[o, lowest_bit(holes)]
            holes &= holes - 1
        if seen == 0:
            continue
        reach1, reach2, reach3 = seen, seen, seen  # where a unit of 1, 2, 3 may go
        keep_mask = np.int64(0)
        have_keep = False
        for take in range(1, h + 1):  # R13: any top part may move
            covered_own = False
            for level in range(h - take):
                if owner(row, o, level) == p:
                    covered_own = True
            if covered_own:  # R14b: o keeps an own piece; the target must touch them
                good = own_reach
            else:
                if not have_keep:  # the target must touch every own group left
                    keep_mask = prm[P_ALL]
                    rest = own & ~bit(o)
                    while rest != 0:
                        comp = component_of(lowest_bit(rest), rest, nbr)
                        keep_mask &= closed_neighbourhood(comp, nbr)
                        rest &= ~comp
                    have_keep = True
                good = keep_mask
            if take == 1:
                reach1 &= good
            elif take == 2:
                reach2 &= good
            else:
                reach3 &= good
        if h < 3:
            reach3 = np.int64(0)
            if h < 2:
                reach2 = np.int64(0)
        unit1 = kinds_code(row, o, h - 1, h)
        unit2 = kinds_code(row, o, h - 2, h) if h >= 2 else 0
        base = prm[P_MOVE] + o * 3 * n_tiles - 1
        targets = reach1 | reach2 | reach3
        while targets != 0:
            t = lowest_bit(targets)
            targets &= targets - 1
            th = row[HEIGHT + t]
            code, scale = kinds_code(row, t, 0, th), 4**th
            if (reach1 >> t) & 1 and (th == 0 or (th < 3 and shapes[code + unit1 * scale])):
                row[LEGAL + k] = base + t * 3 + 1  # R14: the stack made must be legal
                k += 1
            if (reach2 >> t) & 1 and (th == 0 or (th < 2 and shapes[code + unit2 * scale])):
                row[LEGAL + k] = base + t * 3 + 2
                k += 1
            if (reach3 >> t) & 1 and th == 0:
                row[LEGAL + k] = base + t * 3 + 3
                k += 1
    return k


@kernel
def turn_actions(row, nbr, lines, prm, shapes):
    """The legal list at the start of the current player's turn (setup, opening, normal)."""
    n_tiles = prm[P_TILES]
    p = row[CUR]
    occ = row[OCC]
    empty = row[ALIVE] & ~occ
    rnd = row[ROUND]
    if rnd == SETUP:
        neutral = row[CMASK + NEUTRAL]  # R6
        targets = empty & closed_neighbourhood(neutral, nbr) if neutral != 0 else empty
        reserve = NEUTRAL_RESERVE + 3 * p
    else:
        if rnd == OPENING_1:  # R8
            targets = empty & closed_neighbourhood(occ, nbr) if occ != 0 else empty
        else:  # R9, R11
            targets = empty & closed_neighbourhood(row[CMASK + p], nbr)
        reserve = RESERVE + 3 * p
    k = 0
    if targets != 0:
        for kind in range(3):
            if row[reserve + kind] > 0:
                m = targets
                while m != 0:
                    row[LEGAL + k] = kind * n_tiles + lowest_bit(m)
                    k += 1
                    m &= m - 1
    if rnd <= OPENING_1 or (rnd == OPENING_2 and k > 0):
        row[LEGAL_COUNT] = k
        return
    k = add_moves(row, p, k, nbr, lines, prm, shapes)
    if rnd == NORMAL:
        row[LEGAL + k] = prm[P_STOP]  # R19d
        k += 1
    row[LEGAL_COUNT] = k


@kernel
def melt_actions(row, nbr, prm):
    """Melt candidates (R17) as the legal list; returns their count."""
    alive = row[ALIVE]
    m = alive & ~row[OCC]
    k = 0
    while m != 0:
        t = lowest_bit(m)
        m &= m - 1
        if popcount(nbr[t] & alive) < 6:
            rest = alive & ~bit(t)
            if rest == 0 or component_of(lowest_bit(rest), rest, nbr) == rest:
                row[LEGAL + k] = prm[P_MELT] + t
                k += 1
    row[LEGAL_COUNT] = k
    return k


@kernel
def keep_actions(row, prm):
    """One keep action per tied group of the active choice: its lowest tile, ascending."""
    k = row[PENDING_SIZE]
    for i in range(k):
        row[LEGAL + i] = prm[P_KEEP] + lowest_bit(row[PENDING_GROUPS + i])
    sort_segment(row, LEGAL, LEGAL + k)
    row[LEGAL_COUNT] = k


@kernel
def is_legal(row, action):
    """Whether ``action`` is in the legal list."""
    for i in range(row[LEGAL_COUNT]):
        if row[LEGAL + i] == action:
            return True
    return False


@kernel
def remove(row, colour, mask):
    """Remove the pieces of ``colour`` on ``mask``; the mover scores them (R15, R16a)."""
    count = 0
    m = mask
    while m != 0:
        t = lowest_bit(m)
        m &= m - 1
        h = row[HEIGHT + t]
        kept = 0
        for level in range(h):
            piece = row[PIECES + 3 * t + level]
            if piece // 3 != colour:
                row[PIECES + 3 * t + kept] = piece
                kept += 1
        for level in range(kept, h):
            row[PIECES + 3 * t + level] = -1
        a, b = PIECES + 3 * t, PIECES + 3 * t + 1
        if kept == 2 and row[a] % 3 == T and row[b] % 3 == G:  # R16a: [T, G] -> C
            row[a], row[b] = row[b], row[a]
        count += h - kept
        row[HEIGHT + t] = kept
        if kept == 0:
            row[OCC] &= ~bit(t)
    row[CMASK + colour] &= ~mask
    row[REMOVED + row[CUR]] += count
    row[LOST + colour] += count


@kernel
def move(row, frm, to, take, nbr, lines, prm, shapes):
    """Move the top ``take`` pieces from ``frm`` to ``to``, then removals (R15, R16)."""
    p = row[CUR]
    h, th = row[HEIGHT + frm], row[HEIGHT + to]
    left = 0  # colours (bit per colour) staying on frm, moving with the unit
    moved = 0
    for level in range(h - take):
        left |= 1 << owner(row, frm, level)
    for j in range(take):
        piece = row[PIECES + 3 * frm + h - take + j]
        row[PIECES + 3 * to + th + j] = piece
        row[PIECES + 3 * frm + h - take + j] = -1
        moved |= 1 << (piece // 3)
    row[HEIGHT + frm] = h - take
    row[HEIGHT + to] = th + take
    bf, bt = bit(frm), bit(to)
    row[OCC] |= bt
    if h == take:
        row[OCC] &= ~bf
    for c in range(5):
        if (moved >> c) & 1:
            row[CMASK + c] |= bt
            if (left >> c) & 1 == 0:
                row[CMASK + c] &= ~bf
    pending = 0
    for c in range(5):  # seat order, then neutral (R16)
        if (moved >> c) & 1 == 0 or c == p:
            continue
        slot = PENDING_GROUPS + pending * MAX_GROUPS
        count = components(row[CMASK + c], nbr, row, slot)
        if count < 2:
            row[slot] = 0
            continue
        best = 0
        for i in range(count):
            best = max(best, count_pieces(row, c, row[slot + i]))
        tied = 0
        for i in range(count):
            group = row[slot + i]
            row[slot + i] = 0
            if count_pieces(row, c, group) < best:
                remove(row, c, group)
            else:
                row[slot + tied] = group
                tied += 1
        if tied > 1:
            row[PENDING_COLOUR + pending] = c
            row[PENDING_SIZE + pending] = tied
            pending += 1
        else:
            row[slot] = 0
    if pending > 0:
        row[PENDING_COUNT] = pending
        row[SUB] = CHOOSE
        keep_actions(row, prm)
    else:
        after_removals(row, nbr, lines, prm, shapes)


@kernel
def keep(row, tile, nbr, lines, prm, shapes):
    """The mover keeps the tied group containing ``tile``; the others go (R16)."""
    colour = row[PENDING_COLOUR]
    for i in range(row[PENDING_SIZE]):
        group = row[PENDING_GROUPS + i]
        if (group >> tile) & 1 == 0:
            remove(row, colour, group)
    count = row[PENDING_COUNT] - 1
    for e in range(count):  # the next choice becomes the active one
        row[PENDING_COLOUR + e] = row[PENDING_COLOUR + e + 1]
        row[PENDING_SIZE + e] = row[PENDING_SIZE + e + 1]
        for i in range(MAX_GROUPS):
            row[PENDING_GROUPS + e * MAX_GROUPS + i] = row[
                PENDING_GROUPS + (e + 1) * MAX_GROUPS + i
            ]
    clear_pending(row, count)
    row[PENDING_COUNT] = count
    if count > 0:
        keep_actions(row, prm)
    else:
        row[SUB] = NO_SUB
        after_removals(row, nbr, lines, prm, shapes)


@kernel
def clear_pending(row, start):
    """Zero the pending choices from entry ``start`` on (equal positions, equal rows)."""
    for e in range(start, MAX_PENDING):
        row[PENDING_COLOUR + e] = 0
        row[PENDING_SIZE + e] = 0
        for i in range(MAX_GROUPS):
            row[PENDING_GROUPS + e * MAX_GROUPS + i] = 0


@kernel
def after_removals(row, nbr, lines, prm, shapes):
    """Melting (R17) or its impossibility (R18), then the end of the turn."""
    if row[MUST_MELT] == 1:
        if melt_actions(row, nbr, prm) > 0:
            row[SUB] = MELT_SUB
            return
        row[ENDED + row[CUR]] = 1  # R18: the move stands, the game ends
    end_turn(row, nbr, lines, prm, shapes)


@kernel
def any_reserve(row, start):
    """Whether the 3 reserve counts at ``start`` are not all zero."""
    return row[start] + row[start + 1] + row[start + 2] > 0


@kernel
def end_turn(row, nbr, lines, prm, shapes):
    """Close the turn and pass it on (setup order, R19a, R20)."""
    n = prm[P_PLAYERS]
    p = row[CUR]
    row[TURN] += 1
    row[SUB] = NO_SUB
    if row[PENDING_COUNT] > 0:
        clear_pending(row, 0)
        row[PENDING_COUNT] = 0
    row[MUST_MELT] = 0
    if row[ROUND] == SETUP:
        left = False
        for s in range(n):
            left = left or any_reserve(row, NEUTRAL_RESERVE + 3 * s)
        if left:
            s = p
            for _ in range(n):
                s = (s + 1) % n
                if any_reserve(row, NEUTRAL_RESERVE + 3 * s):
                    break
            row[CUR] = s
            turn_actions(row, nbr, lines, prm, shapes)
            return
        p = n - 1  # the opening starts with seat 0 (R8)
    advance(row, p, nbr, lines, prm, shapes)


@kernel
def end_small_players(row, n):
    """R19c: after the opening, a player with at most one piece on the board is out."""
    for s in range(n):
        on_board = 9 - row[RESERVE + 3 * s] - row[RESERVE + 3 * s + 1]
        on_board -= row[RESERVE + 3 * s + 2] + row[LOST + s]
        if row[ENDED + s] == 0 and on_board <= 1:
            row[ENDED + s] = 1


@kernel
def advance(row, p, nbr, lines, prm, shapes):
    """Pass the turn after seat ``p`` (R19a, R19c, R20)."""
    n = prm[P_PLAYERS]
    if row[ROUND] == NORMAL:
        end_small_players(row, n)
    s = p
    for _ in range(n):
        s = (s + 1) % n
        if s == 0 and row[ROUND] < NORMAL:
            row[ROUND] += 1  # a new round of the opening (or its end)
            if row[ROUND] == NORMAL:
                end_small_players(row, n)
        if row[ENDED + s] == 1:
            continue
        row[CUR] = s
        row[MUST_MELT] = 1 if row[ROUND] == NORMAL and not any_reserve(row, RESERVE + 3 * s) else 0
        turn_actions(row, nbr, lines, prm, shapes)
        count = row[LEGAL_COUNT]
        if count > 1 or (count > 0 and row[ROUND] != NORMAL):  # stop alone: R19a
            return
        row[ENDED + s] = 1
    row[CUR] = -1
    row[MUST_MELT] = 0
    row[LEGAL_COUNT] = 0


@kernel
def apply_action(row, a, nbr, lines, prm, shapes):
    """Apply a legal action ``a`` (check :func:`is_legal` first)."""
    n_tiles = prm[P_TILES]
    p = row[CUR]
    if a < prm[P_MOVE]:  # place
        kind, t = a // n_tiles, a % n_tiles
        if row[ROUND] == SETUP:
            piece_owner = NEUTRAL
            row[NEUTRAL_RESERVE + 3 * p + kind] -= 1
        else:
            piece_owner = p
            row[RESERVE + 3 * p + kind] -= 1
        row[PIECES + 3 * t] = piece_owner * 3 + kind
        row[HEIGHT + t] = 1
        row[OCC] |= bit(t)
        row[CMASK + piece_owner] |= bit(t)
        end_turn(row, nbr, lines, prm, shapes)
    elif a < prm[P_MELT]:
        pair, take = (a - prm[P_MOVE]) // 3, (a - prm[P_MOVE]) % 3 + 1
        move(row, pair // n_tiles, pair % n_tiles, take, nbr, lines, prm, shapes)
    elif a < prm[P_KEEP]:
        row[ALIVE] &= ~bit(a - prm[P_MELT])
        row[MELTED + p] += 1
        end_turn(row, nbr, lines, prm, shapes)
    elif a < prm[P_STOP]:
        keep(row, a - prm[P_KEEP], nbr, lines, prm, shapes)
    else:
        row[ENDED + p] = 1  # R19d
        end_turn(row, nbr, lines, prm, shapes)


@kernel
def score(row, seat):
    """R21 as the position stands: removed + melted + controlled tiles."""
    total = row[REMOVED + seat] + row[MELTED + seat]
    m = row[OCC]
    while m != 0:
        t = lowest_bit(m)
        m &= m - 1
        if owner(row, t, row[HEIGHT + t] - 1) == seat:
            total += 1
    return total
