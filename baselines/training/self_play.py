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

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.alphazero import game_values
from tabletop_zoo.baselines.agents.numpy_net import DenseNet, masked_softmax
from tabletop_zoo.baselines.agents.puct import GumbelHalving, PUCTNode
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
class _Leaves:
    """Positions reached by a batch of action paths, one per requesting game."""

    players: np.ndarray  # (k,) seat to act, -1 where the game is over
    masks: np.ndarray  # (k, num_actions) legal actions (all False where over)
    planes: np.ndarray  # (k, *shape) float32 planes of the seat to act (0 where over)
    values: dict[int, np.ndarray]  # index -> game value of every seat, where over


class _PythonPositions:
    """The games' current positions as Python rules-engine states."""

    engine = "python"

    def __init__(self, spec: Any, game: Any, shape: tuple, slots: int, value: Any) -> None:
        self.game, self.shape, self.value = game, shape, value
        self.encoder = spec.make_observation_encoder(game)
        self.roots: list[Any] = [None] * slots

    def start(self, slot: int, seed: int) -> None:
        self.roots[slot] = self.game.new_initial_state(seed)

    def play(self, slot: int, action: int) -> None:
        self.roots[slot].apply_action(action)

    def final_values(self, slot: int) -> np.ndarray:
        return self.value(self.roots[slot])

    def leaves(self, slots: list[int], paths: list[list[int]]) -> _Leaves:
        k = len(slots)
        leaves = _empty_leaves(k, self.game.num_actions, self.shape)
        for i, (slot, path) in enumerate(zip(slots, paths, strict=True)):
            state = self.roots[slot].clone()
            for action in path:
                state.apply_action(action)
            if state.is_terminal():
                leaves.players[i] = -1
                leaves.values[i] = self.value(state)
                continue
            leaves.players[i] = state.current_player
            leaves.masks[i, state.legal_actions()] = True
            leaves.planes[i] = self.encoder.encode(state, state.current_player)
        return leaves


class _CompiledPositions:
    """The games' current positions as rows of the compiled engine."""

    engine = "compiled"

    def __init__(self, spec: Any, game: Any, shape: tuple, slots: int, value: Any) -> None:
        self.game, self.shape, self.value = game, shape, value
        self.fast = spec.fast_engine_class()(game)
        self.rows = np.zeros((slots, self.fast.state_width), dtype=np.int64)

    def start(self, slot: int, seed: int) -> None:
        # the Python engine sets the game up, so both paths start from the same position
        self.rows[slot] = self.fast.from_state(self.game.new_initial_state(seed))

    def play(self, slot: int, action: int) -> None:
        self.fast.step(self.rows[slot : slot + 1], np.array([action]), autoreset=False)

    def final_values(self, slot: int) -> np.ndarray:
        return self.value(self.fast.wrap(self.rows[slot].copy()))

    def leaves(self, slots: list[int], paths: list[list[int]]) -> _Leaves:
        k = len(slots)
        rows = self.rows[slots]  # a copy (fancy indexing)
        for depth in range(max(len(path) for path in paths)):
            active = np.array([len(path) > depth for path in paths])
            actions = np.array([path[depth] if len(path) > depth else 0 for path in paths])
            self.fast._step(rows, actions, False, active)  # rows made by the engine itself
        leaves = _empty_leaves(k, self.game.num_actions, self.shape)
        leaves.players[:] = rows[:, self.fast.player_column]
        live = leaves.players >= 0
        if live.any():
            leaves.masks[live] = self.fast._legal_mask(rows[live])
            leaves.planes[live] = self.fast._observe(rows[live], leaves.players[live])
        for i in np.flatnonzero(~live):
            leaves.values[int(i)] = self.value(self.fast.wrap(rows[i].copy()))
        return leaves


def _empty_leaves(k: int, num_actions: int, shape: tuple[int, ...]) -> _Leaves:
    return _Leaves(
        np.zeros(k, dtype=np.int64),
        np.zeros((k, num_actions), dtype=bool),
        np.zeros((k, *shape), dtype=np.float32),
        {},
    )


