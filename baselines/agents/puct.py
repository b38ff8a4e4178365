"""PUCT tree search (AlphaZero-style) over the rules-engine protocol, with batched evaluation.

An *evaluator* values positions in batches: ``evaluate(states) -> (priors, values)``, a
probability per legal action (``legal_actions()`` order) and the expected result of every
seat (absolute seat order, in ``[-1, 1]``). The search collects up to ``batch_size`` new
leaves with virtual loss on the tree of :mod:`.tree`, evaluates them in one call and backs
every seat's value up; the seat to act picks ``argmax Q + c_puct * P * sqrt(N + 1) / (1 +
n)``, an unvisited child's ``Q`` being the node's own value for that seat. A compiled
engine's positions are kept as its rows, and a batch's new leaves get their legal actions
(and planes, for the AlphaZero evaluator) from batched engine calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.dense_rows import flat_columns, mask_columns
from tabletop_zoo.baselines.agents.tree import COLLISION, FINISHED_LEAF, Forest, RootView
from tabletop_zoo.envs.registry import fast_path_available, is_fast_state

Evaluator = Callable[[Sequence[Any]], tuple[Sequence[np.ndarray], np.ndarray]]
TerminalValue = Callable[[Any], Sequence[float]]
#: New leaves valued together: actions (ascending, end to end), where each leaf's begin,
#: the priors alike and the values of every seat per leaf.
Valued = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
C_VISIT, C_SCALE = 50.0, 0.1  # sigma(q) of the Gumbel search (GumbelHalving)


class PUCTSearch:
    """PUCT search with batched leaf evaluation: ``num_simulations`` leaves per search
    (terminal ones included), ``batch_size`` of them per ``evaluate`` call (the
    :data:`Evaluator`). ``dirichlet_alpha``: Dirichlet noise of this concentration mixed into
    the root priors (weight ``noise_fraction``, seeded by ``seed``). ``terminal_value``: every
    seat's value at a finished position (default the engine's ``returns()``; e.g.
    :func:`~.alphazero.game_values` with a score weight)."""

    def __init__(
        self,
        evaluate: Evaluator,
        num_simulations: int = 64,
        c_puct: float = 1.5,
        batch_size: int = 8,
        dirichlet_alpha: float | None = None,
        noise_fraction: float = 0.25,
        seed: int | None = None,
        terminal_value: TerminalValue | None = None,
    ) -> None:
        if num_simulations < 1 or batch_size < 1 or c_puct < 0:
            raise ValueError("need num_simulations >= 1, batch_size >= 1 and c_puct >= 0")
        self.evaluate = evaluate
        self.num_simulations = int(num_simulations)
        self.c_puct = float(c_puct)
        self.batch_size = int(batch_size)
        self.dirichlet_alpha = dirichlet_alpha
        self.noise_fraction = noise_fraction
        self.rng = np.random.default_rng(seed)
        self.terminal_value = terminal_value or (lambda state: state.returns())

    def run(self, state: Any) -> RootView:
        """Search from ``state`` (not changed; it must have a move to make); return the root
        (its ``actions``, ``priors``, ``child_visits`` and ``child_values``)."""
        tree = (_RowTree if is_fast_state(state) else _OneTree)(self, state)
        root = tree.root
        if self.dirichlet_alpha is not None and len(root.actions) > 1:
            noise = self.rng.dirichlet([self.dirichlet_alpha] * len(root.actions))
            root.priors = (1 - self.noise_fraction) * root.priors + self.noise_fraction * noise
        done = 0
        while done < self.num_simulations:
            done += tree.simulate_batch(self.num_simulations - done)
        return root

    def run_gumbel(self, state: Any, num_considered: int = 16) -> tuple[RootView, int, np.ndarray]:
        """Gumbel root search for self-play (:class:`GumbelHalving` at the root, PUCT below,
        no Dirichlet noise): the root, the index (into ``root.actions``) of the action to
        play and the improved policy over ``root.actions``, the policy target."""
        tree = (_RowTree if is_fast_state(state) else _OneTree)(self, state)
        halving = GumbelHalving(tree.root, self.rng, self.num_simulations, num_considered)
        while (forced := halving.next_phase()) is not None:
            done = 0
            while done < len(forced):
                done += tree.simulate_batch(len(forced) - done, forced[done:])
        chosen, improved = halving.result()
        return tree.root, chosen, improved


class _OneTree:
    """One search's tree (a :class:`~.tree.Forest` of one slot) and the position of every
    node as a rules-engine state (node order); the root is expanded with
    ``search.evaluate([state])`` and holds its value."""

    def __init__(self, search: PUCTSearch, state: Any) -> None:
        if state.is_terminal():
            raise ValueError("the search needs a position with a move to make")
        self.search, self.nodes = search, [state]
        num_players = len(state.returns())
        nodes = search.num_simulations + 2  # edges: room for 16 legal actions a node
        self.forest = Forest(1, num_players, nodes, 16 * nodes, fast_path_available())
        priors, values = search.evaluate([state])
        actions = np.array(state.legal_actions(), dtype=np.int64)
        self._add([-1], [state.current_player], actions, np.array([0, len(actions)]), priors[0])
        self.forest.node_visits[0, 0] = 1.0
        self.forest.node_value[0, 0] = values[0]  # the root holds its own value
        self.root = RootView(self.forest, 0)
        self.none = np.zeros(1, dtype=np.int64)

    def play(self, parent: int, action: int) -> tuple[Any, int, np.ndarray | None]:
        """The position after ``action`` at node ``parent``: it, its seat to act (-1:
        finished) and then its value of every seat."""
        state = self.nodes[parent].clone()
        state.apply_action(action)
        if state.is_terminal():
            return state, -1, np.asarray(self.search.terminal_value(state), dtype=np.float64)
        return state, state.current_player, None

    def evaluate(self, leaves: list[Any]) -> Valued:
        """The legal actions, priors and values of the new ``leaves``."""
        priors, values = self.search.evaluate(leaves)
        actions, starts = flat_columns([leaf.legal_actions() for leaf in leaves])
        priors = np.concatenate(priors)
        return actions, starts, np.asarray(priors, np.float64), np.asarray(values, np.float64)

    def _add(
        self, parents: list[int], players: list[int], actions: np.ndarray, starts: np.ndarray,
        priors: Any, results: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """New nodes under the edges ``parents`` (-1: the root)."""
        count = len(parents)
        if results is None:
            results = np.zeros((count, self.forest.n))
        self.forest.add_nodes(
            np.zeros(count, dtype=np.int64), np.array(parents, dtype=np.int64),
            np.array(players, dtype=np.int64), results, actions, starts,
            np.asarray(priors, dtype=np.float64),
        )  # fmt: skip

    def simulate_batch(self, budget: int, forced: Sequence[int] | None = None) -> int:
        """Descend up to ``min(batch_size, budget)`` times; evaluate the new leaves together.

        ``forced[k]``: the root child (an index into ``root.actions``) descent ``k`` takes,
        below which it selects as usual; returns how many descents were completed (they
        are the first ones: a collision stops the batch). A new leaf that is a finished
        position is backed up at once."""
        f, slot, count = self.forest, self.none, min(self.search.batch_size, budget)
        edges, actions, length, status = f.paths(count)  # descent b: row b
        first = np.full(count, -1, dtype=np.int64)
        if forced is not None:
            first[:] = forced[:count]
        pending: list[int] = []  # the descents that end on a new leaf to evaluate
        players, leaves, finished = [], [], 0
        for b in range(count):
            at = slice(b, b + 1)
            out = (edges[at], actions[at], length[at], status[at])
            f.descend(slot, first[at], self.search.c_puct, out)
            if status[b] == COLLISION:  # evaluate what we have
                break
            depth, last = length[b], edges[b, length[b] - 1]
            if status[b] == FINISHED_LEAF:
                result = f.node_result[0, f.edge_child[0, last]]
            else:
                parent = 0 if depth == 1 else int(f.edge_child[0, edges[b, depth - 2]])
                position, player, result = self.play(parent, int(actions[b, depth - 1]))
                if result is None:
                    pending.append(b)
                    players.append(player)
                    leaves.append(position)
                    continue
                self._add(
                    [int(last)], [-1], actions[b, :0], np.zeros(2, np.int64), [], result[None]
                )
                self.nodes.append(position)
            f.back_up(slot, edges[at], length[at], result[None])
            finished += 1
        if leaves:  # valued together, then added and backed up
            edges, length = edges[pending], length[pending]
            new_actions, starts, priors, values = self.evaluate(leaves)
            parents = [int(edges[i, length[i] - 1]) for i in range(len(leaves))]
            self._add(parents, players, new_actions, starts, priors)
            self.nodes.extend(leaves)
            f.back_up(np.zeros(len(leaves), dtype=np.int64), edges, length, values)
        if not leaves and not finished:  # only collisions: cannot happen at batch start
            raise RuntimeError("PUCT search made no progress")
        return len(leaves) + finished


class _RowTree(_OneTree):
    """The position of every node as a row of the compiled engine; a new leaf's row is its
    parent's with the edge's move played (``holder``, a compiled state, is pointed at it).
    The AlphaZero agent's evaluator takes the new leaves' planes (``evaluate_planes``);
    any other evaluator gets compiled states."""

    def __init__(self, search: PUCTSearch, state: Any) -> None:
        super().__init__(search, state)
        self.nodes = [state.row]
        self.holder = state.clone()
        self.engine = state.engine

    def play(self, parent: int, action: int) -> tuple[Any, int, np.ndarray | None]:
        row = self.nodes[parent].copy()
        self.holder.row = row
        self.holder.apply_action(action)
        player = int(row[self.engine.player_column])
        if player < 0:
            return row, -1, np.asarray(self.search.terminal_value(self.holder), np.float64)
        return row, player, None

    def evaluate(self, leaves: list[Any]) -> Valued:
        rows = np.array(leaves)
        _, actions, starts = mask_columns(self.engine.legal_mask_trusted(rows))
        evaluate_planes = getattr(self.search.evaluate, "evaluate_planes", None)
        if evaluate_planes is None:
            kind = type(self.holder)
            states = [kind(self.engine, row.copy(), trusted=True) for row in rows]
            priors, values = self.search.evaluate(states)
            priors = np.concatenate(priors)
        else:
            seats = rows[:, self.engine.player_column].copy()
            planes = self.engine.observe_trusted(rows, seats)
            priors, values = evaluate_planes(planes, actions, starts, seats)
        return actions, starts, np.asarray(priors, np.float64), np.asarray(values, np.float64)


class GumbelHalving:
    """The Gumbel sequential halving of one expanded root (Danihelka et al., "Policy
    improvement by planning with Gumbel", ICLR 2022).

    Draws a Gumbel ``g`` per root action from ``rng`` and keeps the ``num_considered``
    actions with the largest ``g + log prior``; each phase (:meth:`next_phase`) halves them
    by ``g + log prior + sigma(q)``, with ``q`` the root seat's mean value of a child in
    ``[0, 1]`` and ``sigma(q) = (C_VISIT + max visits) * C_SCALE * q``. The improved policy
    of :meth:`result` improves on the prior even with few simulations.
    """

    def __init__(
        self, root: RootView, rng: np.random.Generator, num_simulations: int, num_considered: int
    ) -> None:
        self.root = root
        self.seat = root.player
        self.num_simulations = num_simulations
        n = len(root.actions)
        self.logits = np.log(np.maximum(root.priors, 1e-12))
        self.gumbel = rng.gumbel(size=n)
        order = np.argsort(-(self.gumbel + self.logits), kind="stable")
        self.remaining = [int(i) for i in order][: min(num_considered, n)]
        self.phases = max(1, math.ceil(math.log2(len(self.remaining))))
        self.phase = -1  # no phase handed out yet
        self.spent = 0
        self.root_value = float(root.value_sum[self.seat]) / max(root.visits, 1)  # network's

    def _sigma(self, q: np.ndarray) -> np.ndarray:
        return (C_VISIT + self.root.child_visits.max()) * C_SCALE * q

    def _child_q(self) -> np.ndarray:
        """The root seat's mean value per child, in ``[0, 1]``."""
        visits = np.maximum(self.root.child_visits, 1)
        return (self.root.child_values[:, self.seat] / visits + 1.0) / 2.0

    def next_phase(self) -> list[int] | None:
        """The forced root children of the next phase (after halving), or ``None``."""
        if self.phase >= 0 and len(self.remaining) > 1:
            remaining = self.remaining
            score = self.gumbel[remaining] + self.logits[remaining]
            score = score + self._sigma(self._child_q()[remaining])
            keep = math.ceil(len(remaining) / 2) if self.phase < self.phases - 1 else 1
            self.remaining = [remaining[i] for i in np.argsort(-score, kind="stable")[:keep]]
        self.phase += 1
        if self.phase >= self.phases:
            return None
        left = self.num_simulations - self.spent
        rounds = max(1, left // ((self.phases - self.phase) * len(self.remaining)))
        forced = [a for _ in range(rounds) for a in self.remaining]
        self.spent += len(forced)
        return forced

    def result(self) -> tuple[int, np.ndarray]:
        """The chosen root child (index into ``root.actions``) and the improved policy
        ``softmax(log prior + sigma(completed q))`` over ``root.actions``."""
        root = self.root
        visited = root.child_visits > 0
        q = self._child_q()
        root_value = (self.root_value + 1.0) / 2.0
        weights = root.priors[visited]
        mixed = float(weights @ q[visited] / weights.sum()) if visited.any() else root_value
        total = root.child_visits.sum()
        completed = np.where(visited, q, (root_value + total * mixed) / (1.0 + total))
        improved = self.logits + self._sigma(completed)
        policy = np.exp(improved - improved.max())
        return self.remaining[0], policy / policy.sum()
