"""One compiled Arktia game behind the engine protocol: :class:`FastArktiaState`
(made by :meth:`tabletop_zoo.envs.arktia.fast.FastArktia.wrap`), with compiled rollouts
and the greedy rule for the search agents."""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia import fast_batch as B
from tabletop_zoo.envs.arktia import fast_kernels as K
from tabletop_zoo.envs.errors import IllegalActionError, as_integer
from tabletop_zoo.envs.fast_common import FastStateBase, jit

__all__ = ["FastArktiaState", "score"]


@jit
def score(row, seat):
    """R21 score of ``seat`` in a compiled row."""
    return K.score(row, seat)


@jit
def _apply_checked(row, action, tables):
    if not K.is_legal(row, action):
        return False
    nbr, rays, prm, shapes = tables
    K.apply_action(row, action, nbr, rays, prm, shapes)
    return True


@jit
def _rollout(row, max_depth, tables, out):
    nbr, rays, prm, shapes = tables
    steps = 0
    while row[K.CUR] >= 0 and (max_depth < 0 or steps < max_depth):
        action = row[K.LEGAL + np.random.randint(0, row[K.LEGAL_COUNT])]
        K.apply_action(row, action, nbr, rays, prm, shapes)
        steps += 1
    B.win_rewards(row, prm[K.P_PLAYERS], out)


@jit
def _greedy(row, tables):
    return B.greedy_action(row, np.empty(row.shape[0], dtype=np.int64), tables)


class FastArktiaState(FastStateBase):
    """One compiled game behind the engine protocol; text, notation and JSON go through
    the Python state."""

    __slots__ = ()

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.engine.num_players

    def rollout(self, max_depth: int | None = None) -> list[float]:
        """Uniformly random play in compiled code until the end (or ``max_depth``
        decisions); the value per seat (R22 from the scores as they then stand). Mutates
        the row."""
        out = np.zeros(self.engine.num_players, dtype=np.float32)
        _rollout(self.row, -1 if max_depth is None else max_depth, self.engine.tables, out)
        return [float(x) for x in out]

    def greedy_action(self) -> int:
        """The greedy rule's action (best result, then score margin, one ply deep; ties at
        random from the compiled generator, see :meth:`FastArktia.seed`)."""
        return int(_greedy(self.row, self.engine.tables))

    @property
    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""
        return int(self.row[K.CUR])

    @property
    def turn(self) -> int:
        """Completed turns (R23 counts these)."""
        return int(self.row[K.TURN])

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending."""
        return self.engine.legal_list(self.row)

    def apply_action(self, action: int) -> None:
        """Play ``action``; IllegalActionError (nothing changed) if it is not legal."""
        a = as_integer(action)
        tables = self.engine.tables
        if (
            a is None
            or not 0 <= a < self.engine.num_actions
            or not _apply_checked(self.row, a, tables)
        ):
            self.to_state().apply_action(action)  # raises the reference engine's message
            raise IllegalActionError(f"action {action!r} is not legal")  # pragma: no cover

    def is_terminal(self) -> bool:
        """True when every player's game has ended."""
        return self.row[K.CUR] < 0

    def scores(self) -> list[int]:
        """R21 as the position stands."""
        return [int(score(self.row, s)) for s in range(self.engine.num_players)]

    def action_to_string(self, action: int) -> str:
        """Notation of ``action`` in this position."""
        return self.to_state().action_to_string(action)
