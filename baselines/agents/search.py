"""Search-based baseline agents: random, greedy one-ply lookahead and UCT Monte Carlo
tree search. They follow the :class:`~tabletop_zoo.baselines.agents.Agent` protocol and
never mutate the ``state`` they are given: the search agents work on ``state.clone()``.

They use only the rules-engine protocol (``legal_actions``,
``apply_action``, ``clone``, ``current_player``, ``is_terminal``, ``returns``,
``scores``), so they work for both games and any number of players.

Fast path: when the ``fast`` extra (numba) is installed, greedy and MCTS work on the
compiled engine's copy of the state (``registry.fast_state``; a compiled one-row state is
used as it is): the same rules, the same search, with the whole MCTS search and the greedy
look-ahead inside compiled code. The compiled code
draws from the agent's own ``random.Random`` (:mod:`tabletop_zoo.envs.fast_random`), the
same numbers in the same order as the Python engine's search, so a seed gives the same
moves on both paths. ``fast=False`` (or ``TABLETOP_ZOO_FAST=0``) keeps the Python engine.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from tabletop_zoo.envs.protocol import EngineState
from tabletop_zoo.envs.registry import fast_state, is_fast_state
from tabletop_zoo.envs.results import win_returns

__all__ = ["GreedyAgent", "MCTSAgent", "RandomAgent", "greedy_best"]


def _compiled(state: EngineState) -> Any | None:
    """The compiled copy of ``state`` (``state`` itself if it is a compiled one-row state)
    when the fast path is on and its kernels draw what this Python's ``random`` draws
    (checked once per process), else ``None``."""
    compiled = state if is_fast_state(state) else fast_state(state)
    if compiled is None:
        return None
    from tabletop_zoo.envs.fast_random import matches_python  # numba is loaded by now

    return compiled if matches_python() else None


def _legal_from_mask(action_mask: np.ndarray) -> list[int]:
    """The legal actions of a mask, ascending; a clear error when there are none."""
    legal = np.flatnonzero(action_mask).tolist()
    if not legal:
        raise ValueError("action_mask has no legal action; agents can only act when one exists")
    return legal


class _SeededAgent:
    """Shared by the baselines: a name and a seeded generator that ``reset`` re-seeds.

    ``reads_observation = False``: these agents use the mask and the state only, so callers
    that build observation planes on demand (the single-agent wrapper) may pass ``None``.
    ``acts_on_compiled_state = True``: ``state`` may be a compiled one-row state (what the
    batched arena passes); the agent then plays the moves it plays on the Python state.
    """

    reads_observation = False
    acts_on_compiled_state = True

    def __init__(self, seed: int | None, name: str) -> None:
        self.name = name
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator (``None`` keeps the current stream)."""
        if seed is not None:
            self._rng.seed(seed)


