"""Search-based baseline agents: random, greedy one-ply lookahead and UCT Monte Carlo tree
search, for every game and number of players through the rules-engine protocol alone. They
never mutate the ``state`` they are given: the search agents work on ``state.clone()``.

With the ``fast`` extra (numba), greedy and MCTS work on the compiled engine's copy of the
state (``registry.fast_state``; a compiled one-row state as it is) and search in compiled
code, drawing the same numbers from the agent's ``random.Random``
(:mod:`tabletop_zoo.envs.compiled.random_stream`): a seed gives the same moves on both paths.
``fast=False`` (or ``TABLETOP_ZOO_FAST=0``) keeps the Python engine.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from tabletop_zoo.envs.protocol import EngineState
from tabletop_zoo.envs.registry import fast_state, is_fast_state
from tabletop_zoo.envs.results import win_returns


def _compiled(state: EngineState) -> Any | None:
    """The compiled copy of ``state`` (``state`` itself if it is a compiled one-row state)
    when the fast path is on and its kernels draw what this Python's ``random`` draws
    (checked once per process), else ``None``."""
    compiled = state if is_fast_state(state) else fast_state(state)
    if compiled is None:
        return None
    from tabletop_zoo.envs.compiled.random_stream import matches_python  # numba is loaded by now

    return compiled if matches_python() else None


def legal_from_mask(action_mask: np.ndarray) -> np.ndarray:
    """The legal actions of a mask, ascending; a clear error when there are none."""
    legal = np.flatnonzero(action_mask)
    if not legal.size:
        raise ValueError("action_mask has no legal action; agents can only act when one exists")
    return legal


class _SeededAgent:
    """A name and a seeded generator that ``reset`` re-seeds. These agents read the mask
    and the state only (the single-agent wrapper may pass ``None`` for the observation),
    and ``state`` may be a compiled one-row state (what the batched arena passes)."""

    reads_observation = False
    acts_on_compiled_state = True

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator (``None`` keeps the current stream)."""
        if seed is not None:
            self._rng.seed(seed)


class RandomAgent(_SeededAgent):
    """Uniformly random over the legal actions of the mask (seeded)."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState | None = None
    ) -> int:
        """Pick a legal action uniformly at random."""
        return self._rng.choice(legal_from_mask(action_mask).tolist())


class GreedyAgent(_SeededAgent):
    """One-ply lookahead: an action of :func:`greedy_best` (the engine's own
    ``greedy_best()`` if it has one, or compiled code: the same list), ties broken at
    random (seeded)."""

    def __init__(self, seed: int | None = None, name: str = "greedy", fast: bool = True) -> None:
        super().__init__(seed, name)
        self.fast = fast

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState) -> int:
        """Evaluate every legal action one ply deep and return a best one."""
        legal = legal_from_mask(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        compiled = _compiled(state) if self.fast else None
        own_rule = getattr(state if compiled is None else compiled, "greedy_best", None)
        return self._rng.choice(own_rule() if own_rule is not None else greedy_best(state, legal))


def greedy_best(state: EngineState, legal: list[int]) -> list[int]:
    """The greedy rule by definition: each action of ``legal`` played on a clone of
    ``state``, ranked by its result if the game ends (+1 win ... -1 loss; live games at 0),
    then by the mover's score margin over the best other seat; the best ones in the order
    of ``legal``. An engine's own ``greedy_best()`` must give the same list."""
    player = state.current_player
    keys = []
    for action in legal:
        child = state.clone()
        child.apply_action(action)
        scores = child.scores()
        margin = scores[player] - max(s for i, s in enumerate(scores) if i != player)
        keys.append((child.returns()[player] if child.is_terminal() else 0.0, float(margin)))
    best = max(keys, default=None)
    return [action for action, key in zip(legal, keys, strict=True) if key == best]


#: The best return of a seat (``win_returns``: +1 for the sole top scorer). A child whose
#: proven result gives its mover this much proves its parent at once (MCTS-Solver).
MAX_UTILITY = 1.0


