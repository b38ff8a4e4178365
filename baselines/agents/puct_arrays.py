"""The PUCT search of :class:`~.puct.PUCTSearch` with its tree as arrays, for positions of
the compiled engine (the ``fast`` extra; this module loads numba).

:meth:`PUCTSearch.run <.puct.PUCTSearch.run>` hands a compiled position here. The tree's
statistics live in NumPy arrays (nodes and edges) and numba kernels do the per-leaf
work that dominates a search in Python: :func:`select_path` (``argmax Q + U`` from the
root down to a new leaf, with the virtual loss of each step), :func:`backup_path` and
:func:`expand_and_backup`. Every node's position is a row of one array; the new leaves of
a batch get their legal actions (and, for the AlphaZero agent's evaluator, their planes)
from batched engine calls; the batching stays in Python, as in the node search.

It is the node search step for step: the same floating-point operations in the same order
(``U = c_puct * P * sqrt(N + 1) / (1 + n)``; virtual loss ``-1`` taken back after the
values are added; ties to the first child), the same batches, collisions and finished
positions, so it returns the same visit counts (tested against the node search on the
same compiled positions), in a fraction of the time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_zoo.baselines.agents.dense_rows import mask_columns
from tabletop_zoo.envs.fast_common import jit

if TYPE_CHECKING:
    from tabletop_zoo.baselines.agents.puct import PUCTSearch

__all__ = [
    "ArrayRoot",
    "backup_path",
    "expand_and_backup",
    "run_on_arrays",
    "select_path",
    "undo_path",
]

NEW, EXPANDED, FINISHED = 0, 1, 2  # node status: not yet evaluated, has edges, game over
NEW_LEAF, COLLISION, FINISHED_LEAF = 0, 1, 2  # what select_path reached


@jit
def backup_path(
    node_player, node_visits, node_value, edge_value, path_nodes, path_edges, length, leaf,
    values,
):  # fmt: skip  # noqa: ANN001, ANN201 - a numba kernel
    """``PUCTSearch._backup``: add ``values`` to ``leaf`` and along the path, and take back
    each step's virtual loss (after the values, as the node search does)."""
    n = values.shape[0]
    node_visits[leaf] += 1.0
    for k in range(n):
        node_value[leaf, k] += values[k]
    for d in range(length):
        node, edge = path_nodes[d], path_edges[d]
        for k in range(n):
            edge_value[edge, k] += values[k]
        edge_value[edge, node_player[node]] += 1.0
        node_visits[node] += 1.0
        for k in range(n):
            node_value[node, k] += values[k]


@jit
def undo_path(node_player, edge_value, edge_visits, path_nodes, path_edges, length):  # noqa: ANN001, ANN201
    """``PUCTSearch._undo``: remove the virtual loss of an abandoned descent."""
    for d in range(length):
        node, edge = path_nodes[d], path_edges[d]
        edge_visits[edge] -= 1.0
        edge_value[edge, node_player[node]] += 1.0


@jit
def select_path(
    node_player, node_visits, node_value, node_edges, node_status, node_result,
    edge_prior, edge_visits, edge_value, edge_child, c_puct, path_nodes, path_edges,
):  # fmt: skip  # noqa: ANN001, ANN201 - a numba kernel
    """One descent of ``PUCTSearch._simulate_batch`` from the root (node 0).

    Writes the path (``path_nodes``/``path_edges``) and returns ``(length, reached)``:
    :data:`NEW_LEAF` the last edge has no child yet; :data:`COLLISION` it leads to a leaf
    of this batch still waiting for its value; :data:`FINISHED_LEAF` it leads to a finished
    position, whose value is backed up here. Each step adds its virtual loss."""
    node = 0
    length = 0
    while True:
        seat = node_player[node]
        start, count = node_edges[node, 0], node_edges[node, 1]
        total = 0.0
        for e in range(start, start + count):
            total += edge_visits[e]
        parent_q = 0.0
        if node_visits[node] != 0.0:
            parent_q = node_value[node, seat] / node_visits[node]
        root_n = math.sqrt(total + 1.0)
        best, best_score = -1, 0.0
        for e in range(start, start + count):
            visits = edge_visits[e]
            q = parent_q
            if visits > 0.0:
                q = edge_value[e, seat] / max(visits, 1.0)
            score = q + c_puct * edge_prior[e] * root_n / (1.0 + visits)
            if best < 0 or score > best_score:
                best, best_score = e, score
        path_nodes[length], path_edges[length] = node, best
        length += 1
        edge_visits[best] += 1.0
        edge_value[best, seat] -= 1.0
        child = edge_child[best]
        if child < 0:
            return length, NEW_LEAF
        if node_status[child] == NEW:
            return length, COLLISION
        if node_status[child] == FINISHED:
            backup_path(
                node_player, node_visits, node_value, edge_value, path_nodes, path_edges,
                length, child, node_result[child],
            )  # fmt: skip
            return length, FINISHED_LEAF
        node = child


