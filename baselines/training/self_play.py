"""AlphaZero self-play of many games at once, their leaf evaluations batched.

:func:`play_self_play_games` plays ``parallel_games`` games in lockstep. At every step each
game adds up to ``leaves_per_game`` leaves to its own PUCT tree (a slot of the
:class:`~tabletop_zoo.baselines.agents.tree.Forest`): a game about to move asks for its
root position, a searching game descends its tree to new children, with a virtual loss on
the paths of its pending leaves (as ``PUCTSearch`` collects a batch). The positions of all
these leaves are built together (:mod:`.self_play_positions`, on either engine), the
unfinished ones valued by **one** network call, and each leaf's value backed up its path.
A game whose search is over plays its move; a finished game hands in its decisions and its
slot starts the next game. Every random draw comes from the one NumPy generator in the same
order, so a seed gives the same games on either engine. A fixed ``opponent``
(:func:`load_opponent`) is there because a network that only meets itself can keep a hole
that one fixed opponent walks into every time (docs/results.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.alphazero import absolute_values, game_values
from tabletop_zoo.baselines.agents.dense_rows import mask_columns
from tabletop_zoo.baselines.agents.numpy_net import DenseNet, legal_action, segment_softmax
from tabletop_zoo.baselines.agents.puct import GumbelHalving
from tabletop_zoo.baselines.agents.reference import reference_path
from tabletop_zoo.baselines.agents.tree import COLLISION, FINISHED_LEAF, NEW_LEAF, Forest, RootView
from tabletop_zoo.baselines.training.self_play_positions import (
    CompiledPositions,
    Leaves,
    Paths,
    PythonPositions,
    segments,
)
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
    """One slot's game: its decisions so far and the state of its current move's search."""

    records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = field(default_factory=list)
    moves: int = 0
    root_planes: np.ndarray | None = None
    root_mask: np.ndarray | None = None
    halving: GumbelHalving | None = None
    forced: list[int] = field(default_factory=list)  # Gumbel: this phase's root children
    opponent_seat: int = -1  # the seat the fixed opponent plays (-1: none)


class _SelfPlay:
    """The lockstep loop of :func:`play_self_play_games` (one instance per call)."""

    def __init__(self, net: DenseNet, cfg: Any, num_games: int, rng: Any, compiled: bool,
                 opponent: DenseNet | None = None) -> None:  # fmt: skip
        spec = get_spec(cfg.game)
        self.game = new_game(cfg.game, cfg.num_players, **cfg.game_options)
        self.net, self.cfg, self.num_games, self.rng = net, cfg, num_games, rng
        self.opponent = opponent
        shape = tuple(net.meta["observation_shape"])
        slots = max(1, min(cfg.parallel_games, num_games))
        backend = CompiledPositions if compiled else PythonPositions
        weight, scale = cfg.score_weight, cfg.score_scale
        # A plain function, not a bound method: the positions must not hold ``self``, or
        # the loop, its trees and their arrays form a cycle that only the cyclic garbage
        # collector frees, which ran too rarely in training (gigabytes per hour).
        self.positions = backend(
            spec, self.game, shape, slots, lambda state: game_values(state, weight, scale)
        )
        self.forest = Forest(slots, cfg.num_players, cfg.num_simulations + 2, 64, compiled)
        self.stats = SelfPlayStats(engine=self.positions.engine)
        self.out: list[Record] = []
        self.games: list[_Game | None] = [None] * slots
        self.started = 0
        self.alive = np.zeros(slots, dtype=bool)  # a game is being played in the slot
        self.searching = np.zeros(slots, dtype=bool)  # its tree is this move's search
        self.simulations = np.zeros(slots, dtype=np.int64)  # of this move's search

    def begin(self, slot: int) -> None:
        """Start the next game in ``slot`` (or leave it empty when all have started)."""
        if self.started < self.num_games:
            self.positions.start(slot, int(self.rng.integers(2**31)))
            self.games[slot] = _Game()
            if self.opponent is not None and self.rng.random() < self.cfg.opponent_share:
                self.games[slot].opponent_seat = int(self.rng.integers(self.cfg.num_players))
            self.started += 1
        else:
            self.games[slot] = None
        self.alive[slot] = self.games[slot] is not None
        self.searching[slot], self.simulations[slot] = False, 0

    def finish(self, slot: int) -> None:
        """The game of ``slot`` is over (or cut): hand in its decisions, start the next."""
        g, n = self.games[slot], self.cfg.num_players
        returns = np.asarray(self.positions.final_values(slot), dtype=np.float32)
        for planes, mask, target, seat in g.records:
            self.out.append((planes, mask, target, returns[[(seat + k) % n for k in range(n)]]))
        self.stats.games += 1
        self.stats.decisions += len(g.records)
        self.begin(slot)

    def decide(self, slot: int) -> None:
        """The search of ``slot`` is over: record the decision and play the move."""
        g, num_actions = self.games[slot], self.game.num_actions
        root = RootView(self.forest, slot)
        target = np.zeros(num_actions)
        if g.halving is not None:
            chosen, improved = g.halving.result()
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
        self.positions.play(slot, action)
        g.moves += 1
        g.halving, g.forced = None, []
        self.searching[slot], self.simulations[slot] = False, 0

    def descend(self, slots: np.ndarray) -> Paths:
        """Each searching game of ``slots`` descends to up to ``leaves_per_game`` new leaves
        (games meeting a finished position back it up and go again; games whose search is
        over move); returns the new leaves' paths, by slot, each slot's in descent order."""
        cfg, f = self.cfg, self.forest
        width = f.node_player.shape[1]  # a path is no longer than a tree has nodes
        pending = np.zeros(len(self.games), dtype=np.int64)  # new leaves per slot this step
        found = [Paths.roots([], width)]
        while len(slots):
            going, first = self._budget(slots, pending)
            if not len(going):
                break
            edges, actions, length, status = f.descend(going, first, cfg.c_puct)
            finished, new = status == FINISHED_LEAF, status == NEW_LEAF
            if finished.any():  # a finished position's value, backed up at once
                at = edges[finished, np.maximum(length[finished] - 1, 0)]
                results = f.node_result[going[finished], f.edge_child[going[finished], at]]
                f.back_up(going[finished], edges[finished], length[finished], results)
            self.simulations[going[finished]] += 1
            pending[going[new]] += 1
            found.append(Paths(going[new], edges[new], actions[new], length[new]))
            collided = status == COLLISION
            if cfg.gumbel:  # a collision's forced root child is not visited yet
                for slot, forced in zip(going[collided], first[collided], strict=True):
                    self.games[int(slot)].forced.insert(0, int(forced))
            again = finished | (new & (pending[going] < cfg.leaves_per_game))
            slots = going[again]
        return Paths.joined(found)

    def _budget(self, slots: np.ndarray, pending: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games of ``slots`` that descend once more (and the root child each is forced
        to, -1: none); a game whose search is over, with no leaf pending, moves."""
        cfg = self.cfg
        if cfg.gumbel:
            going, first = [], []
            for slot in slots.tolist():
                g = self.games[slot]
                if pending[slot] and not g.forced:  # the phase is over: its values first
                    continue
                while not g.forced and (phase := g.halving.next_phase()) is not None:
                    g.forced = phase  # the root children of the Gumbel schedule's next phase
                if not g.forced:  # the schedule is over
                    self.decide(slot)
                else:
                    going.append(slot)
                    first.append(g.forced.pop(0))
            return np.array(going, dtype=np.int64), np.array(first, dtype=np.int64)
        over = self.simulations[slots] + pending[slots] >= cfg.num_simulations
        for slot in slots[over & (pending[slots] == 0)].tolist():
            self.decide(slot)
        going = slots[~over]
        return going, np.full(len(going), -1, dtype=np.int64)

    def step(self) -> None:
        """One lockstep step: every game adds its leaves (or asks for its position)."""
        cfg = self.cfg
        self.stats.steps += 1
        alive = np.flatnonzero(self.alive)
        roots = []
        for slot in alive[~self.searching[alive]].tolist():
            if self.games[slot].moves >= cfg.max_moves:  # cut: scored as it stands
                self.finish(slot)  # (as the envs score a truncated game)
            else:
                roots.append(slot)
        paths = self.descend(alive[self.searching[alive]]).with_roots(roots)
        slots, is_root = paths.slots, paths.lengths == 0
        if not len(slots):
            return
        found = self.positions.leaves(slots, paths.actions, paths.lengths)
        _, actions, starts = mask_columns(found.masks)  # none where the game is over
        live, single = found.players >= 0, np.diff(starts) == 1
        opponent = self._opponent_moves(paths, found, is_root & live & ~single)
        valued = np.flatnonzero(live & ~(single & is_root) & (opponent < 0))
        k, n = len(slots), cfg.num_players
        values = np.zeros((k, n))
        priors = np.zeros(len(actions))  # per legal action, as ``actions``
        for i, result in found.values.items():
            values[i] = result
        if len(valued):
            flat, valued_starts = segments(starts, valued)
            planes = found.planes if len(valued) == k else found.planes[valued]
            logits, heads = self.net.forward_flat(planes, actions[flat], valued_starts)
            priors[flat] = segment_softmax(logits, valued_starts)
            values[valued] = absolute_values(np.tanh(heads["value"]), found.players[valued])
            self.stats.evaluations += len(valued)
        grown = ~is_root  # new nodes: every leaf (finished or valued) and the searched roots
        grown[valued] = True
        for slot in slots[grown & is_root].tolist():
            self.forest.clear(slot)
        self._grow(paths, np.flatnonzero(grown), found.players, (actions, starts, priors), values)
        np.add.at(self.simulations, slots[~is_root], 1)
        for i in np.flatnonzero(is_root).tolist():
            slot, g = int(slots[i]), self.games[int(slots[i])]
            if not live[i]:
                self.finish(slot)
            elif single[i]:  # one legal action: no search
                self.positions.play(slot, int(actions[starts[i]]))
                g.moves += 1
            elif opponent[i] >= 0:  # the fixed opponent's move
                self.positions.play(slot, int(opponent[i]))
                g.moves += 1
            else:
                self._start_search(slot, found, i)

    def _opponent_moves(self, paths: Paths, found: Leaves, choosing: np.ndarray) -> np.ndarray:
        """For each entry: the fixed opponent's move where ``choosing`` (a root with a
        choice) and the opponent has the seat to act, else -1; one network call for all."""
        moves = np.full(len(paths.slots), -1, dtype=np.int64)
        if self.opponent is None:
            return moves
        seats = np.array([self.games[int(s)].opponent_seat for s in paths.slots])
        turn = np.flatnonzero(choosing & (found.players == seats))
        if len(turn):
            moves[turn] = opponent_actions(self.opponent, found.planes[turn], found.masks[turn])
            self.stats.opponent_moves += len(turn)
        return moves

    def _grow(self, paths: Paths, at: np.ndarray, players: np.ndarray,
              legal: tuple[np.ndarray, np.ndarray, np.ndarray],
              values: np.ndarray) -> None:  # fmt: skip
        """Add the nodes of entries ``at`` of ``paths`` (their seats to act, their legal
        actions as ``(actions, starts, priors)`` of every entry) and back the leaves up."""
        if not len(at):
            return
        f, slots, lengths = self.forest, paths.slots[at], paths.lengths[at]
        is_root = lengths == 0
        flat, starts = segments(legal[1], at)  # each entry's actions ascending
        actions, priors = legal[0][flat], legal[2][flat]
        last = paths.edges[at, np.maximum(lengths - 1, 0)]
        parent = np.where(is_root, -1, last).astype(np.int64)
        f.add_nodes(slots, parent, players[at], values[at], actions, starts, priors)
        for slot, i in zip(slots[is_root].tolist(), at[is_root].tolist(), strict=True):
            f.node_visits[slot, 0] = 1.0  # the root holds the network's value
            f.node_value[slot, 0] = values[i]
        leaf = ~is_root
        if leaf.any():
            f.back_up(slots[leaf], paths.edges[at[leaf]], lengths[leaf], values[at[leaf]])

    def _start_search(self, slot: int, found: Leaves, i: int) -> None:
        """``slot``'s root is in its tree: noise from ``rng``, then search."""
        cfg, g = self.cfg, self.games[slot]
        root = RootView(self.forest, slot)
        self.searching[slot] = True
        g.root_planes, g.root_mask = found.planes[i].copy(), found.masks[i].copy()
        if cfg.gumbel:
            g.halving = GumbelHalving(root, self.rng, cfg.num_simulations, cfg.gumbel_considered)
        else:
            noise = self.rng.dirichlet([cfg.dirichlet_alpha] * len(root.actions))
            root.priors = 0.75 * root.priors + 0.25 * noise

    def run(self) -> tuple[list[Record], SelfPlayStats]:
        for slot in range(len(self.games)):
            self.begin(slot)
        while self.alive.any():
            self.step()
        return self.out, self.stats


def play_self_play_games(net: DenseNet, cfg: Any, num_games: int, rng: np.random.Generator,
                         fast: bool | None = None, opponent: DenseNet | None = None
                         ) -> tuple[list[Record], SelfPlayStats]:  # fmt: skip
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
