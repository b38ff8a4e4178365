"""The PUCT search with its tree as Python nodes: the readable form of the one search
(``baselines/agents/tree.py``), kept as the test oracle that search is held to, visit for
visit (``test_puct_tree.py``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.positions import positions_of
from tabletop_zoo.baselines.agents.puct import Evaluator, GumbelHalving, PUCTSearch

__all__ = ["NodeSearch", "PUCTNode", "evaluate_states", "on_states"]


def on_states(evaluate: Any) -> Evaluator:
    """The search's evaluator of ``evaluate(states) -> (priors, values)``: a probability per
    entry of each state's ``legal_actions()`` and every seat's value, per state."""

    def evaluate_leaves(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        priors, values = evaluate(leaves.states())
        return np.concatenate(priors), np.asarray(values, dtype=np.float64)

    return evaluate_leaves


def evaluate_states(evaluate: Evaluator, states: list[Any]) -> tuple[list[np.ndarray], Any]:
    """``evaluate`` of the positions ``states`` (rules-engine or compiled states, all of one
    kind): the priors of each (in ``legal_actions()`` order) and the values."""
    positions = positions_of(states[0], len(states), None)
    for slot, state in enumerate(states):
        positions.start(slot, state)
    leaves = positions.roots(np.arange(len(states)))
    priors, values = evaluate(leaves)
    return np.split(np.asarray(priors, np.float64), leaves.starts[1:-1]), values


class PUCTNode:
    """A position in the tree; edge statistics of its children are kept in arrays."""

    __slots__ = (
        "player",
        "actions",
        "priors",
        "child_visits",
        "child_values",
        "children",
        "visits",
        "value_sum",
        "terminal_values",
    )

    def __init__(self, player: int, num_players: int) -> None:
        self.player = player  # seat to act (-1 when terminal)
        self.actions: list[int] = []
        self.priors = np.zeros(0)
        self.child_visits = np.zeros(0)
        self.child_values = np.zeros((0, num_players))  # summed values per seat per child
        self.children: list[PUCTNode | None] = []
        self.visits = 0
        self.value_sum = np.zeros(num_players)
        self.terminal_values: np.ndarray | None = None

    @property
    def expanded(self) -> bool:
        """True once the node has its actions and priors (or is terminal)."""
        return bool(self.actions) or self.terminal_values is not None

    def expand(self, actions: Sequence[int], priors: np.ndarray) -> None:
        """Give the node its legal actions and their prior probabilities."""
        self.actions = list(actions)
        self.priors = np.asarray(priors, dtype=np.float64)
        self.child_visits = np.zeros(len(self.actions))
        self.child_values = np.zeros((len(self.actions), len(self.value_sum)))
        self.children = [None] * len(self.actions)

    def visit_counts(self, num_actions: int) -> np.ndarray:
        """Visits per action over the whole action space (0 for illegal actions)."""
        counts = np.zeros(num_actions)
        counts[self.actions] = self.child_visits
        return counts


class NodeSearch:
    """A :class:`PUCTSearch`'s settings and generator searched with a node tree."""

    def __init__(self, search: PUCTSearch) -> None:
        self.evaluate, self.num_simulations = search.evaluate, search.num_simulations
        self.c_puct, self.batch_size = search.c_puct, search.batch_size
        self.dirichlet_alpha, self.noise_fraction = search.dirichlet_alpha, search.noise_fraction
        self.rng, self.terminal_value = search.rng, search.terminal_value

    def run(self, state: Any) -> PUCTNode:
        """``PUCTSearch.run`` with the tree as Python nodes."""
        num_players = len(state.returns())
        root = PUCTNode(state.current_player, num_players)
        if state.is_terminal():
            root.terminal_values = np.asarray(self.terminal_value(state), dtype=np.float64)
            return root
        priors, values = evaluate_states(self.evaluate, [state])
        root.expand(state.legal_actions(), priors[0])
        root.visits, root.value_sum = 1, np.asarray(values[0], dtype=np.float64).copy()
        if self.dirichlet_alpha is not None and len(root.actions) > 1:
            noise = self.rng.dirichlet([self.dirichlet_alpha] * len(root.actions))
            root.priors = (1 - self.noise_fraction) * root.priors + self.noise_fraction * noise
        done = 0
        while done < self.num_simulations:
            done += self._simulate_batch(root, state, self.num_simulations - done)
        return root

    def run_gumbel(self, state: Any, num_considered: int = 16) -> tuple[PUCTNode, int, np.ndarray]:
        """``PUCTSearch.run_gumbel`` with the tree as Python nodes."""
        if state.is_terminal():
            raise ValueError("run_gumbel needs a position with a move to make")
        root = PUCTNode(state.current_player, len(state.returns()))
        priors, values = evaluate_states(self.evaluate, [state])
        root.expand(state.legal_actions(), priors[0])
        root.visits, root.value_sum = 1, np.asarray(values[0], dtype=np.float64).copy()
        halving = GumbelHalving(root, self.rng, self.num_simulations, num_considered)
        while (forced := halving.next_phase()) is not None:
            done = 0
            while done < len(forced):
                done += self._simulate_batch(root, state, len(forced) - done, forced[done:])
        chosen, improved = halving.result()
        return root, chosen, improved

    def _select(self, node: PUCTNode) -> int:
        """Index of the child the seat to act at ``node`` explores next."""
        seat = node.player
        visits = node.child_visits
        parent_q = node.value_sum[seat] / node.visits if node.visits else 0.0
        q = np.where(visits > 0, node.child_values[:, seat] / np.maximum(visits, 1), parent_q)
        u = self.c_puct * node.priors * math.sqrt(visits.sum() + 1) / (1 + visits)
        return int(np.argmax(q + u))

    def _simulate_batch(
        self, root: PUCTNode, state: Any, budget: int, forced: Sequence[int] | None = None
    ) -> int:
        """Descend up to ``min(batch_size, budget)`` times; evaluate the new leaves together.

        ``forced[k]``: the root child (an index into ``root.actions``) descent ``k`` takes,
        below which it selects as usual; returns how many descents were completed (they
        are the first ones: a collision stops the batch)."""
        pending: list[tuple[list[tuple[PUCTNode, int]], PUCTNode, Any]] = []
        finished = 0
        for descent in range(min(self.batch_size, budget)):
            path: list[tuple[PUCTNode, int]] = []
            node, sim = root, state.clone()
            while True:
                if forced is not None and node is root:
                    index = forced[descent]
                else:
                    index = self._select(node)
                path.append((node, index))
                node.child_visits[index] += 1  # virtual loss until the value is backed up
                node.child_values[index, node.player] -= 1.0
                child = node.children[index]
                if child is None:
                    sim.apply_action(node.actions[index])
                    child = PUCTNode(sim.current_player, len(node.value_sum))
                    node.children[index] = child
                    if sim.is_terminal():
                        child.terminal_values = np.asarray(
                            self.terminal_value(sim), dtype=np.float64
                        )
                    break
                sim.apply_action(node.actions[index])
                node = child
                if not node.expanded:  # another descent of this batch is evaluating it
                    break
                if node.terminal_values is not None:
                    child = node
                    break
            if child.terminal_values is not None:
                self._backup(path, child, child.terminal_values)
                finished += 1
            elif any(child is leaf for _, leaf, _ in pending):
                self._undo(path)  # a collision: stop collecting, evaluate what we have
                break
            else:
                pending.append((path, child, sim))
        if pending:
            priors, values = evaluate_states(self.evaluate, [sim for _, _, sim in pending])
            for (path, leaf, sim), leaf_priors, leaf_values in zip(
                pending, priors, values, strict=True
            ):
                leaf.expand(sim.legal_actions(), leaf_priors)
                self._backup(path, leaf, np.asarray(leaf_values, dtype=np.float64))
        if not pending and not finished:  # only collisions: cannot happen at batch start
            raise RuntimeError("PUCT search made no progress")
        return len(pending) + finished

    @staticmethod
    def _backup(path: list[tuple[PUCTNode, int]], leaf: PUCTNode, values: np.ndarray) -> None:
        """Add ``values`` along ``path`` and take the virtual losses back."""
        leaf.visits += 1
        leaf.value_sum += values
        for node, index in path:
            node.child_values[index] += values
            node.child_values[index, node.player] += 1.0
            node.visits += 1
            node.value_sum += values

    @staticmethod
    def _undo(path: list[tuple[PUCTNode, int]]) -> None:
        """Remove the virtual loss of an abandoned descent."""
        for node, index in path:
            node.child_visits[index] -= 1
            node.child_values[index, node.player] += 1.0
