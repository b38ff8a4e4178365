"""Shared pieces of the compiled engines (the ``fast`` extra): numba loading, bit helpers
and the base of the one-game views.

Only the compiled engines (``envs/<game>/fast.py``) import this module, and they are
imported only when the fast path is asked for (``GameSpec.fast_engine_class()``), so
``import tabletop_zoo.envs`` never loads numba.

Bit sets are ``int64`` words (bit ``i`` = item ``i``; bit 63 is the sign bit, which the
helpers below handle like any other bit). Every compiled function is built with
``cache=True``: the machine code is written next to the module (``__pycache__``) on the
first start and loaded from there on later starts.
"""

from __future__ import annotations

import os
import time
from typing import Any, NamedTuple

import numpy as np

from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError
from tabletop_zoo.envs.extras import install_command
from tabletop_zoo.envs.results import win_returns

try:
    import numba
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"the compiled engines need numba: {install_command('fast')} (import failed: {exc})"
    ) from exc

# The two-thread random-play drivers use numba's own thread pool ("workqueue") unless the
# user chose a layer (NUMBA_THREADING_LAYER): the OpenMP layer would load a second GNU
# OpenMP runtime next to torch's.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"

__all__ = [
    "FastEngineBase",
    "FastStateBase",
    "StepResult",
    "active_rows",
    "bit_list",
    "check_actions",
    "jit",
    "lowest_bit",
    "numba",
    "popcount",
    "warm_up",
]


def jit(function):  # noqa: ANN001, ANN201 - decorator
    """``numba.njit`` with the settings of every compiled engine (cached on disk)."""
    return numba.njit(cache=True)(function)


@jit
def popcount(word):  # noqa: ANN001, ANN201 - numba function
    """Number of set bits of an ``int64`` word."""
    count = 0
    while word != 0:
        word &= word - 1
        count += 1
    return count


@jit
def lowest_bit(word):  # noqa: ANN001, ANN201 - numba function
    """Index of the lowest set bit of a nonzero ``int64`` word."""
    return trailing_zeros(word)


def bit_list(mask: Any) -> list[int]:
    """The set bits of a 64-bit word, ascending (bit 63 included)."""
    mask = int(mask) & ((1 << 64) - 1)
    return [i for i in range(64) if mask >> i & 1]


class FastEngineBase:
    """What the batched compiled engines of both games share (``FastArktia``,
    ``FastMoleHill``). A subclass sets ``batch`` (its game's ``fast_batch`` module),
    ``player_column`` (the row's column holding the seat to act, -1 once the game is over)
    and ``num_actions``."""

    batch: Any
    player_column: int
    num_actions: int

    def seed(self, seed: int) -> None:
        """Seed the compiled code's random generator (random and greedy actions; Mole Hill's
        random flowers)."""
        self.batch.seed(seed)

    def random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 where inactive or over)."""
        out = np.full(len(states), -1, dtype=np.int64)
        self.batch.random_actions(states, active_rows(active, len(states)), out)
        return out

    def current_players(self, states: np.ndarray) -> np.ndarray:
        """Seat to act per game (-1 where the game is over)."""
        return states[:, self.player_column].copy()

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: the game is over (only without autoreset)."""
        return states[:, self.player_column] < 0

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of the seat to act."""
        mask = np.zeros((len(states), self.num_actions), dtype=bool)
        self.batch.legal_mask(states, mask)
        return mask


class FastStateBase:
    """What the one-game views of both compiled engines share (``FastArktiaState``,
    ``FastMoleHillState``): the row, its engine, and the parts of the engine protocol that
    go through the pure-Python state (text, notation, JSON). A subclass gives
    ``is_terminal``, ``scores`` and the compiled ``legal_actions``/``apply_action``."""

    __slots__ = ("engine", "row")

    def __init__(self, engine: Any, row: np.ndarray) -> None:
        self.engine = engine
        self.row = row

    @property
    def game(self) -> Any:
        """The rules engine's Game object (options, layout)."""
        return self.engine.game

    def seed(self, seed: int) -> None:
        """Seed the compiled random generator used by ``rollout`` and ``greedy_action``
        (shared by all states of this process)."""
        self.engine.seed(seed)

    def clone(self) -> Any:
        """An independent copy."""
        return type(self)(self.engine, self.row.copy())

    def is_terminal(self) -> bool:  # pragma: no cover - every subclass overrides it
        """True once the game is over."""
        raise NotImplementedError

    def scores(self) -> list[int]:  # pragma: no cover - every subclass overrides it
        """Score per seat as the position stands."""
        raise NotImplementedError

    def returns(self) -> list[float]:
        """+1/-1/0 per seat from the scores at the end (``results.win_returns``), zeros
        before."""
        if not self.is_terminal():
            return [0.0] * self.engine.num_players
        return win_returns(self.scores())

    def to_state(self) -> Any:
        """The equivalent pure-Python state."""
        return self.engine.to_state(self.row)

    def string_to_action(self, text: str) -> int:
        """Parse notation, checked against this position."""
        return self.to_state().string_to_action(text)

    def to_json(self) -> str:
        """The Python state's JSON."""
        return self.to_state().to_json()

    def __str__(self) -> str:
        return str(self.to_state())