class _Node:
    """A search-tree node. ``outcome``: ``None`` until proven (MCTS-Solver), then the
    returns of every seat under best play of each seat to move (max^n); a finished game is
    proven by its own returns."""

    __slots__ = ("player", "children", "untried", "visits", "value", "outcome")

    def __init__(self, player: int, untried: list[int], num_players: int) -> None:
        self.player = player  # seat to act here (-1 if terminal)
        self.children: dict[int, _Node] = {}  # in expansion order (a random order)
        self.untried = untried
        self.visits = 0
        self.value = [0.0] * num_players  # summed returns, one entry per seat
        self.outcome: list[float] | None = None

    def prove(self) -> bool:
        """Set ``outcome`` if the children prove it: a child proven to give the seat to
        move here :data:`MAX_UTILITY`, or every action expanded and proven (then the best
        of them for that seat, the first expanded among equals). Returns whether proven."""
        if self.outcome is None:
            p = self.player
            proven = [
                child.outcome for child in self.children.values() if child.outcome is not None
            ]
            best = max(proven, key=lambda outcome: outcome[p], default=None)
            every_child_proven = not self.untried and len(proven) == len(self.children)
            if best is not None and (every_child_proven or best[p] >= MAX_UTILITY):
                self.outcome = best
        return self.outcome is not None

    def best_action(self) -> int:
        """The action to play from this node: a proven result for the seat to move first
        (a proven win over anything, a proven loss last, a proven draw as good as an
        unproven action), then the most visits, then the highest summed return; among
        equals the first expanded."""
        p = self.player

        def key(item: tuple[int, _Node]) -> tuple[float, int, float]:
            child = item[1]
            proven = 0.0 if child.outcome is None else child.outcome[p]
            return (proven, child.visits, child.value[p])

        return max(self.children.items(), key=key)[0]


def _nodes_of(tree: tuple, count: int) -> _Node:
    """The root :class:`_Node` of a compiled search's tree arrays
    (:mod:`tabletop_zoo.envs.compiled.search_tree`): the same tree as the Python search's."""
    from tabletop_zoo.envs.compiled import search_tree as S

    ints, value, outcome, untried = tree
    num_players = value.shape[1]
    nodes = []
    for i in range(count):
        row = ints[i]
        node = _Node(int(row[S.PLAYER]), untried[i, : row[S.UNTRIED]].tolist(), num_players)
        node.visits = int(row[S.VISITS])
        node.value = value[i].tolist()
        if row[S.PROVEN]:
            node.outcome = outcome[i].tolist()
        nodes.append(node)
    for i in range(count):
        child = int(ints[i, S.FIRST])
        while child >= 0:
            nodes[i].children[int(ints[child, S.ACTION])] = nodes[child]
            child = int(ints[child, S.NEXT])
    return nodes[0]


