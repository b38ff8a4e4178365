"""AlphaZero self-play of many games at once, their leaf evaluations batched.

:func:`play_self_play_games` plays ``parallel_games`` games in lockstep. At every step each
game adds one leaf to its own PUCT tree (one leaf per game per step, so no virtual loss
is needed): a game about to move asks for its root position, a game searching descends
its tree (``argmax Q + U`` as :class:`~tabletop_zoo.baselines.agents.puct.PUCTSearch`)
to a new child. The positions of all these leaves are built together, the unfinished ones
are valued by **one** network call, and each game backs its leaf's value up its path.
A game whose search has used its ``num_simulations`` leaves (or whose Gumbel schedule,
:class:`~tabletop_zoo.baselines.agents.puct.GumbelHalving`, is over) plays its move;
a finished game hands in its decisions and its slot starts the next game.

The positions live on the compiled engine (``envs/<game>/fast``: one batched step per
tree level, batched legal masks and observation planes) when the fast path is available
(:func:`~tabletop_zoo.envs.registry.fast_path_available`: numba installed and
``TABLETOP_ZOO_FAST`` not ``0``), and on the Python rules engine otherwise. Both give
the same legal actions (ascending), the same observation planes and the same values of
finished games, and every random draw (game seeds, Dirichlet or Gumbel noise, move
sampling) comes from the one NumPy generator in the same order, so a seed gives the same
games and the same trained network either way; only the speed differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.alphazero import absolute_values, game_values
from tabletop_zoo.baselines.agents.dense_rows import mask_columns
from tabletop_zoo.baselines.agents.numpy_net import DenseNet, segment_softmax
from tabletop_zoo.baselines.agents.puct import GumbelHalving
from tabletop_zoo.baselines.training.self_play_positions import (
    CompiledPositions,
    Leaves,
    PythonPositions,
)
from tabletop_zoo.baselines.training.self_play_tree import Forest, RootView, kernels
from tabletop_zoo.envs.registry import fast_path_available, get_spec, new_game

__all__ = ["Record", "SelfPlayStats", "play_self_play_games"]

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


class _SelfPlay:
    """The lockstep loop of :func:`play_self_play_games` (one instance per call)."""

    def __init__(self, net: DenseNet, cfg: Any, num_games: int, rng: Any, compiled: bool):
        spec = get_spec(cfg.game)
        self.game = new_game(cfg.game, cfg.num_players, **cfg.game_options)
        self.net, self.cfg, self.num_games, self.rng = net, cfg, num_games, rng
        shape = tuple(net.meta["observation_shape"])
        slots = max(1, min(cfg.parallel_games, num_games))
        backend = CompiledPositions if compiled else PythonPositions
        self.positions = backend(spec, self.game, shape, slots, self._value)
        self.forest = Forest(slots, cfg.num_players, cfg.num_simulations + 2, 64)
        self.kernels = kernels(compiled)
        self.stats = SelfPlayStats(engine=self.positions.engine)
        self.out: list[Record] = []
        self.games: list[_Game | None] = [None] * slots
        self.started = 0
        self.alive = np.zeros(slots, dtype=bool)  # a game is being played in the slot
        self.searching = np.zeros(slots, dtype=bool)  # its tree is this move's search
        self.simulations = np.zeros(slots, dtype=np.int64)  # of this move's search
        self.path_edges = np.zeros((slots, 1), dtype=np.int64)  # the last descents
        self.path_actions = np.zeros((slots, 1), dtype=np.int64)
        self.path_length = np.zeros(slots, dtype=np.int64)

    def _value(self, state: Any) -> np.ndarray:
        return game_values(state, self.cfg.score_weight, self.cfg.score_scale)

    def begin(self, slot: int) -> None:
        """Start the next game in ``slot`` (or leave it empty when all have started)."""
        if self.started < self.num_games:
            self.positions.start(slot, int(self.rng.integers(2**31)))
            self.games[slot] = _Game()
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
            counts = np.zeros(num_actions)
            counts[root.actions] = root.child_visits
            target = counts / counts.sum()
            if g.moves < self.cfg.temperature_moves:
                action = int(self.rng.choice(num_actions, p=target))
            else:
                action = int(np.argmax(counts))
        g.records.append((g.root_planes, g.root_mask, target, root.player))
        self.positions.play(slot, action)
        g.moves += 1
        g.halving, g.forced = None, []
        self.searching[slot], self.simulations[slot] = False, 0

    def next_forced(self, g: _Game) -> int | None:
        """Gumbel: the forced root child of ``g``'s next simulation, or None once its
        search is over."""
        while not g.forced:
            phase = g.halving.next_phase()
            if phase is None:
                return None
            g.forced = phase
        return g.forced.pop(0)

    def descend(self, slots: np.ndarray) -> np.ndarray:
        """Each searching game of ``slots`` descends to a new leaf (games meeting a
        finished position back it up and go again; games whose search is over move);
        returns the slots that reached a new leaf, ascending (their paths in ``path_*``)."""
        cfg, f = self.cfg, self.forest
        leaves = [np.zeros(0, dtype=np.int64)]
        while len(slots):
            if cfg.gumbel:
                going, first = [], []
                for slot in slots.tolist():
                    forced = self.next_forced(self.games[slot])
                    if forced is None:
                        self.decide(slot)
                    else:
                        going.append(slot)
                        first.append(forced)
                going, first = np.array(going, dtype=np.int64), np.array(first, dtype=np.int64)
            else:
                over = self.simulations[slots] >= cfg.num_simulations
                for slot in slots[over].tolist():
                    self.decide(slot)
                going = slots[~over]
                first = np.full(len(going), -1, dtype=np.int64)
            if not len(going):
                break
            width = f.node_player.shape[1]  # a path is no longer than a tree has nodes
            if self.path_edges.shape[1] < width:
                self.path_edges = np.zeros((len(self.games), width), dtype=np.int64)
                self.path_actions = np.zeros((len(self.games), width), dtype=np.int64)
            edges = np.zeros((len(going), width), dtype=np.int64)
            actions, length = np.zeros_like(edges), np.zeros(len(going), dtype=np.int64)
            status = np.zeros(len(going), dtype=np.int64)
            self.kernels.descend(
                *f.node_arrays(),
                *f.edge_arrays(),
                going,
                first,
                float(cfg.c_puct),
                edges,
                actions,
                length,
                status,
            )
            self.path_edges[going, :width], self.path_actions[going, :width] = edges, actions
            self.path_length[going] = length
            finished = status == 1
            self.simulations[going[finished]] += 1
            leaves.append(going[~finished])
            slots = going[finished]
        return np.sort(np.concatenate(leaves))

    def step(self) -> None:
        """One lockstep step: every game adds one leaf (or asks for its position)."""
        cfg = self.cfg
        self.stats.steps += 1
        alive = np.flatnonzero(self.alive)
        roots = []
        for slot in alive[~self.searching[alive]].tolist():
            if self.games[slot].moves >= cfg.max_moves:  # cut: scored as it stands
                self.finish(slot)  # (as the envs score a truncated game)
            else:
                roots.append(slot)
        leaves = self.descend(alive[self.searching[alive]])
        slots = np.sort(np.concatenate([np.array(roots, dtype=np.int64), leaves]))
        if not len(slots):
            return
        is_root = np.isin(slots, roots)
        lengths = np.where(is_root, 0, self.path_length[slots])
        found = self.positions.leaves(slots, self.path_actions[slots], lengths)
        live = found.players >= 0
        single = found.masks.sum(axis=1) == 1
        valued = np.flatnonzero(live & ~(single & is_root))
        k, n = len(slots), cfg.num_players
        values = np.zeros((k, n))
        priors = np.zeros((k, self.game.num_actions))
        for i, result in found.values.items():
            values[i] = result
        if len(valued):
            which, actions, starts = mask_columns(found.masks[valued])
            logits, heads = self.net.forward_flat(found.planes[valued], actions, starts)
            priors[valued[which], actions] = segment_softmax(logits, starts)
            values[valued] = absolute_values(np.tanh(heads["value"]), found.players[valued])
            self.stats.evaluations += len(valued)
        grown = ~is_root  # new nodes: every leaf (finished or valued) and the searched roots
        grown[valued] = True
        for slot in slots[grown & is_root].tolist():
            self.forest.clear(slot)
        self._grow(slots, is_root, np.flatnonzero(grown), found, priors, values)
        self.simulations[slots[~is_root]] += 1
        for i in np.flatnonzero(is_root).tolist():
            slot, g = int(slots[i]), self.games[int(slots[i])]
            if not live[i]:
                self.finish(slot)
            elif single[i]:  # one legal action: no search
                self.positions.play(slot, int(np.flatnonzero(found.masks[i])[0]))
                g.moves += 1
            else:
                self._start_search(slot, found, i)

    def _grow(
        self,
        slots: np.ndarray,
        is_root: np.ndarray,
        at: np.ndarray,
        found: Leaves,
        priors: np.ndarray,
        values: np.ndarray,
    ) -> None:
        """Add the nodes of entries ``at`` of ``slots`` and back the leaves up."""
        if not len(at):
            return
        f, slots, is_root = self.forest, slots[at], is_root[at]
        masks = found.masks[at] & (found.players[at] >= 0)[:, None]
        rows, actions, starts = mask_columns(masks)  # each row's actions ascending
        f.reserve(slots, np.diff(starts))
        last = self.path_edges[slots, np.maximum(self.path_length[slots] - 1, 0)]
        parent = np.where(is_root, -1, last).astype(np.int64)
        self.kernels.expand(
            *f.node_arrays(),
            *f.edge_arrays(),
            f.node_count,
            f.edge_count,
            slots,
            parent,
            found.players[at],
            np.ascontiguousarray(values[at]),
            starts,
            actions,
            np.ascontiguousarray(priors[at][rows, actions]),
        )
        for slot, i in zip(slots[is_root].tolist(), at[is_root].tolist(), strict=True):
            f.node_visits[slot, 0] = 1.0  # the root holds the network's value
            f.node_value[slot, 0] = values[i]
        leaf = ~is_root
        if leaf.any():
            slots = slots[leaf]
            self.kernels.backup(
                f.node_visits,
                f.node_value,
                f.edge_visits,
                f.edge_value,
                f.edge_child,
                slots,
                np.ascontiguousarray(self.path_edges[slots]),
                self.path_length[slots],
                np.ascontiguousarray(values[at[leaf]]),
            )

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


def play_self_play_games(
    net: DenseNet,
    cfg: Any,
    num_games: int,
    rng: np.random.Generator,
    fast: bool | None = None,
) -> tuple[list[Record], SelfPlayStats]:
    """Play ``num_games`` self-play games of ``cfg`` (a checked
    :class:`~tabletop_zoo.baselines.training.alphazero.AlphaZeroConfig`), ``parallel_games``
    at a time, every seat searching with ``net``; return their decisions (games in the
    order they finished) and what was done. Draws only from ``rng``.

    ``fast``: the compiled engine and compiled tree kernels (``None``: when
    :func:`~tabletop_zoo.envs.registry.fast_path_available`; ``False``: the Python engine
    and the kernels as Python). The games are the same either way."""
    spec = get_spec(cfg.game)
    compiled = spec.fast_engine is not None and (fast_path_available() if fast is None else fast)
    return _SelfPlay(net, cfg, num_games, rng, compiled).run()