class StepResult(NamedTuple):
    """What a compiled engine's ``step`` returns, one entry per game of the batch."""

    rewards: np.ndarray
    """``(B, n)`` float32: +1 sole top scorer, 0 tied top, -1 others, in the games that
    ended or were truncated in this step; 0 elsewhere."""
    terminated: np.ndarray
    """``(B,)`` bool: the game ended in this step (by the rules)."""
    truncated: np.ndarray
    """``(B,)`` bool: the game reached the engine's ``max_turns`` in this step."""
    final_scores: np.ndarray
    """``(B, n)`` int64: scores of the games that ended or were truncated, else 0."""


def check_actions(actions: Any, batch_size: int) -> np.ndarray:
    """``actions`` as an ``int64`` array of shape ``(batch_size,)`` (IllegalActionError)."""
    array = np.asarray(actions)
    if array.shape != (batch_size,) or array.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be an integer array of shape ({batch_size},), "
            f"got {array.dtype} {array.shape}"
        )
    return array.astype(np.int64, copy=False)


def active_rows(active: Any, batch_size: int) -> np.ndarray:
    """The ``active`` mask of a batched call (all rows when ``None``)."""
    if active is None:
        return np.ones(batch_size, dtype=np.bool_)
    mask = np.asarray(active, dtype=np.bool_)
    if mask.shape != (batch_size,):
        raise InvalidOptionError(f"active must be a bool array of shape ({batch_size},)")
    return mask


def warm_up() -> float:
    """Compile (first start) or load from the disk cache (later starts) every compiled
    function of every game's engine; returns the seconds it took.

    ``python -m tabletop_zoo.envs.fast_common`` runs it, e.g. once in a Docker build.
    """
    from tabletop_zoo.envs.registry import GAMES, fast_engine

    start = time.perf_counter()
    for spec in GAMES.values():
        if spec.fast_engine is None:
            continue
        engine = fast_engine(spec.name, spec.default_players)
        states = engine.new_states(2, seed=0)
        engine.legal_mask(states)
        engine.observe(states, np.maximum(engine.current_players(states), 0))
        engine.step(states, engine.random_actions(states))
        engine.greedy_actions(states)
        for opponent in ("random", "greedy"):
            engine.play_opponents(states, 0, opponent)
        for parallel in (False, True):
            engine.random_play(2, 5, 0, parallel)
        state = engine.new_initial_state()
        state.apply_action(state.legal_actions()[0])
        state.clone().rollout()
        state.greedy_action()
        state.scores()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"compiled engines ready in {warm_up():.1f} s")
