"""Mixed opponents inside the compiled vector env (the ``fast`` extra; docs/fast.md):
``make_vector_env(..., opponent=["random", "greedy"])`` makes a :class:`PoolVectorEnv` over
an :class:`OpponentMix`, where every other seat of every episode draws one entry of the
list uniformly: ``"random"``, ``"greedy"`` (the compiled players) or a batched policy
``(observations, masks) -> actions``. A game whose other seats all drew the same compiled
player runs to the learner's turn in one compiled call; the others one decision at a time,
one call per policy for all games waiting on it. The SB3 VecEnv's snapshot pool runs here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.wrappers.vector_batched import OPPONENTS, BatchedPolicy, BatchedVectorEnv, Outcome


class BatchedOpponents(Protocol):
    """Who plays the other seats, drawn per seat per episode (implemented by
    :class:`OpponentMix` and
    :class:`tabletop_zoo.baselines.training.opponents.BatchedOpponentPool`).

    An opponent is an integer code: ``-1 - k`` for compiled baseline ``k`` of
    ``baselines`` (``"random"`` or ``"greedy"``), a code ``>= 0`` for a policy (a frozen
    snapshot) that :meth:`sample_actions` plays for a whole batch at once.
    """

    baselines: tuple[str, ...]
    counts: dict[str, int]

    def refresh(self, in_use: np.ndarray) -> None:
        """Update the policies; keep those whose codes are ``in_use``."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Opponent codes of ``shape`` seats."""

    def name(self, code: int) -> str:
        """The opponent's name (for ``counts``)."""

    def sample_actions(self, code: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Policy ``code``'s actions for a batch of its seats' observations and masks."""


class OpponentMix:
    """A fixed list of opponents, one drawn uniformly per seat per episode
    (:class:`BatchedOpponents`): ``"random"``, ``"greedy"`` or batched policies."""

    def __init__(self, entries: Sequence[str | BatchedPolicy]) -> None:
        entries = list(entries)
        if not entries or any(not (e in OPPONENTS or callable(e)) for e in entries):
            raise InvalidOptionError(
                f"an opponent list holds {list(OPPONENTS)} or batched policies "
                f"(observations, masks) -> actions, got {entries!r}"
            )
        self.baselines = tuple(dict.fromkeys(e for e in entries if isinstance(e, str)))
        self.policies = list(dict.fromkeys(e for e in entries if not isinstance(e, str)))
        self.codes = np.array(
            [
                -1 - self.baselines.index(e) if isinstance(e, str) else self.policies.index(e)
                for e in entries
            ],
            dtype=np.int64,
        )
        self.counts: dict[str, int] = {}

    def refresh(self, in_use: np.ndarray) -> None:
        """Nothing to update: the list is fixed."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """One entry per seat, uniformly."""
        return self.codes[rng.integers(len(self.codes), size=shape)]

    def name(self, code: int) -> str:
        """``random``, ``greedy`` or ``policy_K`` (K: its place among the policies)."""
        return self.baselines[-1 - code] if code < 0 else f"policy_{code}"

    def sample_actions(self, code: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Policy ``code``'s actions for a batch (checked by the env)."""
        return self.policies[code](observations, masks)


class PoolVectorEnv(BatchedVectorEnv):
    """:class:`BatchedVectorEnv` whose opponents come from ``pool`` (:class:`BatchedOpponents`),
    one draw per seat per episode. A step is a transaction here too: a policy that raises
    or returns an illegal action leaves the games, seats, draws and counts as they were."""

    def __init__(self, engine: Any, num_envs: int, pool: BatchedOpponents, **kwargs: Any):
        self.pool = pool
        self.seat_opponents = np.full((num_envs, engine.num_players), -1, dtype=np.int64)
        # the base class checks a single opponent; the pool decides who plays
        super().__init__(engine, num_envs, opponent=OPPONENTS[0], **kwargs)
        self.opponent = pool

    def _transactional(self) -> bool:
        return True

    def _snapshot(self) -> tuple[Any, ...]:
        return (*super()._snapshot(), self.seat_opponents.copy(), dict(self.pool.counts))

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        super()._restore(snapshot[:-2])
        self.seat_opponents = snapshot[-2]
        self.pool.counts.clear()
        self.pool.counts.update(snapshot[-1])

    def _draw_seats(self, which: np.ndarray) -> None:
        super()._draw_seats(which)
        rows = np.flatnonzero(which)
        codes = self.pool.draw(self._rng, (len(rows), self.engine.num_players))
        self.seat_opponents[rows] = codes
        others = np.arange(self.engine.num_players)[None] != self.learner_seat[rows, None]
        for code, count in zip(*np.unique(codes[others], return_counts=True), strict=True):
            name = self.pool.name(int(code))
            self.pool.counts[name] = self.pool.counts.get(name, 0) + int(count)

    def _opponents_round(self, mover: np.ndarray, active: np.ndarray, out: Outcome) -> None:
        """A game whose other seats are all one compiled player is played to the learner's
        turn in one compiled call; the others take one decision, one call per policy (its
        output checked)."""
        others = np.arange(self.engine.num_players)[None] != self.learner_seat[:, None]
        codes = np.where(others, self.seat_opponents, 0)
        single = others.sum(axis=1)
        for k, kind in enumerate(self.pool.baselines):
            whole = active & ((codes == -1 - k).sum(axis=1) == single)
            if whole.any():
                seats = self.learner_seat
                result = self.engine.play_opponents_trusted(self._states, seats, kind, whole)
                self._finish(result, whole, out)
                active = active & ~whole
        if not active.any():
            return
        code = self.seat_opponents[np.arange(self.num_envs), np.maximum(mover, 0)]
        actions = np.full(self.num_envs, -1, dtype=np.int64)
        for c in np.unique(code[active]).tolist():
            chosen = active & (code == c)
            if c >= 0:
                rows = np.flatnonzero(chosen)
                observations = self.engine.observe_trusted(self._states[rows], mover[rows])
                masks = self.engine.legal_mask_trusted(self._states[rows])
                chosen_actions = self.pool.sample_actions(c, observations, masks)
                actions[rows] = self._opponent_actions(chosen_actions, rows, masks)
            elif self.pool.baselines[-1 - c] == "greedy":
                actions[chosen] = self.engine.greedy_actions(self._states, chosen)[chosen]
            else:
                actions[chosen] = self.engine.random_actions_trusted(self._states, chosen)[chosen]
        result = self.engine.step_trusted(self._states, actions, autoreset=False, active=active)
        self._finish(result, active, out)
