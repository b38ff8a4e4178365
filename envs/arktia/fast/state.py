"""One compiled Arktia game behind the engine protocol: :class:`FastArktiaState`
(made by :meth:`tabletop_zoo.envs.arktia.fast.engine.FastArktia.wrap`), with compiled rollouts
and the greedy rule for the search agents. Rollouts draw from the search agent's own
Python generator (:mod:`tabletop_zoo.envs.compiled.random_stream`), so they play the moves the
Python engine's rollouts play."""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia.fast import batch as B
from tabletop_zoo.envs.arktia.fast import kernels as K
from tabletop_zoo.envs.compiled import search_tree as S
from tabletop_zoo.envs.compiled.base import FastStateBase
from tabletop_zoo.envs.compiled.common import copy_into, jit
from tabletop_zoo.envs.compiled.random_stream import below, shuffle


@jit
def score(row, seat):
    """R21 score of ``seat`` in a compiled row."""
    return K.score(row, seat)


@jit
def _apply_checked(row, action, tables):
    if not K.is_legal(row, action):
        return False
    nbr, lines, prm, shapes = tables
    K.apply_action(row, action, nbr, lines, prm, shapes)
    return True


@jit
def _rollout(row, max_depth, tables, words, out):
    nbr, lines, prm, shapes = tables
    steps = 0
    while row[K.CUR] >= 0 and (max_depth < 0 or steps < max_depth):
        action = row[K.LEGAL + below(words, row[K.LEGAL_COUNT])]  # Random.choice(legal)
        K.apply_action(row, action, nbr, lines, prm, shapes)
        steps += 1
    B.win_rewards(row, prm[K.P_PLAYERS], out)


@jit
def _search(row, tables, tree, words, simulations, c, depth, solve):
    """The simulation loop of ``MCTSAgent`` from ``row`` (see
    :mod:`~tabletop_zoo.envs.compiled.search_tree`); returns the number of nodes."""
    nbr, lines, prm, shapes = tables
    ints, outcome, untried = tree[0], tree[2], tree[3]
    sim = np.empty_like(row)
    path = np.empty(simulations + 1, dtype=np.int64)
    out = np.zeros(prm[K.P_PLAYERS], dtype=np.float32)
    result = np.zeros(prm[K.P_PLAYERS], dtype=np.float64)
    nodes = 1
    for _ in range(simulations):
        if ints[0, S.PROVEN]:
            break
        copy_into(sim, row)
        node, length = 0, 1
        path[0] = 0
        while S.can_descend(tree, node):
            node = S.select_child(tree, node, c)
            K.apply_action(sim, ints[node, S.ACTION], nbr, lines, prm, shapes)
            path[length] = node
            length += 1
        if S.can_expand(tree, node):
            action = S.pop_untried(tree, node)
            K.apply_action(sim, action, nbr, lines, prm, shapes)
            child = nodes
            nodes += 1
            if sim[K.CUR] < 0:
                S.set_node(tree, child, -1, sim, 0)
                if solve:
                    _rollout(sim, -1, tables, words, out)  # over: the result, no draw
                    copy_into(outcome[child], out)
                    ints[child, S.PROVEN] = 1
            else:
                count = sim[K.LEGAL_COUNT]
                S.set_node(tree, child, sim[K.CUR], sim[K.LEGAL : K.LEGAL + count], count)
                shuffle(words, untried[child, :count])
            length = S.add_child(tree, node, child, action, path, length)
            node = child
        proven = ints[node, S.PROVEN] == 1
        if proven:
            copy_into(result, outcome[node])
        else:
            _rollout(sim, depth, tables, words, out)
            copy_into(result, out)
        S.backup(tree, path, length, result, proven)
    return nodes


@jit
def _greedy_best(row, tables, out):
    """The greedy rule's best actions (result if the game ends, then score margin, one
    ply deep) into ``out`` in legal-list order; returns their count."""
    n = tables[2][K.P_PLAYERS]  # tables: (neighbours, lines, params, shapes)
    scratch = np.empty(row.shape[0], dtype=np.int64)
    results = np.zeros(n, dtype=np.float32)
    best_result, best_margin, count = -2.0, -(10**9), 0
    for j in range(row[K.LEGAL_COUNT]):
        action = row[K.LEGAL + j]
        result, margin = B.greedy_value(row, action, scratch, results, tables)
        if result > best_result or (result == best_result and margin > best_margin):
            best_result, best_margin, count = result, margin, 0
        if result == best_result and margin == best_margin:
            out[count] = action
            count += 1
    return count


class FastArktiaState(FastStateBase):
    """One compiled game behind the engine protocol; text, notation and JSON go through
    the Python state."""

    __slots__ = ()
    _search_loop = staticmethod(_search)
    _rollout_loop = staticmethod(_rollout)
    _greedy_loop = staticmethod(_greedy_best)
    _rollout_dtype = np.float32  # R22's rewards, as the batch kernels write them

    def _kernel_context(self) -> tuple:
        return self.engine.tables

    @property
    def turn(self) -> int:
        """Completed turns (R23 counts these)."""
        return int(self.row[K.TURN])

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending."""
        return self.row[K.LEGAL : K.LEGAL + self.row[K.LEGAL_COUNT]].tolist()

    def apply_if_legal(self, action: int) -> bool:
        return _apply_checked(self.row, action, self.engine.tables)
