"""PUCT tree search (AlphaZero-style): the one search loop of the AlphaZero agent (one tree)
and of batched self-play (a tree per game, :mod:`tabletop_zoo.baselines.training.self_play`),
as OpenSpiel's ``MCTSBot`` serves both.

An *evaluator* values a batch of unfinished positions (:class:`~.positions.Leaves`):
``evaluate(leaves) -> (priors, values)``, a probability per legal action (end to end, as
``leaves.actions``) and the expected result of every seat (absolute seat order, in
``[-1, 1]``; ``leaves.states()`` gives the positions as engine-protocol states). Each
search descends its tree (:mod:`.tree`) in batches of up to ``batch_size`` descents with
virtual loss, the seat to act picking ``argmax Q + c_puct * P * sqrt(N + 1) / (1 + n)``
(an unvisited child's ``Q`` being the node's own value for that seat): a finished position
is backed up at once, a descent onto a pending leaf (a collision) ends the batch. One
:meth:`PUCTSearch.step` values the new leaves of every search in one ``evaluate`` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.positions import Leaves, PythonPositions, positions_of
from tabletop_zoo.baselines.agents.tree import COLLISION, FINISHED_LEAF, NEW_LEAF, Forest, RootView
from tabletop_zoo.envs.registry import fast_path_available

Evaluator = Callable[[Leaves], tuple[np.ndarray, np.ndarray]]
TerminalValue = Callable[[Any], Sequence[float]]
C_VISIT, C_SCALE = 50.0, 0.1  # sigma(q) of the Gumbel search (GumbelHalving)


class SearchTrees:
    """The trees of ``positions.slots`` searches (a :class:`~.tree.Forest` of ``nodes``
    nodes to start with), their nodes' positions and each search's progress."""

    def __init__(
        self, positions: PythonPositions, num_players: int, nodes: int, compiled: bool
    ) -> None:
        slots = positions.slots
        self.positions = positions
        self.forest = Forest(slots, num_players, nodes, 16 * nodes, compiled)
        self.done = [0] * slots  # descents of each search, finished
        self.halving: list[GumbelHalving | None] = [None] * slots
        self.forced: list[list[int]] = [[] for _ in range(slots)]  # Gumbel: this phase's
        self.unforced = np.full(slots, -1, dtype=np.int64)  # descents' root children: free


class PUCTSearch:
    """PUCT search with batched leaf evaluation: ``num_simulations`` leaves per search
    (terminal ones included), ``batch_size`` descents per batch (the :data:`Evaluator`).
    ``dirichlet_alpha``: Dirichlet noise of this concentration mixed into the root priors
    (weight ``noise_fraction``, drawn from ``rng``, seeded by ``seed``). ``terminal_value``:
    every seat's value at a finished position (default the engine's ``returns()``; e.g.
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
        return RootView(self._search(state).forest, 0)

    def run_gumbel(self, state: Any, num_considered: int = 16) -> tuple[RootView, int, np.ndarray]:
        """Gumbel root search for self-play (:class:`GumbelHalving` at the root, PUCT below,
        no Dirichlet noise): the root, the index (into ``root.actions``) of the action to
        play and the improved policy over ``root.actions``, the policy target."""
        trees = self._search(state, num_considered)
        chosen, improved = trees.halving[0].result()
        return RootView(trees.forest, 0), chosen, improved

    def _search(self, state: Any, num_considered: int | None = None) -> SearchTrees:
        """The tree of one search from ``state`` (:meth:`start`'s ``num_considered``)."""
        if state.is_terminal():
            raise ValueError("the search needs a position with a move to make")
        nodes = self.num_simulations + 2
        positions = positions_of(state, 1, self.terminal_value, nodes)
        positions.start(0, state)
        trees = SearchTrees(positions, len(state.returns()), nodes, fast_path_available())
        self.step(trees, [], np.zeros(1, dtype=np.int64))  # the root, valued
        self.start(trees, 0, num_considered)
        while not self.step(trees, [0])[0]:
            pass
        return trees

    def start(self, trees: SearchTrees, slot: int, num_considered: int | None = None) -> None:
        """A new search of ``slot`` from its valued root: Gumbel sequential halving of
        ``num_considered`` root actions, or else the root noise (both drawn from ``rng``)."""
        root = RootView(trees.forest, slot)
        trees.done[slot], trees.forced[slot], trees.halving[slot] = 0, [], None
        if num_considered is not None:
            trees.halving[slot] = GumbelHalving(
                root, self.rng, self.num_simulations, num_considered
            )
        elif self.dirichlet_alpha is not None and len(root.actions) > 1:
            noise = self.rng.dirichlet([self.dirichlet_alpha] * len(root.actions))
            root.priors = (1 - self.noise_fraction) * root.priors + self.noise_fraction * noise

    def _budget(self, trees: SearchTrees, slot: int) -> int:
        """The descents left to the search of ``slot`` (in its Gumbel phase, the next phase
        once this one is spent); 0: the search is over."""
        halving = trees.halving[slot]
        if halving is None:
            return self.num_simulations - trees.done[slot]
        if not trees.forced[slot]:
            trees.forced[slot] = halving.next_phase() or []
        return len(trees.forced[slot])

    def step(
        self, trees: SearchTrees, slots: Sequence[int], roots: Sequence[int] = ()
    ) -> tuple[list[int], Leaves | None]:
        """One step of the searches of ``slots`` (ascending): each descends in batches until
        a batch adds nodes to its tree; then their new leaves and the positions of ``roots``
        (each the root of a fresh tree) are valued in one ``evaluate`` call, added and backed
        up. Returns the searches found over (in that order; they did nothing) and the
        positions valued (roots first), if any."""
        forced, done, going = trees.forced, trees.done, [int(slot) for slot in slots]
        left, grew, over, new = {}, set(), [], []  # left: descents of each batch to go
        while going:
            ready = []
            for slot in going:
                if not left.get(slot):  # a new batch
                    left[slot] = min(self.batch_size, self._budget(trees, slot))
                    if not left[slot]:
                        over.append(slot)
                        continue
                ready.append(slot)
            if not ready:
                break
            going = []
            for slot, reached in zip(ready, self._descend(trees, ready, new), strict=True):
                if reached != COLLISION:  # a collision ends the batch (and the step: it grew)
                    del forced[slot][:1]
                    done[slot] += 1
                    left[slot] -= 1
                    if reached == NEW_LEAF:
                        grew.add(slot)
                    if left[slot] or slot not in grew:
                        going.append(slot)
        return over, self._value(trees, np.asarray(roots, dtype=np.int64), new)

    def _descend(self, trees: SearchTrees, slots: list[int], new: list) -> list[int]:
        """One descent in each tree of ``slots`` (to its Gumbel phase's root child): a
        finished position, reached or new, is backed up at once; the other new leaves go to
        ``new`` (slots, paths, path lengths, positions). What each descent reached."""
        f, forced, at = trees.forest, trees.forced, np.array(slots, dtype=np.int64)
        first = trees.unforced[: len(slots)]
        if any(forced):
            first = np.array([forced[slot][0] if forced[slot] else -1 for slot in slots])
        edges, actions, length, status = f.descend(at, first, self.c_puct)
        reached, depths = status.tolist(), length.tolist()
        ended, values, leaf, parents, moves = [], [], [], [], []
        for i, (slot, d) in enumerate(zip(slots, depths, strict=True)):
            if reached[i] == FINISHED_LEAF:  # its value is known
                ended.append(i)
                values.append(f.node_result[slot, f.edge_child[slot, edges[i, d - 1]]])
            elif reached[i] == NEW_LEAF:
                leaf.append(i)
                parents.append(f.edge_child[slot, edges[i, d - 2]] if d > 1 else 0)
                moves.append(actions[i, d - 1])
        if leaf:
            held, players = trees.positions.after([slots[i] for i in leaf], parents, moves)
            live = [j for j, player in enumerate(players) if player >= 0]
            for j, player in enumerate(players):
                if player < 0:  # a new finished position: a node without edges
                    i, value = leaf[j], trees.positions.values(held[j : j + 1])
                    none, last = np.zeros(2, np.int64), edges[i, depths[i] - 1 : depths[i]]
                    f.add_nodes(at[i : i + 1], last, none[:1] - 1, value, none[:0], none, [])
                    ended.append(i)
                    values.append(value[0])
            rows = [leaf[j] for j in live]
            if len(rows) == len(slots):  # each descent found a new leaf (most often)
                new.append((at, edges, length, held))
            elif rows:
                new.append((at[rows], edges[rows], length[rows], held[live]))
        if ended:
            f.back_up(at[ended], edges[ended], length[ended], np.array(values))
        return reached

    def _value(self, trees: SearchTrees, roots: np.ndarray, new: list) -> Leaves | None:
        """Value the root positions of the trees ``roots`` and the ``new`` leaves in one
        call, add them as nodes (a root as the first node of a fresh tree) and back the
        leaves' values up; the positions valued, if any."""
        f, positions, r = trees.forest, trees.positions, len(roots)
        if not (r or new):
            return None
        part_slots, part_edges, part_lengths, part_held = (
            zip(*new, strict=True) if new else ([],) * 4
        )
        slots = np.concatenate([roots, *part_slots])
        held = np.concatenate([positions.nodes[roots, 0], *part_held])
        leaves = positions.describe(slots, held)
        priors, values = self.evaluate(leaves)
        parents = np.full(len(slots), -1)
        if new:  # a path runs through nodes there at the step's start (the forest may grow)
            width = min([part.shape[1] for part in part_edges])
            edges = np.concatenate([part[:, :width] for part in part_edges])
            lengths = np.concatenate(part_lengths)
            parents[r:] = edges[np.arange(len(edges)), lengths - 1]
        for slot in roots.tolist():
            f.clear(slot)
        results = np.zeros((len(slots), f.n))
        f.add_nodes(slots, parents, leaves.players, results, leaves.actions, leaves.starts, priors)
        if r:  # a root holds its own value
            f.node_visits[roots, 0] = 1.0
            f.node_value[roots, 0] = values[:r]
        if new:
            positions.keep(slots[r:], f.edge_child[slots[r:], parents[r:]], held[r:])
            f.back_up(slots[r:], edges, lengths, values[r:])
        return leaves


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
