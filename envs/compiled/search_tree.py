"""The search tree of the compiled MCTS (the ``fast`` extra): UCT with MCTS-Solver backups
in compiled code, the algorithm of ``baselines.agents.search.MCTSAgent`` step for step.

A tree is a tuple of arrays with room for ``capacity`` nodes (a search adds at most one
node per simulation, so ``simulations + 1`` is enough). Node 0 is the root. Children are
kept in expansion order (a linked list), so the first of equal UCT scores or equal final
keys is the one the Python search picks. Each game's compiled state
(``envs/<game>/fast/state.py``) runs the simulation loop with these helpers and its own
moves and rollouts (why the loop is not shared: docs/DESIGN.md), drawing from a
:class:`~.random_stream.PythonStream` exactly what the Python search draws;
``FastStateBase.search_tree`` (:mod:`.base`) is the shared entry point.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop_zoo.envs.compiled.common import copy_into, jit

# Integer columns of a node.
PLAYER, VISITS, FIRST, LAST, NEXT, ACTION, UNTRIED, PROVEN = range(8)
COLUMNS = 8
MAX_UTILITY = 1.0  # baselines.agents.search.MAX_UTILITY


def new_tree(capacity: int, num_players: int, num_actions: int) -> tuple:
    """Empty arrays for ``capacity`` nodes: ``(ints, value, outcome, untried)``. ``untried``
    is left unset (a node's row is written up to its count before it is read): zeroing
    ``capacity x num_actions`` entries cost more than many a search."""
    ints = np.zeros((capacity, COLUMNS), dtype=np.int64)
    value = np.zeros((capacity, num_players), dtype=np.float64)
    outcome = np.zeros((capacity, num_players), dtype=np.float64)
    untried = np.empty((capacity, max(1, num_actions)), dtype=np.int64)
    return ints, value, outcome, untried


@jit
def set_node(tree, node, player, actions, count):
    """Make ``node`` a fresh node of ``player`` with ``actions[:count]`` untried."""
    ints, value, outcome, untried = tree
    ints[node, :] = 0
    ints[node, PLAYER] = player
    ints[node, FIRST : ACTION + 1] = -1  # FIRST, LAST, NEXT and ACTION: none yet
    ints[node, UNTRIED] = count
    value[node, :] = 0.0
    for j in range(count):
        untried[node, j] = actions[j]


@jit
def can_descend(tree, node):
    """Selection goes on below ``node``: unproven, every action expanded, has children."""
    ints = tree[0]
    return ints[node, PROVEN] == 0 and ints[node, UNTRIED] == 0 and ints[node, FIRST] >= 0


@jit
def can_expand(tree, node):
    """``node`` is unproven and has an untried action."""
    ints = tree[0]
    return ints[node, PROVEN] == 0 and ints[node, UNTRIED] > 0


@jit
def pop_untried(tree, node):
    """The last untried action of ``node`` (removed), as ``list.pop()``."""
    ints, untried = tree[0], tree[3]
    ints[node, UNTRIED] -= 1
    return untried[node, ints[node, UNTRIED]]


@jit
def add_child(tree, node, child, action, path, length):
    """Append ``child`` (reached by ``action``) to ``node``'s children and to ``path``
    (``path[:length]`` so far); returns the path's new length."""
    ints = tree[0]
    ints[child, ACTION] = action
    if ints[node, FIRST] < 0:
        ints[node, FIRST] = child
    else:
        ints[ints[node, LAST], NEXT] = child
    ints[node, LAST] = child
    path[length] = child
    return length + 1


@jit
def select_child(tree, node, c):
    """The UCT child of ``node`` (a proven child is worth its result to the mover), the
    first in expansion order among equals."""
    ints, value, outcome = tree[0], tree[1], tree[2]
    log_n = math.log(ints[node, VISITS])
    p = ints[node, PLAYER]
    best_score = -math.inf
    best = node
    child = ints[node, FIRST]
    while child >= 0:
        if ints[child, PROVEN]:
            score = outcome[child, p]
        else:
            visits = ints[child, VISITS]
            score = value[child, p] / visits + c * math.sqrt(log_n / visits)
        if score > best_score:
            best_score, best = score, child
        child = ints[child, NEXT]
    return best


@jit
def _prove(tree, node):
    """``_Node.prove``: set the outcome of ``node`` from its children if they prove it."""
    ints, outcome = tree[0], tree[2]
    if ints[node, PROVEN]:
        return True
    p = ints[node, PLAYER]
    best = -1
    every_child_proven = ints[node, UNTRIED] == 0
    child = ints[node, FIRST]
    while child >= 0:
        if not ints[child, PROVEN]:
            every_child_proven = False
        elif best < 0 or outcome[child, p] > outcome[best, p]:
            best = child
        child = ints[child, NEXT]
    if best >= 0 and (every_child_proven or outcome[best, p] >= MAX_UTILITY):
        copy_into(outcome[node], outcome[best])
        ints[node, PROVEN] = 1
        return True
    return False


@jit
def backup(tree, path, length, result, proven):
    """Add ``result`` to every node of ``path[:length]``, leaf first; while ``proven``,
    try to prove each node that has children."""
    ints, value = tree[0], tree[1]
    for k in range(length - 1, -1, -1):
        node = path[k]
        ints[node, VISITS] += 1
        for i in range(value.shape[1]):
            value[node, i] += result[i]
        if proven and ints[node, FIRST] >= 0:
            proven = _prove(tree, node)


@jit
def best_child(tree, node):
    """``_Node.best_action``'s child: best proven result for the mover (unproven counts
    as 0), then most visits, then highest summed return; the first expanded among equals."""
    ints, value, outcome = tree[0], tree[1], tree[2]
    p = ints[node, PLAYER]
    best = -1
    key0, key1, key2 = 0.0, 0, 0.0
    child = ints[node, FIRST]
    while child >= 0:
        k0 = outcome[child, p] if ints[child, PROVEN] else 0.0
        k1 = ints[child, VISITS]
        k2 = value[child, p]
        better = k0 > key0 or (k0 == key0 and (k1 > key1 or (k1 == key1 and k2 > key2)))
        if best < 0 or better:
            best, key0, key1, key2 = child, k0, k1, k2
        child = ints[child, NEXT]
    return best
