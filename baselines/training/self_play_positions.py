"""The positions of batched self-play's games (:mod:`.self_play`) on either engine, both
answering the same questions the same way: :class:`PythonPositions` as Python rules-engine
states, :class:`CompiledPositions` as rows of the compiled engine (a batch of leaves in one
batched engine step per tree level, with batched masks and planes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Leaves:
    """Positions reached by a batch of action paths, one per requesting game."""

    players: np.ndarray  # (k,) seat to act, -1 where the game is over
    masks: np.ndarray  # (k, num_actions) legal actions (all False where over)
    planes: np.ndarray  # (k, *shape) float32 planes of the seat to act (0 where over)
    values: dict[int, np.ndarray]  # index -> game value of every seat, where over


class PythonPositions:
    """The games' current positions (``slots`` of them) as Python rules-engine states;
    ``value``: the value of every seat of a finished or cut position (``game_values``)."""

    engine = "python"

    def __init__(self, spec: Any, game: Any, shape: tuple, slots: int, value: Any) -> None:
        self.game, self.shape, self.value = game, shape, value
        self.encoder = spec.make_observation_encoder(game)
        self.roots: list[Any] = [None] * slots

    def start(self, slot: int, seed: int) -> None:
        """A new game in ``slot``, set up from ``seed``."""
        self.roots[slot] = self.game.new_initial_state(seed)

    def play(self, slot: int, action: int) -> None:
        """Play ``action`` in the game of ``slot``."""
        self.roots[slot].apply_action(action)

    def final_values(self, slot: int) -> np.ndarray:
        """The value of every seat of the game of ``slot`` as it stands (finished or cut)."""
        return self.value(self.roots[slot])

    def leaves(self, slots: np.ndarray, actions: np.ndarray, lengths: np.ndarray) -> Leaves:
        """The positions after ``actions[i, :lengths[i]]`` from the position of game
        ``slots[i]``."""
        k = len(slots)
        masks = np.zeros((k, self.game.num_actions), dtype=bool)
        leaves = Leaves(
            np.zeros(k, dtype=np.int64), masks, np.zeros((k, *self.shape), np.float32), {}
        )
        for i, slot in enumerate(slots.tolist()):
            state = self.roots[slot].clone()
            for action in actions[i, : lengths[i]].tolist():
                state.apply_action(action)
            if state.is_terminal():
                leaves.players[i] = -1
                leaves.values[i] = self.value(state)
                continue
            leaves.players[i] = state.current_player
            leaves.masks[i, state.legal_actions()] = True
            leaves.planes[i] = self.encoder.encode(state, state.current_player)
        return leaves


class CompiledPositions:
    """The games' current positions as rows of the compiled engine (the arguments of
    :class:`PythonPositions`; imports numba)."""

    engine = "compiled"

    def __init__(self, spec: Any, game: Any, shape: tuple, slots: int, value: Any) -> None:
        self.game, self.shape, self.value = game, shape, value
        self.fast = spec.fast_engine_class()(game)
        self.rows = np.zeros((slots, self.fast.state_width), dtype=np.int64)

    def start(self, slot: int, seed: int) -> None:
        """A new game in ``slot``: the Python engine sets it up from ``seed`` (so both
        paths start from the same position), the row is its copy."""
        self.rows[slot] = self.fast.from_state(self.game.new_initial_state(seed))

    def play(self, slot: int, action: int) -> None:
        """Play ``action`` in the game of ``slot``."""
        self.fast.step(self.rows[slot : slot + 1], np.array([action]), autoreset=False)

    def final_values(self, slot: int) -> np.ndarray:
        """The value of every seat of the game of ``slot`` as it stands (finished or cut)."""
        return self.value(self.fast.wrap(self.rows[slot].copy()))

    def leaves(self, slots: np.ndarray, actions: np.ndarray, lengths: np.ndarray) -> Leaves:
        """As :meth:`PythonPositions.leaves`: one batched step per tree level."""
        rows = self.rows[slots]  # a copy (fancy indexing)
        for depth in range(int(lengths.max(initial=0))):
            column = np.ascontiguousarray(actions[:, depth])
            self.fast.step_trusted(rows, column, False, lengths > depth)  # the engine's own rows
        players = rows[:, self.fast.player_column].copy()
        live = players >= 0
        masks = self.fast.legal_mask_trusted(rows)
        planes = self.fast.observe_trusted(rows, np.where(live, players, 0))
        over = np.flatnonzero(~live)  # as the Python positions: no actions, no planes
        masks[over], planes[over] = False, 0.0
        values = {int(i): self.value(self.fast.wrap(rows[i].copy())) for i in over}
        return Leaves(players, masks, planes, values)


def segments(starts: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments ``[starts[i], starts[i + 1])`` of a flat array: the positions of the
    segments ``rows`` (in that order) end to end, and where each begins among them."""
    counts = starts[rows + 1] - starts[rows]
    begins = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=begins[1:])
    return np.repeat(starts[rows] - begins[:-1], counts) + np.arange(begins[-1]), begins


@dataclass
class Paths:
    """The entries of one step: a game's slot and the edges and actions of its path from
    the root (``lengths`` 0: the game asks for its root position), by slot."""

    slots: np.ndarray
    edges: np.ndarray
    actions: np.ndarray
    lengths: np.ndarray

    @staticmethod
    def roots(slots: list[int], width: int) -> Paths:
        """One root request (a path of length 0, room for ``width``) per slot of ``slots``."""
        grid = np.zeros((len(slots), width), dtype=np.int64)
        return Paths(np.array(slots, dtype=np.int64), grid, grid, np.zeros(len(slots), np.int64))

    @staticmethod
    def joined(parts: list[Paths]) -> Paths:
        """The entries of ``parts`` by slot (a stable order: each slot's in part order)."""
        slots = np.concatenate([p.slots for p in parts])
        order = np.argsort(slots, kind="stable")
        return Paths(
            slots[order],
            np.concatenate([p.edges for p in parts])[order],
            np.concatenate([p.actions for p in parts])[order],
            np.concatenate([p.lengths for p in parts])[order],
        )

    def with_roots(self, roots: list[int]) -> Paths:
        """These entries and one root request per slot of ``roots``."""
        return Paths.joined([self, Paths.roots(roots, self.edges.shape[1])])
