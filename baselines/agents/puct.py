"""PUCT tree search (AlphaZero-style) over the rules-engine protocol, with batched evaluation.

The search sees engines only through the protocol (``current_player``, ``legal_actions``,
``apply_action``, ``clone``, ``is_terminal``, ``returns``), so any engine (or a faster one
dropped in later) works unchanged, for any number of players.

An *evaluator* values positions in batches: ``evaluate(states) -> (priors, values)`` where
``priors[i]`` is a probability per legal action of ``states[i]`` (in ``legal_actions()``
order) and ``values[i]`` the expected result of every seat (absolute seat order, in
``[-1, 1]``). The search collects up to ``batch_size`` leaves with *virtual loss* (a leaf on
the way counts as a loss for the seat choosing it until its value arrives, which steers the
other descents of the batch elsewhere), evaluates them in one call and backs every seat's
value up the path. At a node, the seat to act picks ``argmax Q + U`` with
``U = c_puct * P * sqrt(N) / (1 + n)``; an unvisited child's ``Q`` is the node's own value
for that seat (first-play urgency).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_zoo.envs.registry import is_fast_state

if TYPE_CHECKING:
    from tabletop_zoo.baselines.agents.puct_arrays import ArrayRoot

__all__ = ["Evaluator", "GumbelHalving", "PUCTNode", "PUCTSearch"]

Evaluator = Callable[[Sequence[Any]], tuple[Sequence[np.ndarray], np.ndarray]]


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


class PUCTSearch:
    """PUCT search with batched leaf evaluation.

    Args:
        evaluate: the :data:`Evaluator` (a network, or a perfect oracle in tests).
        num_simulations: leaves evaluated per search (terminal leaves included).
        c_puct: exploration weight.
        batch_size: leaves collected before one ``evaluate`` call.
        dirichlet_alpha: if set, Dirichlet noise of this concentration is mixed into the
            root priors (weight ``noise_fraction``): self-play exploration.
        seed: generator of the noise.
        terminal_value: value of every seat at a finished position (default the engine's
            ``returns()``); an agent trained on another value of finished games (e.g.
            :func:`~.alphazero.game_values` with a score weight) searches with that one.
    """

    def __init__(
        self,
        evaluate: Evaluator,
        num_simulations: int = 64,
        c_puct: float = 1.5,
        batch_size: int = 8,
        dirichlet_alpha: float | None = None,
        noise_fraction: float = 0.25,
        seed: int | None = None,
        terminal_value: Callable[[Any], Sequence[float]] | None = None,
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

    def run(self, state: Any) -> PUCTNode | ArrayRoot:
        """Search from a clone of ``state``; return the root (``state`` is not changed).

        A compiled engine's position is searched with the tree as arrays
        (:mod:`.puct_arrays`: the same search, the same visits, faster)."""
        if is_fast_state(state) and not state.is_terminal():
            from tabletop_zoo.baselines.agents.puct_arrays import run_on_arrays

            return run_on_arrays(self, state)
        return self.run_nodes(state)

    def run_nodes(self, state: Any) -> PUCTNode:
        """:meth:`run` with the tree as Python nodes, whatever engine ``state`` is from."""
        num_players = len(state.returns())
        root = PUCTNode(state.current_player, num_players)
        if state.is_terminal():
            root.terminal_values = np.asarray(self.terminal_value(state), dtype=np.float64)
            return root
        priors, values = self.evaluate([state])
        root.expand(state.legal_actions(), priors[0])
        root.visits, root.value_sum = 1, np.asarray(values[0], dtype=np.float64).copy()
        if self.dirichlet_alpha is not None and len(root.actions) > 1:
            noise = self.rng.dirichlet([self.dirichlet_alpha] * len(root.actions))
            root.priors = (1 - self.noise_fraction) * root.priors + self.noise_fraction * noise
        done = 0
        while done < self.num_simulations:
            done += self._simulate_batch(root, state, self.num_simulations - done)
        return root

    def run_gumbel(
        self,
        state: Any,
        num_considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
    ) -> tuple[PUCTNode, int, np.ndarray]:
        """Gumbel root search for self-play (Danihelka et al., "Policy improvement by planning
        with Gumbel", ICLR 2022), PUCT below the root.

        Draws Gumbel noise ``g`` per legal root action, keeps the ``num_considered`` actions
        with the largest ``g + log prior`` and shares the simulations among them by
        sequential halving (each round visits every remaining action equally, then keeps
        the better half by ``g + log prior + sigma(q)``). Returns the root, the index (into
        ``root.actions``) of the action to play (the best remaining one: a sample of the
        improved policy) and the improved policy over ``root.actions``,
        ``softmax(log prior + sigma(completed q))``: the policy target, which improves on
        the prior even with few simulations, unlike visit counts. ``q`` is the root
        seat's mean value of a child mapped to ``[0, 1]``; unvisited children get the mix
        of the root's own value and the visited children's values; ``sigma(q) = (c_visit +
        max visits) * c_scale * q``. No Dirichlet noise is used.
        """
        if state.is_terminal():
            raise ValueError("run_gumbel needs a position with a move to make")
        root = PUCTNode(state.current_player, len(state.returns()))
        priors, values = self.evaluate([state])
        root.expand(state.legal_actions(), priors[0])
        root.visits, root.value_sum = 1, np.asarray(values[0], dtype=np.float64).copy()
        halving = GumbelHalving(root, self.rng, self.num_simulations, num_considered)
        halving.c_visit, halving.c_scale = c_visit, c_scale
        while (forced := halving.next_phase()) is not None:
            done = 0
            while done < len(forced):
                done += self._simulate_batch(root, state, len(forced) - done, forced[done:])
        chosen, improved = halving.result()
        return root, chosen, improved

    # ------------------------------------------------------------------ internals
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
            priors, values = self.evaluate([sim for _, _, sim in pending])
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


class GumbelHalving:
    """The Gumbel sequential halving of one expanded root (see :meth:`PUCTSearch.run_gumbel`).

    Draws one Gumbel variable per root action from ``rng`` when made, keeps the
    ``num_considered`` actions with the largest ``g + log prior``, and hands out the root
    children to visit one phase at a time: :meth:`next_phase` halves the remaining actions
    by ``g + log prior + sigma(q)`` after the previous phase (whose simulations must be
    backed up by then) and returns the next phase's forced root children (indices into
    ``root.actions``), ``None`` once every phase is done; :meth:`result` gives the chosen
    child and the improved policy. The same schedule serves a search that simulates a
    phase in batches and one that simulates one leaf at a time.
    """

    def __init__(
        self, root: PUCTNode, rng: np.random.Generator, num_simulations: int, num_considered: int
    ) -> None:
        self.root = root
        self.seat = root.player
        self.num_simulations = num_simulations
        self.c_visit, self.c_scale = 50.0, 0.1
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
        return (self.c_visit + self.root.child_visits.max()) * self.c_scale * q

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
