"""AlphaZero self-play of many games at once, their leaf evaluations batched.

:func:`play_self_play_games` plays ``parallel_games`` games in lockstep, each with its own
tree (a slot of the agents' :class:`~tabletop_zoo.baselines.agents.puct.SearchTrees`),
searched by the one loop of :class:`~tabletop_zoo.baselines.agents.puct.PUCTSearch`: every
step, each searching game adds up to ``leaves_per_game`` leaves (a batch of the one-game
search, with virtual loss), a game about to move has its root valued, and all of them go
through **one** network call. This module keeps the games' life cycle: a game whose search
is over plays its move (with a temperature at first) and records its decision; a finished
game hands in its decisions and its slot starts the next game. Every random draw comes from
the one NumPy generator in the same order, so a seed gives the same games on either engine.
A fixed ``opponent`` (:func:`load_opponent`) is there because a network that only meets
itself can keep a hole that one fixed opponent walks into every time (docs/results.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.alphazero import NetworkEvaluator, game_values
from tabletop_zoo.baselines.agents.numpy_net import DenseNet, legal_action
from tabletop_zoo.baselines.agents.positions import CompiledPositions, Leaves, PythonPositions
from tabletop_zoo.baselines.agents.puct import PUCTSearch, SearchTrees
from tabletop_zoo.baselines.agents.reference import reference_path
from tabletop_zoo.baselines.agents.tree import RootView
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tabletop_zoo.envs.registry import fast_path_available, get_spec, new_game

#: One decision: observation planes of the seat to act, legal mask, policy target and the
#: value of every seat relative to the seat to act (filled in when the game ends).
Record = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass
class SelfPlayStats:
    """What a call of :func:`play_self_play_games` did."""

    games: int = 0
    decisions: int = 0
    steps: int = 0  # lockstep steps (each: one batch of leaves, at most one network call)
    evaluations: int = 0  # positions valued by the network
    opponent_moves: int = 0  # moves of a fixed opponent (``opponent``), not recorded
    engine: str = "python"  # "compiled" or "python"


@dataclass
class _Game:
    """One slot's game: its decisions so far and its current move's root."""

    records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = field(default_factory=list)
    moves: int = 0
    root_planes: np.ndarray | None = None
    root_mask: np.ndarray | None = None
    opponent_seat: int = -1  # the seat the fixed opponent plays (-1: none)


class _SelfPlay:
    """The lockstep loop of :func:`play_self_play_games` (one instance per call)."""

    def __init__(
        self,
        net: DenseNet,
        cfg: Any,
        num_games: int,
        rng: Any,
        compiled: bool,
        opponent: DenseNet | None = None,
    ) -> None:
        spec = get_spec(cfg.game)
        self.game = new_game(cfg.game, cfg.num_players, **cfg.game_options)
        self.cfg, self.num_games, self.rng, self.opponent = cfg, num_games, rng, opponent
        slots = max(1, min(cfg.parallel_games, num_games))
        weight, scale = cfg.score_weight, cfg.score_scale
        # A plain function, not a bound method: the positions must not hold ``self``, or
        # the loop, its trees and their arrays form a cycle that only the cyclic garbage
        # collector frees, which ran too rarely in training (gigabytes per hour).
        value = lambda state: game_values(state, weight, scale)  # noqa: E731
        if compiled:
            positions = CompiledPositions(spec.fast_engine_class()(self.game), slots, value)
        else:
            positions = PythonPositions(self.game, slots, value)
        self.trees = SearchTrees(positions, cfg.num_players, cfg.num_simulations + 2, compiled)
        alpha = None if cfg.gumbel else cfg.dirichlet_alpha
        evaluate = NetworkEvaluator(net)
        self.search = PUCTSearch(
            evaluate, cfg.num_simulations, cfg.c_puct, cfg.leaves_per_game, alpha
        )
        self.search.rng = rng  # the one generator
        self.considered = cfg.gumbel_considered if cfg.gumbel else None  # Gumbel roots
        self.stats = SelfPlayStats(engine=positions.kind)
        self.out: list[Record] = []
        self.games: list[_Game | None] = [None] * slots
        self.started = 0
        self.alive = np.zeros(slots, dtype=bool)  # a game is being played in the slot
        self.searching = np.zeros(slots, dtype=bool)  # its tree is this move's search

    def begin(self, slot: int) -> None:
        """Start the next game in ``slot`` (or leave it empty when all have started)."""
        if self.started < self.num_games:
            seed = int(self.rng.integers(2**31))
            self.trees.positions.start(slot, self.game.new_initial_state(seed))
            self.games[slot] = _Game()
            if self.opponent is not None and self.rng.random() < self.cfg.opponent_share:
                self.games[slot].opponent_seat = int(self.rng.integers(self.cfg.num_players))
            self.started += 1
        else:
            self.games[slot] = None
        self.alive[slot] = self.games[slot] is not None
        self.searching[slot] = False

    def finish(self, slot: int) -> None:
        """The game of ``slot`` is over (or cut): hand in its decisions, start the next."""
        g, n = self.games[slot], self.cfg.num_players
        positions = self.trees.positions  # the game as it stands (finished or cut):
        returns = positions.values(positions.nodes[[slot], 0])[0].astype(np.float32)
        for planes, mask, target, seat in g.records:
            self.out.append((planes, mask, target, returns[[(seat + k) % n for k in range(n)]]))
        self.stats.games += 1
        self.stats.decisions += len(g.records)
        self.begin(slot)

    def play(self, slot: int, action: int) -> None:
        """Play ``action`` in the game of ``slot``; its next move is searched afresh."""
        self.trees.positions.play(slot, action)
        self.games[slot].moves += 1
        self.searching[slot] = False

    def decide(self, slot: int) -> None:
        """The search of ``slot`` is over: record the decision and play the move."""
        g, num_actions = self.games[slot], self.game.num_actions
        root, halving = RootView(self.trees.forest, slot), self.trees.halving[slot]
        target = np.zeros(num_actions)
        if halving is not None:
            chosen, improved = halving.result()
            target[root.actions] = improved
            action = int(root.actions[chosen])
        else:
            counts = root.visit_counts(num_actions)
            target = counts / counts.sum()
            if g.moves < self.cfg.temperature_moves:
                action = int(self.rng.choice(num_actions, p=target))
            else:
                action = root.final_move()
        g.records.append((g.root_planes, g.root_mask, target, root.player))
        self.play(slot, action)

    def step(self) -> None:
        """One lockstep step: the searching games add their leaves, the games about to move
        have their roots valued (or play a forced or the opponent's move, or end)."""
        self.stats.steps += 1
        alive = np.flatnonzero(self.alive)
        waiting = []  # the games about to move
        for slot in alive[~self.searching[alive]].tolist():
            if self.games[slot].moves >= self.cfg.max_moves:  # cut: scored as it stands
                self.finish(slot)  # (as the envs score a truncated game)
            else:
                waiting.append(slot)
        roots = self.trees.positions.roots(np.array(waiting, dtype=np.int64))
        live, single = roots.players >= 0, np.diff(roots.starts) == 1
        opponent = self._opponent_moves(roots, live & ~single)
        searched = np.flatnonzero(live & ~single & (opponent < 0))
        searching = alive[self.searching[alive]]
        over, valued = self.search.step(self.trees, searching, roots.slots[searched])
        self.stats.evaluations += 0 if valued is None else len(valued.slots)
        for slot in over:
            self.decide(slot)
        masks = roots.masks()
        for i, slot in enumerate(waiting):
            if not live[i]:
                self.finish(slot)
            elif single[i]:  # one legal action: no search
                self.play(slot, int(roots.actions[roots.starts[i]]))
            elif opponent[i] >= 0:  # the fixed opponent's move
                self.play(slot, int(opponent[i]))
            else:  # its root is valued (roots first): search
                g, j = self.games[slot], int(np.searchsorted(searched, i))
                g.root_planes, g.root_mask = valued.planes()[j].copy(), masks[i]
                self.searching[slot] = True
                self.search.start(self.trees, slot, self.considered)

    def _opponent_moves(self, roots: Leaves, choosing: np.ndarray) -> np.ndarray:
        """For each root: the fixed opponent's move where ``choosing`` (a choice to make)
        and the opponent has the seat to act, else -1; one network call for all."""
        moves = np.full(len(roots.slots), -1, dtype=np.int64)
        if self.opponent is None:
            return moves
        seats = np.array([self.games[slot].opponent_seat for slot in roots.slots.tolist()])
        turn = np.flatnonzero(choosing & (roots.players == seats))
        if len(turn):
            theirs = self.trees.positions.roots(roots.slots[turn])
            moves[turn] = opponent_actions(self.opponent, theirs.planes(), theirs.masks())
            self.stats.opponent_moves += len(turn)
        return moves

    def run(self) -> tuple[list[Record], SelfPlayStats]:
        for slot in range(len(self.games)):
            self.begin(slot)
        while self.alive.any():
            self.step()
        return self.out, self.stats


def play_self_play_games(
    net: DenseNet,
    cfg: Any,
    num_games: int,
    rng: np.random.Generator,
    fast: bool | None = None,
    opponent: DenseNet | None = None,
) -> tuple[list[Record], SelfPlayStats]:
    """Play ``num_games`` self-play games of a checked ``AlphaZeroConfig`` ``cfg``, every
    seat searching with ``net``; their decisions (games in the order they finished) and what
    was done. Draws only from ``rng``. ``fast``: the compiled engine and tree kernels
    (``None``: when :func:`~tabletop_zoo.envs.registry.fast_path_available`). ``opponent``:
    a fixed policy network that takes one seat (drawn uniformly) of a game with probability
    ``cfg.opponent_share`` (drawn as each game starts; nothing is drawn without one) and
    plays its most probable legal action there, unsearched and unrecorded."""
    spec = get_spec(cfg.game)
    compiled = spec.fast_engine is not None and (fast_path_available() if fast is None else fast)
    return _SelfPlay(net, cfg, num_games, rng, compiled, opponent).run()


def load_opponent(
    spec: str, game: str, num_players: int, shape: tuple[int, ...], num_actions: int
) -> DenseNet:
    """The network of opponent ``spec``: ``ref:NAME`` (a shipped reference model, its hash
    checked) or a network file (a PPO export, or an AlphaZero network whose policy head
    plays without search), checked to be a policy of ``game`` with ``num_players`` reading
    planes of ``shape``; :class:`~tabletop_zoo.envs.errors.InvalidOptionError` (or its
    ``ModelFileError``) otherwise."""
    path = reference_path(spec[4:]) if spec.startswith("ref:") else Path(spec)
    net = DenseNet.load(path)
    meta, label = net.meta, f"opponent {spec!r}"
    if "policy" not in net.heads:
        raise InvalidOptionError(f"{label}: the network has no policy head")
    found = (meta.get("game"), meta.get("num_players"), meta.get("num_actions"))
    if found != (game, num_players, num_actions):
        raise InvalidOptionError(
            f"{label} is a network of {found[0]!r} with {found[1]} players and {found[2]} "
            f"actions, not of {game!r} with {num_players} players and {num_actions} actions"
        )
    if tuple(meta.get("observation_shape", ())) != tuple(shape):
        raise InvalidOptionError(
            f"{label} reads observations of shape {meta.get('observation_shape')}, "
            f"the game's are {list(shape)}"
        )
    mismatch = net.layer_mismatch()
    if mismatch:
        raise ModelFileError(f"{label}: {mismatch}")
    return net


def opponent_actions(net: DenseNet, planes: np.ndarray, masks: np.ndarray) -> list[int]:
    """The opponent's move in each position (``planes`` of the seat to act, legal
    ``masks``): the legal action with the largest logit, all rows in one network call."""
    legal = [np.flatnonzero(mask) for mask in masks]
    logits, _ = net.forward_rows(planes, legal)
    return [legal_action(row, actions) for row, actions in zip(logits, legal, strict=True)]