@dataclass
class _Game:
    """One slot's game: its decisions so far and the search of its current move."""

    records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = field(default_factory=list)
    moves: int = 0
    root: PUCTNode | None = None  # the current move's search tree (None: not searching)
    root_planes: np.ndarray | None = None
    root_mask: np.ndarray | None = None
    simulations: int = 0
    halving: GumbelHalving | None = None
    forced: list[int] = field(default_factory=list)  # Gumbel: this phase's root children


def _select(node: PUCTNode, c_puct: float) -> int:
    """The child the seat to act explores next (as ``PUCTSearch``: first-play urgency)."""
    seat, visits = node.player, node.child_visits
    parent_q = node.value_sum[seat] / node.visits if node.visits else 0.0
    q = np.where(visits > 0, node.child_values[:, seat] / np.maximum(visits, 1), parent_q)
    u = c_puct * node.priors * math.sqrt(visits.sum() + 1) / (1 + visits)
    return int(np.argmax(q + u))


def _backup(path: list[tuple[PUCTNode, int]], leaf: PUCTNode, values: np.ndarray) -> None:
    leaf.visits += 1
    leaf.value_sum += values
    for node, index in path:
        node.child_visits[index] += 1
        node.child_values[index] += values
        node.visits += 1
        node.value_sum += values


def _absolute(relative: np.ndarray, seat: int) -> np.ndarray:
    """Network values (relative to ``seat``) in absolute seat order."""
    n = len(relative)
    values = np.zeros(n)
    values[[(seat + k) % n for k in range(n)]] = relative
    return values