@jit
def expand_and_backup(
    node_player, node_visits, node_value, node_edges, node_status, edge_value, edge_action,
    edge_prior, first_edge, leaves, path_nodes, path_edges, lengths, actions, starts,
    priors, values,
):  # fmt: skip  # noqa: ANN001, ANN201 - a numba kernel
    """For each new leaf ``leaves[i]`` in turn, ``_Tree.expand`` (its edges: the actions
    ``actions[starts[i]:starts[i + 1]]`` with their ``priors``, from edge ``first_edge``
    on) and then :func:`backup_path` of ``values[i]`` along path ``i``; returns the next
    free edge."""
    edge = first_edge
    for i in range(leaves.shape[0]):
        leaf, first, last = leaves[i], starts[i], starts[i + 1]
        node_edges[leaf, 0] = edge
        node_edges[leaf, 1] = last - first
        for c in range(first, last):
            edge_action[edge + c - first] = actions[c]
            edge_prior[edge + c - first] = priors[c]
        node_status[leaf] = EXPANDED
        edge += last - first
        backup_path(
            node_player, node_visits, node_value, edge_value, path_nodes[i], path_edges[i],
            lengths[i], leaf, values[i],
        )  # fmt: skip
    return edge


class ArrayRoot:
    """The root after a search: what :class:`~.puct.PUCTNode` offers of it (actions,
    priors, visit counts and summed values per child)."""

    def __init__(self, player: int, actions: np.ndarray, priors: np.ndarray, tree: _Tree) -> None:
        count = len(actions)
        self.player = player
        self.actions = [int(a) for a in actions]
        self.priors = priors
        self.child_visits = tree.edge_visits[:count].copy()
        self.child_values = tree.edge_value[:count].copy()
        self.visits = int(tree.node_visits[0])
        self.value_sum = tree.node_value[0].copy()
        self.terminal_values: np.ndarray | None = None

    def visit_counts(self, num_actions: int) -> np.ndarray:
        """Visits per action over the whole action space (0 for illegal actions)."""
        counts = np.zeros(num_actions)
        counts[self.actions] = self.child_visits
        return counts