class MCTSAgent(_SeededAgent):
    """UCT Monte Carlo tree search with uniform random rollouts and MCTS-Solver backups.

    Every node sums the returns of every seat and picks its children by the return of its
    seat to act, so 2-4 players and several decisions in a row by one seat need nothing
    special. A simulation descends by UCT through fully expanded nodes, expands one untried
    action (each node's actions are shuffled once), values it by one random rollout and
    adds the returns along the path. With ``solve``, finished games are proven results
    backed up max^n style (:meth:`_Node.prove`): a proven child counts as its result without
    exploration bonus, a simulation reaching a proven node backs it up without a rollout,
    and the search stops once the root is proven; the move is :meth:`_Node.best_action`.
    This is OpenSpiel's Python ``MCTSBot`` (``solve=True``), except that the root's first
    simulation already expands a move and a simulation reaching a proven node backs up its
    result (``MCTSBot`` rolls out from the root, and below proven nodes).

    ``n_simulations`` playouts per decision; ``exploration`` is ``c`` in ``Q + c * sqrt(ln
    N / n)`` (returns in ``[-1, 1]``); a rollout stops after ``max_rollout_depth`` random
    moves (if set), valued by the scores as they stand (``win_returns``), proving nothing;
    ``seed`` seeds expansion order and rollouts; ``fast``: the compiled engine when the
    ``fast`` extra is installed; ``solve=False`` gives plain UCT."""

    def __init__(
        self,
        n_simulations: int = 200,
        exploration: float = 1.4,
        max_rollout_depth: int | None = None,
        seed: int | None = None,
        name: str | None = None,
        fast: bool = True,
        solve: bool = True,
    ) -> None:
        if int(n_simulations) < 1:
            raise ValueError(f"n_simulations must be a positive integer, got {n_simulations!r}")
        if exploration < 0:
            raise ValueError(f"exploration must be >= 0, got {exploration!r}")
        if max_rollout_depth is not None and int(max_rollout_depth) < 0:
            raise ValueError(f"max_rollout_depth must be None or >= 0, got {max_rollout_depth!r}")
        super().__init__(seed, name or f"mcts{int(n_simulations)}")
        self.keep_analysis, self.last_analysis = False, None  # True: act() keeps its numbers
        self.n_simulations = int(n_simulations)
        self.exploration = float(exploration)
        self.max_rollout_depth = None if max_rollout_depth is None else int(max_rollout_depth)
        self.fast = fast
        self.solve = bool(solve)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState) -> int:
        """Search from ``state`` and return the root's :meth:`_Node.best_action`."""
        legal = legal_from_mask(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        found = self._search(state, legal)
        if self.keep_analysis:  # the root's visits per action, the mover's mean return
            root = found if isinstance(found, _Node) else _nodes_of(*found)
            moves = sorted(root.children)
            visits = [root.children[a].visits for a in moves]
            value = root.value[root.player] / root.visits
            self.last_analysis = {"actions": moves, "visits": visits, "value": value}
        if isinstance(found, _Node):
            return found.best_action()
        from tabletop_zoo.envs.compiled.search_tree import ACTION, best_child

        tree = found[0]
        return int(tree[0][best_child(tree, 0), ACTION])

    def search(self, state: EngineState, legal: list[int] | None = None) -> _Node:
        """Run up to ``n_simulations`` playouts from a clone of ``state`` (fewer once the
        root is proven); return the root node of the tree."""
        found = self._search(state, legal)
        return found if isinstance(found, _Node) else _nodes_of(*found)

    def _search(self, state: EngineState, legal: list[int] | None) -> _Node | tuple[tuple, int]:
        """The Python search's root node, or the compiled search's tree arrays and node
        count (the same tree, from the same draws)."""
        rng = self._rng
        root_legal = list(state.legal_actions() if legal is None else legal)
        rng.shuffle(root_legal)
        compiled = _compiled(state) if self.fast else None
        if compiled is None:
            root = _Node(state.current_player, root_legal, state.game.num_players)
            self._simulate(root, state)
            return root
        from tabletop_zoo.envs.compiled.random_stream import PythonStream  # numba is loaded by now

        stream = PythonStream(rng)  # the generator takes the stream's state back at the end
        try:
            return compiled.search_tree(
                stream.words,
                root_legal,
                self.n_simulations,
                self.exploration,
                self.max_rollout_depth,
                self.solve,
            )
        finally:
            stream.store()

    def _simulate(self, root: _Node, state: EngineState) -> None:
        """Up to ``n_simulations`` playouts from ``root`` (the node of ``state``), on the
        Python engine."""
        shuffle = self._rng.shuffle
        rollout = self._rollout
        c = self.exploration
        n = len(root.value)
        solve = self.solve
        for _ in range(self.n_simulations):
            if root.outcome is not None:
                break  # proven: more simulations cannot change the choice
            node = root
            sim = state.clone()
            path = [root]
            # Selection: descend through fully expanded, unproven nodes by UCT; a proven
            # child is worth its result to the mover, without exploration bonus.
            while node.outcome is None and not node.untried and node.children:
                log_n = math.log(node.visits)
                p = node.player
                best_score = -math.inf
                best_child = node
                best_action = -1
                for action, child in node.children.items():
                    if child.outcome is not None:
                        score = child.outcome[p]
                    else:
                        score = child.value[p] / child.visits + c * math.sqrt(log_n / child.visits)
                    if score > best_score:
                        best_score, best_child, best_action = score, child, action
                sim.apply_action(best_action)
                node = best_child
                path.append(node)
            # Expansion: one untried action (lists were shuffled once, so pop is random).
            if node.outcome is None and node.untried:
                action = node.untried.pop()
                sim.apply_action(action)
                if sim.is_terminal():
                    child = _Node(-1, [], n)
                    if solve:
                        child.outcome = [float(r) for r in sim.returns()]
                else:
                    untried = list(sim.legal_actions())  # a copy: engines may cache the list
                    shuffle(untried)
                    child = _Node(sim.current_player, untried, n)
                node.children[action] = child
                node = child
                path.append(node)
            # Evaluation: a proven result as it stands, else one rollout.
            proven = node.outcome is not None
            result = node.outcome if proven else rollout(sim)
            # Backup, leaf first: returns to every node; proofs while they hold.
            for visited in reversed(path):
                visited.visits += 1
                visited.value = [v + r for v, r in zip(visited.value, result, strict=True)]
                if proven and visited.children:
                    proven = visited.prove()

    def _rollout(self, sim: EngineState) -> list[float]:
        """Play uniformly random moves on ``sim``; return each seat's value."""
        choice = self._rng.choice
        depth = self.max_rollout_depth
        steps = 0
        while not sim.is_terminal():
            if depth is not None and steps >= depth:
                return win_returns(sim.scores())
            sim.apply_action(choice(sim.legal_actions()))
            steps += 1
        return list(sim.returns())