class RandomAgent(_SeededAgent):
    """Uniformly random over the legal actions of the mask (seeded)."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        super().__init__(seed, name)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState | None = None
    ) -> int:
        """Pick a legal action uniformly at random."""
        return self._rng.choice(_legal_from_mask(action_mask))


class GreedyAgent(_SeededAgent):
    """One-ply lookahead: the action with the best immediate score margin.

    The margin of an action is the mover's score minus the best score of any other
    seat after the action (:func:`greedy_best`: ``state.clone()`` + ``apply_action``, or
    the engine's own ``greedy_best()``, which gives the same list). If the action ends
    the game, the result dominates: a win beats every non-final margin, a loss is
    worse than every non-final margin. Ties are broken at random (seeded).
    """

    def __init__(self, seed: int | None = None, name: str = "greedy", fast: bool = True) -> None:
        super().__init__(seed, name)
        self.fast = fast

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState) -> int:
        """Evaluate every legal action one ply deep and return a best one."""
        legal = _legal_from_mask(action_mask)
        if len(legal) == 1:
            return legal[0]
        compiled = _compiled(state) if self.fast else None
        if compiled is not None:  # the same best list, ascending, from compiled code
            return self._rng.choice(compiled.greedy_best())
        # An engine may work the same list out without clones (its state's greedy_best).
        own_rule = getattr(state, "greedy_best", None)
        return self._rng.choice(own_rule() if own_rule is not None else greedy_best(state, legal))


def greedy_best(state: EngineState, legal: list[int]) -> list[int]:
    """The greedy rule by definition: each action of ``legal`` played on a clone of
    ``state``, ranked by its result if the game ends (+1 win ... -1 loss; live games at 0),
    then by the mover's score margin over the best other seat; the best ones in the order
    of ``legal``. An engine's own ``greedy_best()`` must give the same list."""
    player = state.current_player
    best_key: tuple[float, float] | None = None
    best: list[int] = []
    for action in legal:
        child = state.clone()
        child.apply_action(action)
        scores = child.scores()
        margin = scores[player] - max(s for i, s in enumerate(scores) if i != player)
        result = child.returns()[player] if child.is_terminal() else 0.0
        key = (result, float(margin))
        if best_key is None or key > best_key:
            best_key, best = key, [action]
        elif key == best_key:
            best.append(action)
    return best


#: The best return of a seat (``win_returns``: +1 for the sole top scorer). A child whose
#: proven result gives its mover this much proves its parent at once (MCTS-Solver).
MAX_UTILITY = 1.0


class _Node:
    """A search-tree node: the position after ``action`` from the parent.

    ``outcome`` is ``None`` until the node's result is proven (MCTS-Solver): then it is
    the returns of every seat under best play of each seat to move (max^n), as for a
    finished game, which is proven by its own returns.
    """

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
        if self.outcome is not None:
            return True
        p = self.player
        best: list[float] | None = None
        every_child_proven = not self.untried
        for child in self.children.values():
            if child.outcome is None:
                every_child_proven = False
            elif best is None or child.outcome[p] > best[p]:
                best = child.outcome
        if best is not None and (every_child_proven or best[p] >= MAX_UTILITY):
            self.outcome = best
            return True
        return False

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
    (:mod:`tabletop_zoo.envs.fast_search`): the same tree as the Python search's."""
    from tabletop_zoo.envs import fast_search as S

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
    """UCT Monte Carlo tree search on the rules engine, with uniform random rollouts and
    MCTS-Solver backups of proven results.

    Works for 2-4 players: every node stores the summed returns of every seat and a
    node's children are chosen by the return of the seat to act at that node, so a
    player who makes several decisions in a row (e.g. a choice that follows a move)
    is handled naturally.

    One simulation descends by UCT through fully expanded nodes, expands one untried
    action (each node's actions are shuffled once, so the order is random), values the
    new position by one random rollout and adds the returns to every node on the path.
    With ``solve`` (the default), finished games are proven results that are backed up
    max^n style (a node is proven when a child gives its mover the best return, or when
    every child is proven); a proven child counts as its result without exploration
    bonus, a simulation that reaches a proven node backs up its result without a
    rollout, and the search stops early once the root is proven. The move played is the
    root child with the best proven result for the mover, then the most visits, then
    the highest summed return (see :meth:`_Node.best_action`). This is the algorithm of
    OpenSpiel's Python ``MCTSBot`` with its default ``solve=True``, except that the root's
    first simulation already expands a move (``MCTSBot`` spends it on a rollout from the
    root) and a simulation reaching a proven node backs up its result (``MCTSBot`` descends
    on and may roll out below it).

    On the fast path the whole search runs in compiled code
    (:mod:`tabletop_zoo.envs.fast_search`) and builds the same tree from the same draws.

    Args:
        n_simulations: playouts per decision.
        exploration: UCT exploration constant ``c`` in ``Q + c * sqrt(ln N / n)``
            (returns are in ``[-1, 1]``).
        max_rollout_depth: if set, a rollout stops after this many random moves and
            the position is valued by the engine's current ``scores()`` as if the game
            ended there (+1 sole top scorer, 0 tied top, -1 others). ``None`` plays
            every rollout to the end of the game. Cut rollouts never prove anything.
        seed: seed of the agent's generator (expansion order, rollouts).
        fast: search on the compiled engine when the ``fast`` extra is installed.
        solve: back up proven results (MCTS-Solver); ``False`` gives plain UCT.
    """

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
        """Search from ``state`` and return the root's best action (a proven win, else
        the most visited; see :meth:`_Node.best_action`)."""
        legal = _legal_from_mask(action_mask)
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
        from tabletop_zoo.envs.fast_search import ACTION, best_child

        tree = found[0]
        return int(tree[0][best_child(tree, 0), ACTION])

    def search(self, state: EngineState, legal: list[int] | None = None) -> _Node:
        """Run up to ``n_simulations`` playouts from a clone of ``state`` (fewer once the
        root is proven); return the root node of the tree."""
        found = self._search(state, legal)
        return found if isinstance(found, _Node) else _nodes_of(*found)

    def _search(self, state: EngineState, legal: list[int] | None) -> _Node | tuple[tuple, int]:
        """The Python search's root node, or the compiled search's tree arrays and node
        count (the fast path: the whole search in compiled code, drawing from the agent's
        generator through a stream, so both give the same tree)."""
        rng = self._rng
        root_legal = list(state.legal_actions() if legal is None else legal)
        rng.shuffle(root_legal)
        compiled = _compiled(state) if self.fast else None
        if compiled is None:
            root = _Node(state.current_player, root_legal, state.game.num_players)
            self._simulate(root, state)
            return root
        from tabletop_zoo.envs.fast_random import PythonStream  # numba is loaded by now

        stream = PythonStream(rng)  # the generator takes the stream's state back at the end
        try:
            return compiled.search_tree(
                stream.words, root_legal, self.n_simulations, self.exploration,
                self.max_rollout_depth, self.solve,
            )  # fmt: skip
        finally:
            stream.store()

    def _simulate(self, root: _Node, state: EngineState) -> None:
        """Up to ``n_simulations`` playouts from ``root`` (the node of ``state``), on the
        Python engine (the fast path runs the same loop in compiled code)."""
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
                value = visited.value
                for i in range(n):
                    value[i] += result[i]
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
