"""The PUCT search trees as arrays, one tree per slot of a :class:`Forest`: the one tree of
:class:`~.puct.PUCTSearch` (a forest of one slot) and of batched self-play
(:mod:`tabletop_zoo.baselines.training.self_play`, one slot per game).

Three kernels work on the arrays: :func:`descend` (selection with virtual loss),
:func:`expand` (new nodes with their legal actions and priors) and :func:`backup`. A search
may descend several times before its new leaves are valued: until then a new leaf is
*pending* and every step of its path carries a virtual loss (one more visit that counts as a
loss for the seat choosing it), which steers the next descents elsewhere; a descent ending
on a pending leaf is a *collision*. The kernels are plain Python over arrays, compiled by
numba on the fast path (:func:`kernels`); they do the same IEEE operations in the same
order either way, so the trees and the moves played from them are the same.
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np

NEW_LEAF, FINISHED_LEAF, COLLISION = 0, 1, 2  # what a descent reached (``out_status``)


def descend(nodes, edges, slots, first, c_puct, out_edges, out_actions, out_length, out_status):
    """From the root of each tree ``slots[i]`` in turn, select down to a new leaf by
    ``argmax Q + c_puct * P * sqrt(N + 1) / (1 + n)`` for the seat to act (ties to the first
    edge; an unvisited edge's ``Q`` is the node's own value for that seat), each step adding
    its virtual loss; ``first[i] >= 0`` forces the root child (an index among the root's
    edges). Writes the path's edges and actions (``out_edges[i, :out_length[i]]``) and
    ``out_status[i]``:
    :data:`NEW_LEAF` the last edge has no child yet (now pending: ``edge_pending``),
    :data:`FINISHED_LEAF` it leads to a finished position (for :func:`backup` to add),
    :data:`COLLISION` it leads to a pending leaf (the path's virtual loss is taken back).
    ``nodes`` and ``edges`` are the arrays of :meth:`Forest.node_arrays` and
    :meth:`Forest.edge_arrays`; ``node_edges[s, v]`` is ``(first edge, count)``."""
    node_player, node_visits, node_value, node_edges, node_terminal, _result = nodes
    edge_action, edge_prior, edge_visits, edge_value, edge_child, edge_pending = edges
    for i in range(slots.shape[0]):
        s = slots[i]
        node = 0
        depth = 0
        while True:
            start = node_edges[s, node, 0]
            count = node_edges[s, node, 1]
            seat = node_player[s, node]
            if depth == 0 and first[i] >= 0:
                best = start + first[i]
            else:  # vectorised: NumPy's pace without numba, numba's with it
                visits = edge_visits[s, start : start + count]
                parent_q = 0.0
                if node_visits[s, node] != 0.0:
                    parent_q = node_value[s, node, seat] / node_visits[s, node]
                root_n = math.sqrt(visits.sum() + 1.0)
                value = edge_value[s, start : start + count, seat]
                q = np.where(visits > 0.0, value / np.maximum(visits, 1.0), parent_q)
                prior = edge_prior[s, start : start + count]
                best = start + np.argmax(q + c_puct * prior * root_n / (1.0 + visits))
            out_edges[i, depth] = best
            out_actions[i, depth] = edge_action[s, best]
            depth += 1
            edge_visits[s, best] += 1.0  # virtual loss until the value is backed up
            edge_value[s, best, seat] -= 1.0
            child = edge_child[s, best]
            if child >= 0 and node_terminal[s, child]:
                out_status[i] = FINISHED_LEAF
                break
            if child >= 0:
                node = child
                continue
            if edge_pending[s, best] == 0.0:
                out_status[i] = NEW_LEAF
                edge_pending[s, best] = 1.0
                break
            out_status[i] = COLLISION
            node = 0
            for d in range(depth):
                e = out_edges[i, d]
                edge_visits[s, e] -= 1.0
                edge_value[s, e, node_player[s, node]] += 1.0
                node = edge_child[s, e]
            break
        out_length[i] = depth


def expand(nodes, edges, counts, slots, parent_edge, players, results, starts, actions, priors):
    """Add one node per entry ``i``: in tree ``slots[i]``, the child of edge
    ``parent_edge[i]`` (-1: the root of a fresh tree), seat to act ``players[i]`` (-1:
    finished, value ``results[i]``), edges ``actions[starts[i]:starts[i + 1]]`` with
    ``priors`` alike. The caller made room (:meth:`Forest.reserve`)."""
    node_player, node_visits, node_value, node_edges, node_terminal, node_result = nodes
    edge_action, edge_prior, edge_visits, edge_value, edge_child, edge_pending = edges
    node_count, edge_count = counts
    for i in range(slots.shape[0]):
        s = slots[i]
        node = node_count[s]
        node_count[s] += 1
        if parent_edge[i] >= 0:
            edge_child[s, parent_edge[i]] = node
        node_player[s, node] = players[i]
        node_visits[s, node] = 0.0
        node_terminal[s, node] = players[i] < 0
        node_value[s, node] = 0.0
        node_result[s, node] = results[i]
        first = edge_count[s]
        count = starts[i + 1] - starts[i]
        node_edges[s, node, 0] = first
        node_edges[s, node, 1] = count
        new = slice(first, first + count)  # slices: NumPy's pace without numba
        edge_action[s, new] = actions[starts[i] : starts[i + 1]]
        edge_prior[s, new] = priors[starts[i] : starts[i + 1]]
        edge_visits[s, new] = 0.0
        edge_child[s, new] = -1
        edge_pending[s, new] = 0.0
        edge_value[s, new] = 0.0
        edge_count[s] += count


def backup(nodes, edges, slots, path_edges, path_length, values):
    """Add ``values[i]`` (every seat) to the leaf of entry ``i`` (the child of its path's
    last edge, no longer pending) and then along its path, taking back each step's
    virtual loss after the values (the visits were counted on the way down)."""
    node_player, node_visits, node_value = nodes[0], nodes[1], nodes[2]
    edge_value, edge_child, edge_pending = edges[3], edges[4], edges[5]
    for i in range(slots.shape[0]):
        s = slots[i]
        last = path_edges[i, path_length[i] - 1]
        edge_pending[s, last] = 0.0
        leaf = edge_child[s, last]
        node_visits[s, leaf] += 1.0
        node_value[s, leaf] += values[i]
        node = 0
        for d in range(path_length[i]):
            e = path_edges[i, d]
            edge_value[s, e] += values[i]
            edge_value[s, e, node_player[s, node]] += 1.0
            node_visits[s, node] += 1.0
            node_value[s, node] += values[i]
            node = edge_child[s, e]


@functools.cache
def kernels(compiled: bool) -> SimpleNamespace:
    """The kernels, compiled by numba (``compiled``; imports numba) or as written."""
    if not compiled:
        return SimpleNamespace(descend=descend, expand=expand, backup=backup)
    from tabletop_zoo.envs.compiled.common import jit

    return SimpleNamespace(descend=jit(descend), expand=jit(expand), backup=jit(backup))


class Forest:
    """The trees of ``slots`` games of ``num_players`` seats, as arrays (see the module)."""

    def __init__(
        self, slots: int, num_players: int, nodes: int, edges: int, compiled: bool = False
    ) -> None:
        self.slots, self.n = slots, num_players
        self.kernels = kernels(compiled)  # compiled by numba, or as written
        self.node_player = np.zeros((slots, nodes), dtype=np.int64)
        self.node_visits = np.zeros((slots, nodes))
        self.node_value = np.zeros((slots, nodes, num_players))
        self.node_edges = np.zeros((slots, nodes, 2), dtype=np.int64)
        self.node_terminal = np.zeros((slots, nodes), dtype=np.bool_)
        self.node_result = np.zeros((slots, nodes, num_players))
        self.edge_action = np.zeros((slots, edges), dtype=np.int64)
        self.edge_prior = np.zeros((slots, edges))
        self.edge_visits = np.zeros((slots, edges))
        self.edge_value = np.zeros((slots, edges, num_players))
        self.edge_child = np.full((slots, edges), -1, dtype=np.int64)
        self.edge_pending = np.zeros((slots, edges))  # virtual losses of pending leaves
        self.node_count = np.zeros(slots, dtype=np.int64)
        self.edge_count = np.zeros(slots, dtype=np.int64)

    _NODE = ("node_player", "node_visits", "node_value", "node_edges", "node_terminal")
    _NODE += ("node_result",)
    _EDGE = ("edge_action", "edge_prior", "edge_visits", "edge_value", "edge_child")
    _EDGE += ("edge_pending",)

    def node_arrays(self) -> tuple[np.ndarray, ...]:
        """The node arrays, in the kernels' argument order."""
        return tuple(getattr(self, name) for name in self._NODE)

    def edge_arrays(self) -> tuple[np.ndarray, ...]:
        """The edge arrays, in the kernels' argument order."""
        return tuple(getattr(self, name) for name in self._EDGE)

    def descend(
        self, slots: np.ndarray, first: np.ndarray, c_puct: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:func:`descend` once in each tree ``slots[i]`` (root child ``first[i]`` if
        ``>= 0``): the paths' edges, their actions, their lengths and what each reached (a
        path is no longer than a tree has nodes)."""
        edges = np.empty((len(slots), self.node_player.shape[1]), dtype=np.int64)
        actions = np.empty(edges.shape, dtype=np.int64)
        length, status = np.empty(len(slots), dtype=np.int64), np.empty(len(slots), dtype=np.int64)
        trees = self.node_arrays(), self.edge_arrays()
        self.kernels.descend(*trees, slots, first, float(c_puct), edges, actions, length, status)
        return edges, actions, length, status

    def add_nodes(
        self,
        slots: np.ndarray,
        parent_edge: np.ndarray,
        players: np.ndarray,
        results: np.ndarray,
        actions: np.ndarray,
        starts: np.ndarray,
        priors: np.ndarray,
    ) -> None:
        """:func:`expand` (room made first): one node per entry ``i`` in tree ``slots[i]``."""
        self.reserve(slots, starts)
        trees = self.node_arrays(), self.edge_arrays(), (self.node_count, self.edge_count)
        results = np.ascontiguousarray(results, dtype=np.float64)
        priors = np.asarray(priors, dtype=np.float64)
        self.kernels.expand(*trees, slots, parent_edge, players, results, starts, actions, priors)

    def back_up(
        self, slots: np.ndarray, path_edges: np.ndarray, lengths: np.ndarray, values: np.ndarray
    ) -> None:
        """:func:`backup` of ``values[i]`` along path ``i`` of tree ``slots[i]``."""
        path_edges = np.ascontiguousarray(path_edges)
        values = np.ascontiguousarray(values, dtype=np.float64)
        trees = self.node_arrays(), self.edge_arrays()
        self.kernels.backup(*trees, slots, path_edges, lengths, values)

    def clear(self, slot: int) -> None:
        """Forget the tree of ``slot`` (its next node is a new root)."""
        self.node_count[slot] = self.edge_count[slot] = 0

    def reserve(self, slots: np.ndarray, starts: np.ndarray) -> None:
        """Room for one more node in each tree ``slots[i]`` with ``starts[i + 1] -
        starts[i]`` edges."""
        nodes = int((np.bincount(slots, minlength=self.slots) + self.node_count).max())
        edges = np.bincount(slots, weights=np.diff(starts), minlength=self.slots)
        edges = int((edges + self.edge_count).max())
        if nodes > self.node_player.shape[1]:
            self._grow(self._NODE, nodes)
        if edges > self.edge_action.shape[1]:
            self._grow(self._EDGE, edges)

    def _grow(self, names: tuple[str, ...], needed: int) -> None:
        size = getattr(self, names[0]).shape[1]
        new_size = max(needed, 2 * size)
        for name in names:
            old = getattr(self, name)
            fill = -1 if name == "edge_child" else 0
            grown = np.full((old.shape[0], new_size, *old.shape[2:]), fill, dtype=old.dtype)
            grown[:, :size] = old
            setattr(self, name, grown)


class RootView:
    """The root of one tree: what :class:`~.puct.GumbelHalving` and the move choice read
    (fresh views of the forest's arrays on every access: growing replaces them)."""

    def __init__(self, forest: Forest, slot: int) -> None:
        self.forest, self.slot = forest, slot

    def _edges(self, name: str) -> np.ndarray:
        """The root edges' entries of the forest's array ``name`` (a view)."""
        first, count = self.forest.node_edges[self.slot, 0]
        return getattr(self.forest, name)[self.slot, first : first + count]

    def _set_priors(self, value: Any) -> None:
        self._edges("edge_prior")[:] = value

    player = property(lambda self: int(self.forest.node_player[self.slot, 0]))
    visits = property(lambda self: float(self.forest.node_visits[self.slot, 0]))
    value_sum = property(lambda self: self.forest.node_value[self.slot, 0])
    actions = property(lambda self: self._edges("edge_action").tolist())
    priors = property(lambda self: self._edges("edge_prior"), _set_priors)
    child_visits = property(lambda self: self._edges("edge_visits"))
    child_values = property(lambda self: self._edges("edge_value"))

    def visit_counts(self, num_actions: int) -> np.ndarray:
        """Visits per action over the whole action space (0 for illegal actions)."""
        counts = np.zeros(num_actions)
        counts[self.actions] = self.child_visits
        return counts

    def final_move(self) -> int:
        """The move a search plays: the most visited root action (ties to the first)."""
        return int(self.actions[int(np.argmax(self.child_visits))])