def play_self_play_games(
    net: DenseNet, cfg: Any, num_games: int, rng: np.random.Generator
) -> tuple[list[Record], SelfPlayStats]:
    """Play ``num_games`` self-play games of ``cfg`` (a checked
    :class:`~tabletop_zoo.baselines.training.alphazero.AlphaZeroConfig`), ``parallel_games``
    at a time, every seat searching with ``net``; return their decisions (games in the
    order they finished) and what was done. Draws only from ``rng``."""
    spec = get_spec(cfg.game)
    game = new_game(cfg.game, cfg.num_players, **cfg.game_options)
    shape = tuple(net.meta["observation_shape"])
    slots = max(1, min(cfg.parallel_games, num_games))

    def value(state: Any) -> np.ndarray:
        return game_values(state, cfg.score_weight, cfg.score_scale)

    compiled = spec.fast_engine is not None and fast_path_available()
    backend = _CompiledPositions if compiled else _PythonPositions
    positions = backend(spec, game, shape, slots, value)
    stats = SelfPlayStats(engine=positions.engine)
    out: list[Record] = []
    games: list[_Game | None] = [None] * slots
    started = 0

    def begin(slot: int) -> None:
        nonlocal started
        if started < num_games:
            positions.start(slot, int(rng.integers(2**31)))
            games[slot] = _Game()
            started += 1
        else:
            games[slot] = None

    def finish(slot: int) -> None:
        g = games[slot]
        returns = np.asarray(positions.final_values(slot), dtype=np.float32)
        n = cfg.num_players
        for planes, mask, target, seat in g.records:
            out.append((planes, mask, target, returns[[(seat + k) % n for k in range(n)]]))
        stats.games += 1
        stats.decisions += len(g.records)
        begin(slot)

    def decide(slot: int) -> None:
        """The search of ``slot`` is over: record the decision and play the move."""
        g = games[slot]
        root, num_actions = g.root, game.num_actions
        target = np.zeros(num_actions)
        if g.halving is not None:
            chosen, improved = g.halving.result()
            target[root.actions] = improved
            action = int(root.actions[chosen])
        else:
            counts = root.visit_counts(num_actions)
            target = counts / counts.sum()
            if g.moves < cfg.temperature_moves:
                action = int(rng.choice(num_actions, p=target))
            else:
                action = int(np.argmax(counts))
        g.records.append((g.root_planes, g.root_mask, target, root.player))
        positions.play(slot, action)
        g.moves += 1
        g.root, g.halving, g.forced, g.simulations = None, None, [], 0

    def next_forced(g: _Game) -> int | None:
        """Gumbel: the root child of the next simulation (None: the search is over)."""
        while not g.forced:
            phase = g.halving.next_phase()
            if phase is None:
                return None
            g.forced = phase
        return g.forced.pop(0)

    def descend(g: _Game) -> tuple[list[tuple[PUCTNode, int]], list[int]] | None:
        """The path to the next new leaf of ``g``'s tree (backing up finished positions
        met on the way), or None once the search is over."""
        while True:
            if g.halving is not None:
                first = next_forced(g)
                if first is None:
                    return None
            elif g.simulations >= cfg.num_simulations:
                return None
            else:
                first = None
            node, path = g.root, []
            while True:
                index = first if node is g.root and first is not None else _select(node, cfg.c_puct)
                path.append((node, index))
                child = node.children[index]
                if child is None or child.terminal_values is not None:
                    break
                node = child
            if child is None:
                return path, [n.actions[i] for n, i in path]
            _backup(path, child, child.terminal_values)  # a finished position, known
            g.simulations += 1

    for slot in range(slots):
        begin(slot)
    while any(g is not None for g in games):
        stats.steps += 1
        asks: list[tuple[int, list[tuple[PUCTNode, int]] | None]] = []  # (slot, tree path)
        paths: list[list[int]] = []
        for slot, g in enumerate(games):
            if g is None:
                continue
            if g.root is None:
                if g.moves >= cfg.max_moves:  # cut: scored as it stands (env truncation)
                    finish(slot)
                    continue
                asks.append((slot, None))
                paths.append([])
                continue
            found = descend(g)
            if found is None:
                decide(slot)
                continue
            asks.append((slot, found[0]))
            paths.append(found[1])
        if not asks:
            continue
        leaves = positions.leaves([slot for slot, _ in asks], paths)
        valued = [
            i
            for i, (_, path) in enumerate(asks)
            if leaves.players[i] >= 0 and (path is not None or leaves.masks[i].sum() > 1)
        ]
        outputs: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if valued:
            result = net.forward(leaves.planes[valued])
            relative = np.tanh(result["value"])
            for row, i in enumerate(valued):
                legal = np.flatnonzero(leaves.masks[i])
                priors = masked_softmax(result["policy"][row], leaves.masks[i])[legal]
                outputs[i] = (priors, _absolute(relative[row], int(leaves.players[i])))
            stats.evaluations += len(valued)
        for i, (slot, path) in enumerate(asks):
            g = games[slot]
            player = int(leaves.players[i])
            if path is None:  # the position to move from
                if player < 0:
                    finish(slot)
                elif i not in outputs:  # one legal action: no search
                    positions.play(slot, int(np.flatnonzero(leaves.masks[i])[0]))
                    g.moves += 1
                else:
                    _start_search(g, leaves, i, outputs[i], cfg, rng)
                continue
            leaf_node = PUCTNode(player, cfg.num_players)
            parent, index = path[-1]
            parent.children[index] = leaf_node
            if player < 0:
                leaf_node.terminal_values = np.asarray(leaves.values[i], dtype=np.float64)
                _backup(path, leaf_node, leaf_node.terminal_values)
            else:
                priors, values = outputs[i]
                leaf_node.expand(np.flatnonzero(leaves.masks[i]).tolist(), priors)
                _backup(path, leaf_node, values)
            g.simulations += 1
    return out, stats


def _start_search(
    g: _Game, leaves: _Leaves, i: int, output: tuple[np.ndarray, np.ndarray], cfg: Any, rng: Any
) -> None:
    """Make ``g``'s root from its valued position (noise from ``rng``)."""
    priors, values = output
    root = PUCTNode(int(leaves.players[i]), cfg.num_players)
    root.expand(np.flatnonzero(leaves.masks[i]).tolist(), priors)
    root.visits, root.value_sum = 1, values.copy()
    g.root, g.root_planes, g.root_mask = root, leaves.planes[i].copy(), leaves.masks[i].copy()
    if cfg.gumbel:
        g.halving = GumbelHalving(root, rng, cfg.num_simulations, cfg.gumbel_considered)
    else:
        noise = rng.dirichlet([cfg.dirichlet_alpha] * len(root.actions))
        root.priors = 0.75 * root.priors + 0.25 * noise
