"""One compiled Mole Hill game behind the engine protocol: :class:`FastMoleHillState`
(made by :meth:`tabletop_zoo.envs.mole_hill.fast.engine.FastMoleHill.wrap`), with compiled
rollouts and the greedy rule for the search agents. Rollouts draw from the search agent's
own Python generator (:mod:`tabletop_zoo.envs.compiled.random_stream`), so they play the moves the
Python engine's rollouts play."""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.compiled import search_tree as S
from tabletop_zoo.envs.compiled.base import FastStateBase
from tabletop_zoo.envs.compiled.common import copy_into, jit
from tabletop_zoo.envs.compiled.random_stream import below, shuffle
from tabletop_zoo.envs.mole_hill import action_to_string
from tabletop_zoo.envs.mole_hill.fast import kernels as K


@jit
def score(row, seat):
    """Mole score of ``seat`` in a compiled row."""
    return K.score_of(row, seat)


@jit
def _legal_list(row, buffer):
    return K.legal_actions(row, buffer)


@jit
def _apply_checked(row, action):
    if not K.is_legal(row, action):
        return False
    K.apply_action(row, action)
    return True


@jit
def _rollout(row, max_depth, buffer, words, out):
    steps = 0
    while row[K.PLAYER] >= 0 and (max_depth < 0 or steps < max_depth):
        if row[K.MOLE] == 1:
            count = K.destinations(row, buffer)
            action = buffer[below(words, count)]  # Random.choice(legal)
        else:  # the same draw over the free edges, ascending, without listing them
            skip = below(words, K.NUM_EDGES - row[K.NUM_RODS])
            edge = 0
            while True:
                if not K.rod_placed(row, edge):
                    if skip == 0:
                        break
                    skip -= 1
                edge += 1
            action = K.NUM_SPACES + edge
        K.apply_action(row, action)
        steps += 1
    s0, s1 = K.score_of(row, 0), K.score_of(row, 1)
    out[0] = 1.0 if s0 > s1 else -1.0 if s0 < s1 else 0.0
    out[1] = -out[0]


@jit
def _search(row, buffer, tree, words, simulations, c, depth, solve):
    """The simulation loop of ``MCTSAgent`` from ``row`` (see
    :mod:`~tabletop_zoo.envs.compiled.search_tree`); returns the number of nodes."""
    ints, outcome, untried = tree[0], tree[2], tree[3]
    sim = np.empty_like(row)
    path = np.empty(simulations + 1, dtype=np.int64)
    result = np.zeros(2, dtype=np.float64)
    nodes = 1
    for _ in range(simulations):
        if ints[0, S.PROVEN]:
            break
        copy_into(sim, row)
        node, length = 0, 1
        path[0] = 0
        while S.can_descend(tree, node):
            node = S.select_child(tree, node, c)
            K.apply_action(sim, ints[node, S.ACTION])
            path[length] = node
            length += 1
        if S.can_expand(tree, node):
            action = S.pop_untried(tree, node)
            K.apply_action(sim, action)
            child = nodes
            nodes += 1
            if sim[K.PLAYER] < 0:
                S.set_node(tree, child, -1, buffer, 0)
                if solve:
                    _rollout(sim, -1, buffer, words, result)  # over: the result, no draw
                    copy_into(outcome[child], result)
                    ints[child, S.PROVEN] = 1
            else:
                count = K.legal_actions(sim, buffer)
                S.set_node(tree, child, sim[K.PLAYER], buffer, count)
                shuffle(words, untried[child, :count])
            length = S.add_child(tree, node, child, action, path, length)
            node = child
        proven = ints[node, S.PROVEN] == 1
        if proven:
            copy_into(result, outcome[node])
        else:
            _rollout(sim, depth, buffer, words, result)
        S.backup(tree, path, length, result, proven)
    return nodes


@jit
def _greedy_best(row, buffer, out):
    """The greedy rule's best actions (result if the game ends, then score margin, one
    ply deep) into ``out``, ascending; returns their count."""
    player = row[K.PLAYER]
    scratch = np.empty(K.WIDTH, dtype=np.int64)
    best_result, best_margin, count = -2.0, -1000, 0
    for j in range(K.legal_actions(row, buffer)):
        copy_into(scratch, row)
        K.apply_action(scratch, buffer[j])
        margin = K.score_of(scratch, player) - K.score_of(scratch, 1 - player)
        result = 0.0
        if scratch[K.PLAYER] < 0:
            result = 1.0 if margin > 0 else -1.0 if margin < 0 else 0.0
        if result > best_result or (result == best_result and margin > best_margin):
            best_result, best_margin, count = result, margin, 0
        if result == best_result and margin == best_margin:
            out[count] = buffer[j]
            count += 1
    return count


class FastMoleHillState(FastStateBase):
    """One compiled game behind the engine protocol (``legal_actions``, ``apply_action``,
    ``clone``, ...); text, notation and JSON go through the Python state."""

    __slots__ = ()
    _search_loop = staticmethod(_search)
    _rollout_loop = staticmethod(_rollout)
    _greedy_loop = staticmethod(_greedy_best)

    def _kernel_context(self) -> np.ndarray:
        return self.engine._scratch  # the engine's scratch for action lists (never kept)

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending."""
        buffer = self.engine._scratch
        return buffer[: _legal_list(self.row, buffer)].tolist()

    def apply_if_legal(self, action: int) -> bool:
        return _apply_checked(self.row, action)

    def action_to_string(self, action: int) -> str:
        """Notation of ``action``."""
        return action_to_string(action)
