"""Search-based baseline agents: random, greedy one-ply lookahead and UCT Monte Carlo
tree search. They follow the :class:`~tabletop_zoo.baselines.agents.Agent` protocol and
never mutate the ``state`` they are given: the search agents work on ``state.clone()``.

They use only the rules-engine protocol (``legal_actions``,
``apply_action``, ``clone``, ``current_player``, ``is_terminal``, ``returns``,
``scores``), so they work for both games and any number of players.

Fast path: when the ``fast`` extra (numba) is installed, greedy and MCTS work on the
compiled engine's copy of the state (``registry.fast_state``): the same rules, the same
search, with rollouts and the greedy look-ahead inside compiled code. The compiled code
draws from the agent's own ``random.Random`` (:mod:`tabletop_zoo.envs.fast_random`), the
same numbers in the same order as the Python engine's search, so a seed gives the same
moves on both paths. ``fast=False`` (or ``TABLETOP_ZOO_FAST=0``) keeps the Python engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_zoo.envs.protocol import EngineState
from tabletop_zoo.envs.registry import fast_state
from tabletop_zoo.envs.results import win_returns

__all__ = ["GreedyAgent", "MCTSAgent", "RandomAgent"]


def _compiled(state: EngineState) -> Any | None:
    """The compiled copy of ``state`` when the fast path is on and its kernels draw what
    this Python's ``random`` draws (checked once per process), else ``None``."""
    compiled = fast_state(state)
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
    seat after the action (``state.clone()`` + ``apply_action``). If the action ends
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
        player = state.current_player
        best_key: tuple[float, float] | None = None
        best: list[int] = []
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            scores = child.scores()
            margin = scores[player] - max(s for i, s in enumerate(scores) if i != player)
            # Finished games rank by their result first (+1 win ... -1 loss), live ones at 0.
            result = child.returns()[player] if child.is_terminal() else 0.0
            key = (result, float(margin))
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return self._rng.choice(best)


class _Node:
    """A search-tree node: the position after ``action`` from the parent."""

    __slots__ = ("player", "children", "untried", "visits", "value")

    def __init__(self, player: int, untried: list[int], num_players: int) -> None:
        self.player = player  # seat to act here (-1 if terminal)
        self.children: dict[int, _Node] = {}
        self.untried = untried
        self.visits = 0
        self.value = [0.0] * num_players  # summed returns, one entry per seat


class MCTSAgent(_SeededAgent):
    """UCT Monte Carlo tree search on the rules engine, with uniform random rollouts.

    Works for 2-4 players: every node stores the summed returns of every seat and a
    node's children are chosen by the return of the seat to act at that node, so a
    player who makes several decisions in a row (e.g. a choice that follows a move)
    is handled naturally.

    Args:
        n_simulations: playouts per decision.
        exploration: UCT exploration constant ``c`` in ``Q + c * sqrt(ln N / n)``
            (returns are in ``[-1, 1]``).
        max_rollout_depth: if set, a rollout stops after this many random moves and
            the position is valued by the engine's current ``scores()`` as if the game
            ended there (+1 sole top scorer, 0 tied top, -1 others). ``None`` plays
            every rollout to the end of the game.
        seed: seed of the agent's generator (expansion order, rollouts).
        fast: search on the compiled engine when the ``fast`` extra is installed.
    """

    def __init__(
        self,
        n_simulations: int = 200,
        exploration: float = 1.4,
        max_rollout_depth: int | None = None,
        seed: int | None = None,
        name: str | None = None,
        fast: bool = True,
    ) -> None:
        if int(n_simulations) < 1:
            raise ValueError(f"n_simulations must be a positive integer, got {n_simulations!r}")
        if exploration < 0:
            raise ValueError(f"exploration must be >= 0, got {exploration!r}")
        if max_rollout_depth is not None and int(max_rollout_depth) < 0:
            raise ValueError(f"max_rollout_depth must be None or >= 0, got {max_rollout_depth!r}")
        super().__init__(seed, name or f"mcts{int(n_simulations)}")
        self.n_simulations = int(n_simulations)
        self.exploration = float(exploration)
        self.max_rollout_depth = None if max_rollout_depth is None else int(max_rollout_depth)
        self.fast = fast

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState) -> int:
        """Search from ``state`` and return the most visited root action."""
        legal = _legal_from_mask(action_mask)
        if len(legal) == 1:
            return legal[0]
        root = self.search(state, legal)
        return max(legal, key=lambda a: root.children[a].visits if a in root.children else -1)

    def search(self, state: EngineState, legal: list[int] | None = None) -> _Node:
        """Run ``n_simulations`` playouts from a clone of ``state``; return the root node."""
        rng = self._rng
        root_legal = list(state.legal_actions() if legal is None else legal)
        rng.shuffle(root_legal)
        root = _Node(state.current_player, root_legal, state.game.num_players)
        compiled = _compiled(state) if self.fast else None
        if compiled is None:
            self._simulate(root, state, rng.shuffle, self._rollout)
            return root
        from tabletop_zoo.envs.fast_random import PythonStream  # numba is loaded by now

        # Compiled rollouts draw from the agent's generator through ``stream``; so do the
        # shuffles meanwhile, and the generator takes the stream's state back at the end.
        stream = PythonStream(rng)
        depth = self.max_rollout_depth
        try:
            self._simulate(
                root, compiled, stream.shuffle, lambda sim: sim.rollout(stream.words, depth)
            )
        finally:
            stream.store()
        return root

    def _simulate(
        self,
        root: _Node,
        state: EngineState,
        shuffle: Callable[[list[int]], None],
        rollout: Callable[[Any], list[float]],
    ) -> None:
        """``n_simulations`` playouts from ``root`` (the node of ``state``)."""
        c = self.exploration
        n = len(root.value)
        for _ in range(self.n_simulations):
            node = root
            sim = state.clone()
            path = [root]
            # Selection: descend through fully expanded nodes by UCT.
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                p = node.player
                best_score = -math.inf
                best_child = node
                best_action = -1
                for action, child in node.children.items():
                    score = child.value[p] / child.visits + c * math.sqrt(log_n / child.visits)
                    if score > best_score:
                        best_score, best_child, best_action = score, child, action
                sim.apply_action(best_action)
                node = best_child
                path.append(node)
            # Expansion: one untried action (lists were shuffled once, so pop is random).
            if node.untried:
                action = node.untried.pop()
                sim.apply_action(action)
                if sim.is_terminal():
                    child = _Node(-1, [], n)
                else:
                    untried = list(sim.legal_actions())  # a copy: engines may cache the list
                    shuffle(untried)
                    child = _Node(sim.current_player, untried, n)
                node.children[action] = child
                node = child
                path.append(node)
            # Rollout and backup.
            result = rollout(sim)
            for visited in path:
                visited.visits += 1
                value = visited.value
                for i in range(n):
                    value[i] += result[i]

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
