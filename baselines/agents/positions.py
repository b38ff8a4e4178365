"""The positions of the PUCT search trees (:mod:`.puct`), one tree per slot, on either
engine: :class:`PythonPositions` keeps the position of every node as a rules-engine state,
:class:`CompiledPositions` as a row of the compiled engine (a batch of new positions in one
batched engine step, their legal actions and planes in batched calls). Both answer the same
questions with the same numbers.

A node's position is kept when the node is added, so a new leaf is one move from a kept
position (not replayed from the root: fewer engine steps per leaf, for the memory of a
position per node; docs/experiments/2026-12-08-one-search-loop.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.dense_rows import flat_columns, mask_columns
from tabletop_zoo.envs.registry import is_fast_state, spec_of


@dataclass
class Leaves:
    """Positions of a batch, entry ``i`` of tree ``slots[i]``: the position ``held[i]`` (a
    rules-engine state or a compiled row), its seat to act (``players``, -1: finished) and
    its legal actions (end to end, entry ``i``'s from ``starts[i]``; none where finished).
    What an evaluator reads of them besides: :meth:`planes` and :meth:`states`."""

    positions: PythonPositions | CompiledPositions
    slots: np.ndarray
    held: np.ndarray
    players: np.ndarray
    actions: np.ndarray
    starts: np.ndarray
    _planes: np.ndarray | None = None

    def planes(self) -> np.ndarray:
        """The observation planes of the seat to act, float32 (computed once)."""
        if self._planes is None:
            self._planes = self.positions.planes(self.held, self.players)
        return self._planes

    def states(self) -> list[Any]:
        """The positions as engine-protocol states (compiled ones for compiled rows)."""
        return [self.positions.state(position) for position in self.held]

    def masks(self) -> np.ndarray:
        """The legal actions as a bool mask per entry."""
        masks = np.zeros((len(self.players), self.positions.game.num_actions), dtype=bool)
        masks[np.repeat(np.arange(len(self.players)), np.diff(self.starts)), self.actions] = True
        return masks


class PythonPositions:
    """The positions of the nodes of ``slots`` trees (node 0: the root) as rules-engine
    states of ``game``; ``value``: every seat's value of a finished position."""

    kind = "python"

    def __init__(self, game: Any, slots: int, value: Any, nodes: int = 16) -> None:
        self.game, self.slots, self.value = game, slots, value
        self.nodes = self._nodes(slots, nodes)
        self._encoder: Any = None

    def _nodes(self, slots: int, size: int) -> np.ndarray:
        return np.empty((slots, size), dtype=object)

    def start(self, slot: int, state: Any) -> None:
        """``state`` (kept, not copied) is the root position of tree ``slot``."""
        self.nodes[slot, 0] = state

    def keep(self, slots: np.ndarray, nodes: np.ndarray, held: np.ndarray) -> None:
        """``held[i]`` is the position of node ``nodes[i]`` of tree ``slots[i]``."""
        size = self.nodes.shape[1]
        if len(nodes) and nodes.max() >= size:  # room by doubling (kept ones are read)
            grown = self._nodes(self.slots, max(2 * size, int(nodes.max()) + 1))
            grown[:, :size] = self.nodes
            self.nodes = grown
        self.nodes[slots, nodes] = held

    def roots(self, slots: np.ndarray) -> Leaves:
        """The root positions of the trees ``slots``."""
        return self.describe(slots, self.nodes[slots, 0])

    def play(self, slot: int, action: int) -> None:
        """Play ``action`` in the root position of tree ``slot``."""
        self.nodes[slot, 0].apply_action(action)

    def values(self, held: np.ndarray) -> np.ndarray:
        """Every seat's value of each of the finished positions ``held``."""
        return np.array([self.value(self.state(position)) for position in held], np.float64)

    def state(self, position: Any) -> Any:
        """A kept position as an engine-protocol state."""
        return position

    def after(
        self, slots: list[int], parents: list[int], actions: list[int]
    ) -> tuple[np.ndarray, list[int]]:
        """The positions after ``actions[i]`` from node ``parents[i]`` of tree ``slots[i]``,
        and the seat to act in each (-1: finished)."""
        held = np.empty(len(slots), dtype=object)
        for i, (slot, parent, action) in enumerate(zip(slots, parents, actions, strict=True)):
            held[i] = self.nodes[slot, parent].clone()
            held[i].apply_action(action)
        return held, self.players(held).tolist()

    def players(self, held: np.ndarray) -> np.ndarray:
        """The seat to act in each position (-1: finished)."""
        return np.array([-1 if s.is_terminal() else s.current_player for s in held], np.int64)

    def describe(self, slots: np.ndarray, held: np.ndarray) -> Leaves:
        """The positions ``held`` of the trees ``slots`` with their seats and legal actions."""
        players = self.players(held)
        legal = [s.legal_actions() if p >= 0 else [] for s, p in zip(held, players, strict=True)]
        return Leaves(self, slots, held, players, *flat_columns(legal))

    def planes(self, held: np.ndarray, players: np.ndarray) -> np.ndarray:
        """The planes of the seat to act in each position (zeros where finished)."""
        if self._encoder is None:
            self._encoder = spec_of(self.game).make_observation_encoder(self.game)
        planes = np.zeros((len(held), *self._encoder.shape), dtype=np.float32)
        for i in np.flatnonzero(players >= 0).tolist():
            planes[i] = self._encoder.encode(held[i], int(players[i]))
        return planes


class CompiledPositions(PythonPositions):
    """:class:`PythonPositions` as rows of the compiled ``engine`` (imports numba)."""

    kind = "compiled"

    def __init__(self, engine: Any, slots: int, value: Any, nodes: int = 16) -> None:
        self.engine, self._one = engine, engine.new_initial_state()  # a one-row view
        super().__init__(engine.game, slots, value, nodes)

    def _nodes(self, slots: int, size: int) -> np.ndarray:
        return np.empty((slots, size, self.engine.state_width), dtype=np.int64)

    def start(self, slot: int, state: Any) -> None:
        """A copy of ``state`` (a compiled state's row, or a rules-engine state's) is the
        root position of tree ``slot``."""
        self.nodes[slot, 0] = state.row if is_fast_state(state) else self.engine.from_state(state)

    def play(self, slot: int, action: int) -> None:
        self.engine.step(self.nodes[slot, :1], np.array([action]), autoreset=False)

    def state(self, position: Any) -> Any:
        return self.engine.wrap(position)

    def after(
        self, slots: list[int], parents: list[int], actions: list[int]
    ) -> tuple[np.ndarray, list[int]]:
        if len(slots) == 1:  # the one-row view's move costs a quarter of a batched step
            row = self._one.row = self.nodes[slots[0], parents[0]].copy()
            self._one.apply_if_legal(int(actions[0]))  # legal: an edge of the tree
            return row[None], [int(row[self.engine.player_column])]
        rows = self.nodes[slots, parents]  # a copy (fancy indexing), the engine's own rows
        self.engine.step_trusted(rows, np.array(actions, dtype=np.int64), autoreset=False)
        return rows, rows[:, self.engine.player_column].tolist()

    def players(self, held: np.ndarray) -> np.ndarray:
        return held[:, self.engine.player_column].copy()

    def describe(self, slots: np.ndarray, held: np.ndarray) -> Leaves:
        players = self.players(held)
        masks = self.engine.legal_mask_trusted(held)
        masks[players < 0] = False  # as the Python positions: no actions where finished
        _, actions, starts = mask_columns(masks)
        return Leaves(self, slots, held, players, actions, starts)

    def planes(self, held: np.ndarray, players: np.ndarray) -> np.ndarray:
        planes = self.engine.observe_trusted(held, np.maximum(players, 0))
        planes[players < 0] = 0.0
        return planes


def positions_of(state: Any, slots: int, value: Any, nodes: int = 16) -> PythonPositions:
    """Positions of ``slots`` trees (room for ``nodes`` nodes each, to start with) on the
    engine of ``state``: rows for a compiled state, rules-engine states otherwise."""
    if is_fast_state(state):
        return CompiledPositions(state.engine, slots, value, nodes)
    return PythonPositions(state.game, slots, value, nodes)
