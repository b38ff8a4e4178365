"""The search trees of batched self-play as arrays: one PUCT tree per game slot.

A :class:`Forest` holds the trees of ``slots`` games in NumPy arrays (nodes and edges per
slot, grown when a tree needs more room). Three kernels work on all the games of a step
at once: :func:`descend` (each game selects ``argmax Q + U`` from its root down to a new
leaf; a finished position met on the way is backed up at once), :func:`expand` (the new
leaves become nodes with their legal actions and priors) and :func:`backup` (each leaf's
value is added along its path).

A game may descend several times in one step. Until its value is backed up, a new leaf
is *pending*: every edge of its path carries a virtual loss (``edge_pending``: one more
visit that counts as a loss for the seat choosing it, as in
:class:`~tabletop_zoo.baselines.agents.puct.PUCTSearch`'s batches), which steers the
game's next descents elsewhere; a descent ending on a pending leaf is a collision and
changes nothing. With no leaf pending the selection is the one without virtual loss, bit
for bit.

The kernels are plain Python over arrays. With the fast path
(:func:`~tabletop_zoo.envs.registry.fast_path_available`) they are compiled by numba
(``envs.fast_common.jit``); otherwise they run as written. They do the same IEEE
floating-point operations in the same order either way, so the trees, and the games
played from them, are the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["Forest", "Paths", "RootView", "backup", "descend", "expand", "kernels", "segments"]


def descend(
    node_player, node_visits, node_value, node_edges, node_terminal, node_result,
    edge_action, edge_prior, edge_visits, edge_value, edge_child, edge_pending,
    slots, first, c_puct, out_edges, out_actions, out_length, out_status,
):  # fmt: skip  # noqa: ANN001, ANN201 - a kernel (numba or Python)
    """From the root of each game ``slots[i]`` select down to a new leaf.

    ``first[i] >= 0`` forces the root child (an index among the root's edges). Writes the
    path's edges and actions (``out_edges[i, :out_length[i]]``) and ``out_status[i]``: 0
    the last edge has no child yet (a new leaf, now pending: its path carries a virtual
    loss), 1 it leads to a finished position, whose value was backed up here, 2 it is a
    pending leaf (a collision: nothing changed). ``node_edges[s, v]`` is ``(first edge,
    count)``."""
    for i in range(slots.shape[0]):
        s = slots[i]
        node = 0
        depth = 0
        while True:
            start = node_edges[s, node, 0]
            count = node_edges[s, node, 1]
            if depth == 0 and first[i] >= 0:
                best = start + first[i]
            else:
                seat = node_player[s, node]
                total = 0.0
                for e in range(start, start + count):
                    total += edge_visits[s, e] + edge_pending[s, e]
                parent_q = 0.0
                if node_visits[s, node] > 0:
                    parent_q = node_value[s, node, seat] / node_visits[s, node]
                scale = c_puct * math.sqrt(total + 1.0)
                best = -1
                best_score = 0.0
                for e in range(start, start + count):
                    visits = edge_visits[s, e] + edge_pending[s, e]
                    q = parent_q
                    if visits > 0:
                        q = (edge_value[s, e, seat] - edge_pending[s, e]) / visits
                    score = q + scale * edge_prior[s, e] / (1.0 + visits)
                    if best < 0 or score > best_score:
                        best = e
                        best_score = score
            out_edges[i, depth] = best
            out_actions[i, depth] = edge_action[s, best]
            depth += 1
            child = edge_child[s, best]
            if child < 0:
                if edge_pending[s, best] > 0:
                    out_status[i] = 2  # a collision
                else:
                    out_status[i] = 0
                    for d in range(depth):
                        edge_pending[s, out_edges[i, d]] += 1.0
                break
            if node_terminal[s, child]:
                out_status[i] = 1
                n = node_value.shape[2]
                node = 0
                for d in range(depth):
                    e = out_edges[i, d]
                    edge_visits[s, e] += 1.0
                    node_visits[s, node] += 1.0
                    for k in range(n):
                        edge_value[s, e, k] += node_result[s, child, k]
                        node_value[s, node, k] += node_result[s, child, k]
                    node = edge_child[s, e]
                node_visits[s, child] += 1.0
                for k in range(n):
                    node_value[s, child, k] += node_result[s, child, k]
                break
            node = child
        out_length[i] = depth


def expand(
    node_player, node_visits, node_value, node_edges, node_terminal, node_result,
    edge_action, edge_prior, edge_visits, edge_value, edge_child, edge_pending,
    node_count, edge_count, slots, parent_edge, players, results, starts, actions, priors,
):  # fmt: skip  # noqa: ANN001, ANN201 - a kernel (numba or Python)
    """Add one node per entry ``i``: in tree ``slots[i]``, the child of edge
    ``parent_edge[i]`` (-1: the root of a fresh tree), seat to act ``players[i]`` (-1:
    finished, value ``results[i]``), edges ``actions[starts[i]:starts[i + 1]]`` with
    ``priors`` alike. The caller made room (:meth:`Forest.reserve`)."""
    n = node_value.shape[2]
    for i in range(slots.shape[0]):
        s = slots[i]
        node = node_count[s]
        node_count[s] += 1
        if parent_edge[i] >= 0:
            edge_child[s, parent_edge[i]] = node
        node_player[s, node] = players[i]
        node_visits[s, node] = 0.0
        node_terminal[s, node] = players[i] < 0
        for k in range(n):
            node_value[s, node, k] = 0.0
            node_result[s, node, k] = results[i, k]
        first = edge_count[s]
        count = starts[i + 1] - starts[i]
        node_edges[s, node, 0] = first
        node_edges[s, node, 1] = count
        for j in range(count):
            e = first + j
            edge_action[s, e] = actions[starts[i] + j]
            edge_prior[s, e] = priors[starts[i] + j]
            edge_visits[s, e] = 0.0
            edge_child[s, e] = -1
            edge_pending[s, e] = 0.0
            for k in range(n):
                edge_value[s, e, k] = 0.0
        edge_count[s] += count


def backup(
    node_visits, node_value, edge_visits, edge_value, edge_child, edge_pending,
    slots, path_edges, path_length, values,
):  # fmt: skip  # noqa: ANN001, ANN201 - a kernel (numba or Python)
    """Add ``values[i]`` (every seat) along the path of entry ``i`` and to its leaf (the
    child of the path's last edge); the path's virtual loss is taken back."""
    n = node_value.shape[2]
    for i in range(slots.shape[0]):
        s = slots[i]
        node = 0
        for d in range(path_length[i]):
            e = path_edges[i, d]
            edge_pending[s, e] -= 1.0
            edge_visits[s, e] += 1.0
            node_visits[s, node] += 1.0
            for k in range(n):
                edge_value[s, e, k] += values[i, k]
                node_value[s, node, k] += values[i, k]
            node = edge_child[s, e]
        node_visits[s, node] += 1.0
        for k in range(n):
            node_value[s, node, k] += values[i, k]


_COMPILED: list[SimpleNamespace] = []
_PYTHON = SimpleNamespace(descend=descend, expand=expand, backup=backup)


def kernels(compiled: bool) -> SimpleNamespace:
    """The kernels, compiled by numba (``compiled``; imports numba) or as written."""
    if not compiled:
        return _PYTHON
    if not _COMPILED:
        from tabletop_zoo.envs.fast_common import jit

        _COMPILED.append(
            SimpleNamespace(descend=jit(descend), expand=jit(expand), backup=jit(backup))
        )
    return _COMPILED[0]


class Forest:
    """The trees of ``slots`` games of ``num_players`` seats, as arrays (see the module)."""

    def __init__(self, slots: int, num_players: int, nodes: int, edges: int) -> None:
        self.slots, self.n = slots, num_players
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
        return tuple(getattr(self, name) for name in self._NODE)

    def edge_arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(getattr(self, name) for name in self._EDGE)

    def clear(self, slot: int) -> None:
        """Forget the tree of ``slot`` (its next node is a new root)."""
        self.node_count[slot] = self.edge_count[slot] = 0

    def reserve(self, slots: np.ndarray, counts: np.ndarray) -> None:
        """Room for one more node in each tree ``slots[i]`` with ``counts[i]`` edges."""
        nodes = np.bincount(slots, minlength=self.slots) + self.node_count
        edges = np.bincount(slots, weights=counts, minlength=self.slots) + self.edge_count
        self._grow(self._NODE, int(nodes.max()))
        self._grow(self._EDGE, int(edges.max()))

    def _grow(self, names: tuple[str, ...], needed: int) -> None:
        size = getattr(self, names[0]).shape[1]
        if needed <= size:
            return
        new_size = max(needed, 2 * size)
        for name in names:
            old = getattr(self, name)
            fill = -1 if name == "edge_child" else 0
            grown = np.full((old.shape[0], new_size, *old.shape[2:]), fill, dtype=old.dtype)
            grown[:, :size] = old
            setattr(self, name, grown)


class RootView:
    """The root of one tree with the attributes of a
    :class:`~tabletop_zoo.baselines.agents.puct.PUCTNode` that
    :class:`~tabletop_zoo.baselines.agents.puct.GumbelHalving` and the move choice read
    (fresh views of the forest's arrays on every access)."""

    def __init__(self, forest: Forest, slot: int) -> None:
        self.forest, self.slot = forest, slot

    def _edges(self) -> slice:
        first, count = self.forest.node_edges[self.slot, 0]
        return slice(int(first), int(first + count))

    @property
    def player(self) -> int:
        return int(self.forest.node_player[self.slot, 0])

    @property
    def visits(self) -> float:
        return float(self.forest.node_visits[self.slot, 0])

    @property
    def value_sum(self) -> np.ndarray:
        return self.forest.node_value[self.slot, 0]

    @property
    def actions(self) -> np.ndarray:
        return self.forest.edge_action[self.slot, self._edges()]

    @property
    def priors(self) -> np.ndarray:
        return self.forest.edge_prior[self.slot, self._edges()]

    @priors.setter
    def priors(self, value: Any) -> None:
        self.forest.edge_prior[self.slot, self._edges()] = value

    @property
    def child_visits(self) -> np.ndarray:
        return self.forest.edge_visits[self.slot, self._edges()]

    @property
    def child_values(self) -> np.ndarray:
        return self.forest.edge_value[self.slot, self._edges()]


def segments(starts: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments ``[starts[i], starts[i + 1])`` of a flat array: the positions of the
    segments ``rows`` (in that order) end to end, and where each begins among them."""
    counts = starts[rows + 1] - starts[rows]
    begins = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=begins[1:])
    return np.repeat(starts[rows] - begins[:-1], counts) + np.arange(begins[-1]), begins


@dataclass
class Paths:
    """The entries of one step: a game's slot and the edges and actions of its path from
    the root (``lengths`` 0: the game asks for its root position), by slot."""

    slots: np.ndarray
    edges: np.ndarray
    actions: np.ndarray
    lengths: np.ndarray

    @staticmethod
    def empty(width: int) -> Paths:
        """No entries, paths ``width`` long."""
        none, grid = np.zeros(0, dtype=np.int64), np.zeros((0, width), dtype=np.int64)
        return Paths(none, grid, grid, none)

    @staticmethod
    def joined(parts: list[Paths]) -> Paths:
        """The entries of ``parts`` by slot (a stable order: each slot's in part order)."""
        slots = np.concatenate([p.slots for p in parts])
        order = np.argsort(slots, kind="stable")
        return Paths(
            slots[order],
            np.concatenate([p.edges for p in parts])[order],
            np.concatenate([p.actions for p in parts])[order],
            np.concatenate([p.lengths for p in parts])[order],
        )

    def with_roots(self, roots: list[int]) -> Paths:
        """These entries and one root request per slot of ``roots``."""
        grid = np.zeros((len(roots), self.edges.shape[1]), dtype=np.int64)
        lengths = np.zeros(len(roots), dtype=np.int64)
        return Paths.joined([self, Paths(np.array(roots, dtype=np.int64), grid, grid, lengths)])