class _Tree:
    """Node and edge arrays with room for ``nodes`` nodes (edges grow on demand), and the
    paths of up to ``batch_size`` descents of one batch."""

    def __init__(self, nodes: int, edges: int, num_players: int, batch_size: int) -> None:
        self.node_player = np.zeros(nodes, dtype=np.int64)
        self.node_visits = np.zeros(nodes)
        self.node_value = np.zeros((nodes, num_players))
        self.node_edges = np.zeros((nodes, 2), dtype=np.int64)
        self.node_status = np.zeros(nodes, dtype=np.int64)
        self.node_result = np.zeros((nodes, num_players))
        self.edge_prior = np.zeros(edges)
        self.edge_visits = np.zeros(edges)
        self.edge_value = np.zeros((edges, num_players))
        self.edge_child = np.full(edges, -1, dtype=np.int64)
        self.edge_action = np.zeros(edges, dtype=np.int64)
        # descent b's path: a path visits each node once
        self.path_nodes = np.zeros((batch_size, nodes), dtype=np.int64)
        self.path_edges = np.zeros((batch_size, nodes), dtype=np.int64)
        self.nodes, self.edges = 0, 0

    def add_node(self, player: int) -> int:
        """A new node (not yet evaluated) of seat ``player``."""
        node = self.nodes
        self.nodes += 1
        self.node_player[node] = player
        return node

    def expand(self, node: int, actions: list[int], priors: np.ndarray) -> None:
        """Give ``node`` its edges (``PUCTNode.expand``)."""
        first, count = self.edges, len(actions)
        self.reserve(count)
        self.edge_action[first : first + count] = actions
        self.edge_prior[first : first + count] = np.asarray(priors, dtype=np.float64)
        self.node_edges[node] = first, count
        self.node_status[node] = EXPANDED
        self.edges += count

    def reserve(self, count: int) -> None:
        """Room for ``count`` more edges."""
        size = self.edges + count
        if size <= len(self.edge_prior):
            return
        for name in ("edge_prior", "edge_visits", "edge_value", "edge_child", "edge_action"):
            old = getattr(self, name)
            new = np.full((2 * size, *old.shape[1:]), -1 if name == "edge_child" else 0, old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def select(self, c_puct: float, b: int) -> tuple[int, int]:
        """:func:`select_path` on this tree into path ``b``: its length and what it
        reached."""
        return select_path(
            self.node_player, self.node_visits, self.node_value, self.node_edges,
            self.node_status, self.node_result, self.edge_prior, self.edge_visits,
            self.edge_value, self.edge_child, c_puct, self.path_nodes[b], self.path_edges[b],
        )  # fmt: skip

    def backup(self, b: int, length: int, leaf: int, values: np.ndarray) -> None:
        """:func:`backup_path` of ``values`` along the first ``length`` steps of path ``b``
        to ``leaf``."""
        backup_path(
            self.node_player, self.node_visits, self.node_value, self.edge_value,
            self.path_nodes[b], self.path_edges[b], length, leaf, values,
        )  # fmt: skip

    def undo(self, b: int, length: int) -> None:
        """:func:`undo_path` of the abandoned descent ``b``."""
        undo_path(self.node_player, self.edge_value, self.edge_visits, self.path_nodes[b],
                  self.path_edges[b], length)  # fmt: skip

    def expand_and_backup(
        self, leaves: list[int], lengths: list[int], actions: np.ndarray, starts: np.ndarray,
        priors: np.ndarray, values: np.ndarray,
    ) -> None:  # fmt: skip
        """:func:`expand_and_backup` of the new leaves of paths ``0 .. len(leaves) - 1``."""
        self.reserve(len(actions))
        self.edges = expand_and_backup(
            self.node_player, self.node_visits, self.node_value, self.node_edges,
            self.node_status, self.edge_value, self.edge_action, self.edge_prior, self.edges,
            np.array(leaves, dtype=np.int64), self.path_nodes, self.path_edges,
            np.array(lengths, dtype=np.int64), actions, starts,
            np.asarray(priors, dtype=np.float64), np.asarray(values, dtype=np.float64),
        )  # fmt: skip


def run_on_arrays(search: PUCTSearch, state: Any) -> ArrayRoot:
    """:meth:`PUCTSearch.run <.puct.PUCTSearch.run>` on a non-finished compiled position
    (not changed), the tree as arrays; returns its root."""
    nodes = search.num_simulations + 1
    tree = _Tree(nodes, 16 * nodes, len(state.returns()), search.batch_size)
    root = tree.add_node(state.current_player)
    priors, values = search.evaluate([state])
    tree.expand(root, state.legal_actions(), priors[0])
    tree.node_visits[root] = 1.0
    tree.node_value[root] = np.asarray(values[0], dtype=np.float64)
    count = int(tree.node_edges[root, 1])
    if search.dirichlet_alpha is not None and count > 1:
        noise = search.rng.dirichlet([search.dirichlet_alpha] * count)
        fraction = search.noise_fraction
        tree.edge_prior[:count] = (1 - fraction) * tree.edge_prior[:count] + fraction * noise
    root_priors = tree.edge_prior[:count].copy()
    rows = np.empty((nodes, len(state.row)), dtype=np.int64)
    rows[0] = state.row  # the position of each node
    holder = state.clone()
    evaluate = _leaf_evaluator(search, holder)
    done = 0
    while done < search.num_simulations:
        done += _simulate_batch(search, tree, rows, holder, evaluate, search.num_simulations - done)
    return ArrayRoot(state.current_player, tree.edge_action[:count], root_priors, tree)


LeafEvaluator = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _leaf_evaluator(search: PUCTSearch, holder: Any) -> LeafEvaluator:
    """``(rows, actions, starts) -> (priors, values)`` for new leaves given as compiled rows
    with their legal actions (ascending, end to end): the priors end to end, the values per
    leaf. The AlphaZero agent's evaluator takes the leaves' planes (``evaluate_planes``);
    any other evaluator gets compiled states, as the node search gives it."""
    engine = holder.engine
    column = engine.player_column
    evaluate_planes = getattr(search.evaluate, "evaluate_planes", None)
    if evaluate_planes is not None:

        def from_planes(
            rows: np.ndarray, actions: np.ndarray, starts: np.ndarray
        ) -> tuple[np.ndarray, np.ndarray]:
            seats = rows[:, column].copy()
            return evaluate_planes(engine._observe(rows, seats), actions, starts, seats)

        return from_planes

    def from_states(
        rows: np.ndarray, actions: np.ndarray, starts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        states = [type(holder)(engine, row.copy(), trusted=True) for row in rows]
        priors, values = search.evaluate(states)
        flat = np.concatenate([np.asarray(p, dtype=np.float64) for p in priors])
        return flat, np.asarray(values, dtype=np.float64)

    return from_states


def _simulate_batch(
    search: PUCTSearch, tree: _Tree, rows: np.ndarray, holder: Any, evaluate: LeafEvaluator,
    budget: int,
) -> int:  # fmt: skip
    """``PUCTSearch._simulate_batch`` on the arrays: up to ``min(batch_size, budget)``
    descents, the new leaves evaluated together; returns how many were completed. A leaf's
    row is its parent's row with the edge's move played (``holder``, a compiled state
    object, is pointed at it); the new leaves' legal actions come from one batched engine
    call and :func:`expand_and_backup` gives them their edges and values in one call (the
    order of the node search)."""
    column = holder.engine.player_column
    leaves: list[int] = []
    lengths: list[int] = []
    finished = 0
    for _ in range(min(search.batch_size, budget)):
        b = len(leaves)
        length, reached = tree.select(search.c_puct, b)
        if reached == FINISHED_LEAF:
            finished += 1
            continue
        if reached == COLLISION:
            tree.undo(b, length)
            break
        edge = tree.path_edges[b, length - 1]
        leaf = tree.nodes
        rows[leaf] = rows[tree.path_nodes[b, length - 1]]
        holder.row = rows[leaf]
        holder._apply_checked(int(tree.edge_action[edge]))  # legal: an edge of the tree
        player = int(rows[leaf, column])
        tree.add_node(player)
        tree.edge_child[edge] = leaf
        if player < 0:
            tree.node_result[leaf] = np.asarray(search.terminal_value(holder), np.float64)
            tree.node_status[leaf] = FINISHED
            tree.backup(b, length, leaf, tree.node_result[leaf])
            finished += 1
        else:
            leaves.append(leaf)
            lengths.append(length)
    if leaves:
        leaf_rows = rows[leaves]
        _, actions, starts = mask_columns(holder.engine._legal_mask(leaf_rows))
        priors, values = evaluate(leaf_rows, actions, starts)
        tree.expand_and_backup(leaves, lengths, actions, starts, priors, values)
    if not leaves and not finished:
        raise RuntimeError("PUCT search made no progress")
    return len(leaves) + finished
