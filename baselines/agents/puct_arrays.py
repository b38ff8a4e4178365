"""The PUCT search of :class:`~.puct.PUCTSearch` with its tree as arrays, for positions of
the compiled engine (the ``fast`` extra; this module loads numba).

:meth:`PUCTSearch.run <.puct.PUCTSearch.run>` hands a compiled position here. The tree's
statistics live in NumPy arrays (nodes and edges) and numba kernels do the per-leaf
work that dominates a search in Python: :func:`select_path` (``argmax Q + U`` from the
root down to a new leaf, with the virtual loss of each step) and :func:`backup_path`. The
positions, the network calls and the batching stay in Python, as in the node search.

It is the node search step for step: the same floating-point operations in the same order
(``U = c_puct * P * sqrt(N + 1) / (1 + n)``; virtual loss ``-1`` taken back after the
values are added; ties to the first child), the same batches, collisions and finished
positions, so it returns the same visit counts (tested against the node search on the
same compiled positions), in a fraction of the time.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

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
    """Node and edge arrays with room for ``nodes`` nodes (edges grow on demand)."""

    def __init__(self, nodes: int, edges: int, num_players: int) -> None:
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
        self.path_nodes = np.zeros(nodes, dtype=np.int64)  # a path visits each node once
        self.path_edges = np.zeros(nodes, dtype=np.int64)
        self.batch_nodes = self.batch_edges = np.zeros((0, nodes), dtype=np.int64)
        self.nodes, self.edges = 0, 0

    def batch_paths(self, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Path buffers (nodes, edges) for ``batch_size`` descents of one batch."""
        if len(self.batch_nodes) < batch_size:
            shape = (batch_size, len(self.node_player))
            self.batch_nodes = np.zeros(shape, dtype=np.int64)
            self.batch_edges = np.zeros(shape, dtype=np.int64)
        return self.batch_nodes, self.batch_edges

    def add_node(self, player: int) -> int:
        """A new node (not yet evaluated) of seat ``player``."""
        node = self.nodes
        self.nodes += 1
        self.node_player[node] = player
        return node

    def expand(self, node: int, actions: list[int], priors: np.ndarray) -> None:
        """Give ``node`` its edges (``PUCTNode.expand``)."""
        first, count = self.edges, len(actions)
        if first + count > len(self.edge_prior):
            self._grow(2 * (first + count))
        self.edge_action[first : first + count] = actions
        self.edge_prior[first : first + count] = np.asarray(priors, dtype=np.float64)
        self.node_edges[node] = first, count
        self.node_status[node] = EXPANDED
        self.edges += count

    def _grow(self, size: int) -> None:
        for name in ("edge_prior", "edge_visits", "edge_value", "edge_child", "edge_action"):
            old = getattr(self, name)
            new = np.full((size, *old.shape[1:]), -1 if name == "edge_child" else 0, old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def select(self, c_puct: float) -> tuple[np.ndarray, np.ndarray, int]:
        """:func:`select_path` on this tree: the path's nodes and edges (copies) and what
        it reached."""
        length, reached = select_path(
            self.node_player, self.node_visits, self.node_value, self.node_edges,
            self.node_status, self.node_result, self.edge_prior, self.edge_visits,
            self.edge_value, self.edge_child, c_puct, self.path_nodes, self.path_edges,
        )  # fmt: skip
        return self.path_nodes[:length].copy(), self.path_edges[:length].copy(), reached

    def backup(self, nodes: np.ndarray, edges: np.ndarray, leaf: int, values: Any) -> None:
        """:func:`backup_path` of ``values`` along the path ``nodes``/``edges`` to ``leaf``."""
        values = np.asarray(values, dtype=np.float64)
        backup_path(
            self.node_player, self.node_visits, self.node_value, self.edge_value, nodes, edges,
            len(nodes), leaf, values,
        )  # fmt: skip

    def undo(self, nodes: np.ndarray, edges: np.ndarray) -> None:
        """:func:`undo_path` of an abandoned descent."""
        undo_path(self.node_player, self.edge_value, self.edge_visits, nodes, edges, len(nodes))


def run_on_arrays(search: PUCTSearch, state: Any) -> ArrayRoot:
    """:meth:`PUCTSearch.run <.puct.PUCTSearch.run>` on a non-finished compiled position
    (not changed), the tree as arrays; returns its root."""
    tree = _Tree(
        search.num_simulations + 1, 16 * (search.num_simulations + 1), len(state.returns())
    )
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
    done = 0
    if hasattr(search.evaluate, "evaluate_planes"):  # the network agent's evaluator
        rows = np.empty((len(tree.node_player), len(state.row)), dtype=np.int64)
        rows[0] = state.row  # the position of each node
        holder = state.clone()
        while done < search.num_simulations:
            done += _simulate_rows(search, tree, rows, holder, search.num_simulations - done)
    else:
        positions = [state]  # the position of each node
        while done < search.num_simulations:
            done += _simulate_batch(search, tree, positions, search.num_simulations - done)
    return ArrayRoot(state.current_player, tree.edge_action[:count], root_priors, tree)


def _simulate_batch(search: PUCTSearch, tree: _Tree, positions: list[Any], budget: int) -> int:
    """``PUCTSearch._simulate_batch`` on the arrays: up to ``min(batch_size, budget)``
    descents, the new leaves evaluated together; returns how many were completed."""
    pending: list[tuple[np.ndarray, np.ndarray, int, Any]] = []
    finished = 0
    for _ in range(min(search.batch_size, budget)):
        *path, reached = tree.select(search.c_puct)
        if reached == FINISHED_LEAF:
            finished += 1
            continue
        if reached == COLLISION:
            tree.undo(*path)
            break
        position = positions[int(path[0][-1])].clone()
        position.apply_action(int(tree.edge_action[path[1][-1]]))
        leaf = tree.add_node(position.current_player)
        positions.append(position)
        tree.edge_child[path[1][-1]] = leaf
        if position.is_terminal():
            tree.node_result[leaf] = np.asarray(search.terminal_value(position), np.float64)
            tree.node_status[leaf] = FINISHED
            tree.backup(*path, leaf, tree.node_result[leaf])
            finished += 1
        else:
            pending.append((*path, leaf, position))
    if pending:
        priors, values = search.evaluate([position for *_, position in pending])
        for (*path, leaf, position), leaf_priors, leaf_values in zip(
            pending, priors, values, strict=True
        ):
            tree.expand(leaf, position.legal_actions(), leaf_priors)
            tree.backup(*path, leaf, leaf_values)
    if not pending and not finished:
        raise RuntimeError("PUCT search made no progress")
    return len(pending) + finished


def _simulate_rows(
    search: PUCTSearch, tree: _Tree, rows: np.ndarray, holder: Any, budget: int
) -> int:
    """:func:`_simulate_batch` with the positions as rows of the compiled engine
    (``rows[node]``), for an evaluator with ``evaluate_planes``: the new leaves' legal
    actions and planes come from batched engine calls, and :func:`expand_and_backup`
    gives them their edges and values in one call (the order of the node search).
    ``holder``: a compiled state object whose row is pointed at the leaf being stepped."""
    engine = holder.engine
    column = engine.player_column
    path_nodes, path_edges = tree.batch_paths(search.batch_size)
    leaves: list[int] = []
    lengths: list[int] = []
    finished = 0
    for _ in range(min(search.batch_size, budget)):
        b = len(leaves)
        length, reached = select_path(
            tree.node_player, tree.node_visits, tree.node_value, tree.node_edges,
            tree.node_status, tree.node_result, tree.edge_prior, tree.edge_visits,
            tree.edge_value, tree.edge_child, search.c_puct, path_nodes[b], path_edges[b],
        )  # fmt: skip
        if reached == FINISHED_LEAF:
            finished += 1
            continue
        if reached == COLLISION:
            undo_path(tree.node_player, tree.edge_value, tree.edge_visits, path_nodes[b],
                      path_edges[b], length)  # fmt: skip
            break
        edge = path_edges[b, length - 1]
        leaf = tree.nodes
        rows[leaf] = rows[path_nodes[b, length - 1]]
        holder.row = rows[leaf]
        holder._apply_checked(int(tree.edge_action[edge]))  # legal: an edge of the tree
        player = int(rows[leaf, column])
        tree.add_node(player)
        tree.edge_child[edge] = leaf
        if player < 0:
            tree.node_result[leaf] = np.asarray(search.terminal_value(holder), np.float64)
            tree.node_status[leaf] = FINISHED
            tree.backup(path_nodes[b, :length], path_edges[b, :length], leaf,
                        tree.node_result[leaf])  # fmt: skip
            finished += 1
        else:
            leaves.append(leaf)
            lengths.append(length)
    if leaves:
        leaf_rows = rows[leaves]
        seats = leaf_rows[:, column].copy()
        which, actions = np.nonzero(engine._legal_mask(leaf_rows))  # ascending per leaf
        starts = np.zeros(len(leaves) + 1, dtype=np.int64)
        np.cumsum(np.bincount(which, minlength=len(leaves)), out=starts[1:])
        priors, values = search.evaluate.evaluate_planes(
            engine._observe(leaf_rows, seats), actions, starts, seats
        )
        if tree.edges + len(actions) > len(tree.edge_prior):
            tree._grow(2 * (tree.edges + len(actions)))
        tree.edges = expand_and_backup(
            tree.node_player, tree.node_visits, tree.node_value, tree.node_edges,
            tree.node_status, tree.edge_value, tree.edge_action, tree.edge_prior, tree.edges,
            np.array(leaves, dtype=np.int64), path_nodes, path_edges,
            np.array(lengths, dtype=np.int64), actions, starts, priors, values,
        )  # fmt: skip
    if not leaves and not finished:
        raise RuntimeError("PUCT search made no progress")
    return len(leaves) + finished
