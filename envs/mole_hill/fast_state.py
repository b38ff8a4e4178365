"""One compiled Mole Hill game behind the engine protocol: :class:`FastMoleHillState`
(made by :meth:`tabletop_zoo.envs.mole_hill.fast.FastMoleHill.wrap`), with compiled
rollouts and the greedy rule for the search agents."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.envs.errors import IllegalActionError, as_integer
from tabletop_zoo.envs.fast_common import FastStateBase, jit
from tabletop_zoo.envs.mole_hill import action_to_string
from tabletop_zoo.envs.mole_hill import fast_kernels as K

__all__ = ["FastMoleHillState", "score"]


@jit
def score(row, seat):
    """Mole score of ``seat`` in a compiled row."""
    return K.score_of(row, seat)


@jit
def _legal_list(row, buffer):
    return K.legal_actions(row, buffer)


@jit
def _apply_checked(row, action):
    if not K.is_legal(row, action):
        return False
    K.apply_action(row, action)
    return True


@jit
def _rollout(row, max_depth, buffer, out):
    steps = 0
    while row[K.PLAYER] >= 0 and (max_depth < 0 or steps < max_depth):
        K.apply_action(row, K.random_action(row, buffer))
        steps += 1
    s0, s1 = K.score_of(row, 0), K.score_of(row, 1)
    out[0] = 1.0 if s0 > s1 else -1.0 if s0 < s1 else 0.0
    out[1] = -out[0]


@jit
def _greedy(row, buffer, scratch):
    return K.greedy_action(row, buffer, scratch)


class FastMoleHillState(FastStateBase):
    """One compiled game behind the engine protocol (``legal_actions``, ``apply_action``,
    ``clone``, ...); text, notation and JSON go through the Python state."""

    __slots__ = ("_buffer",)

    def __init__(self, engine: Any, row: np.ndarray, trusted: bool = False) -> None:
        super().__init__(engine, row, trusted)
        self._buffer = engine._scratch  # scratch for action lists (never kept)

    num_players = 2

    @property
    def current_player(self) -> int:
        """Seat to move, -1 once the game is over."""
        return int(self.row[K.PLAYER])

    def rollout(self, max_depth: int | None = None) -> list[float]:
        """Uniformly random play in compiled code until the end (or ``max_depth`` actions);
        the value per seat (+1/-1/0 from the scores as they then stand). Mutates the row."""
        out = np.zeros(2, dtype=np.float64)
        _rollout(self.row, -1 if max_depth is None else max_depth, self._buffer, out)
        return out.tolist()

    def greedy_action(self) -> int:
        """The greedy rule's action (best result, then score margin, one ply deep; ties at
        random from the compiled generator, see :meth:`FastMoleHill.seed`)."""
        return int(_greedy(self.row, self._buffer, np.empty(K.WIDTH, dtype=np.int64)))

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending."""
        return self._buffer[: _legal_list(self.row, self._buffer)].tolist()

    def apply_action(self, action: int) -> None:
        """Play ``action``; IllegalActionError (nothing changed) if it is not legal."""
        a = as_integer(action)
        if a is None or not 0 <= a < self.engine.num_actions or not _apply_checked(self.row, a):
            self.to_state().apply_action(action)  # raises the reference engine's message
            raise IllegalActionError(f"action {action!r} is not legal")  # pragma: no cover

    def is_terminal(self) -> bool:
        """True once both rounds are over."""
        return self.row[K.PLAYER] < 0

    def scores(self) -> list[int]:
        """Mole score per seat as the position stands."""
        return [int(score(self.row, 0)), int(score(self.row, 1))]

    def action_to_string(self, action: int) -> str:
        """Notation of ``action``."""
        return action_to_string(action)
