"""Shared pieces of the compiled engines (the ``fast`` extra): numba loading, bit helpers
and the base of the one-game views.

Only the compiled engines (``envs/<game>/fast/``) import this module, and they are
imported only when the fast path is asked for (``GameSpec.fast_engine_class()``), so
``import tabletop_zoo.envs`` never loads numba.

Bit sets are ``int64`` words (bit ``i`` = item ``i``; bit 63 is the sign bit, which the
helpers below handle like any other bit). Every compiled function is built with
``cache=True``: the machine code is written next to the module (``__pycache__``) on the
first start and loaded from there on later starts.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    WrongConfigurationError,
    as_integer,
)
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
    "FastEngine",
    "FastEngineBase",
    "FastStateBase",
    "StepResult",
    "active_rows",
    "bit_list",
    "check_actions",
    "check_count",
    "check_seats",
    "configuration_fingerprint",
    "seat_array",
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


#: Engines made in this process by fingerprint (``configuration_fingerprint``), so that a
#: row of another configuration is refused naming the engine that made it.
CONFIGURATIONS: dict[int, str] = {}


def configuration_fingerprint(description: str, num_players: int, name: str) -> np.int64:
    """The ``CONFIG`` column value of the rows of an engine: a hash of ``description``
    (the game and every option that shapes a row) with the player count in the low 8
    bits; ``name`` (how messages name the engine) is remembered in :data:`CONFIGURATIONS`."""
    digest = int.from_bytes(hashlib.blake2b(description.encode(), digest_size=8).digest(), "big")
    value = (digest & ((1 << 62) - 1) & ~0xFF) | num_players
    CONFIGURATIONS[value] = name
    return np.int64(value)


def check_count(name: str, value: Any, low: int = 0, high: int = 2**31 - 1) -> int:
    """``value`` as an int in ``low..high`` (InvalidOptionError naming ``name``)."""
    count = as_integer(value)
    if count is None or not low <= count <= high:
        raise InvalidOptionError(f"{name} must be an int {low}..{high}, got {value!r}")
    return count


def check_seats(seats: Any, batch_size: int, num_players: int) -> np.ndarray:
    """``seats`` (an integer or integer array, broadcast to the batch) as a contiguous
    ``int64`` array of seats ``0..num_players - 1`` (InvalidOptionError)."""
    array = np.asarray(seats)
    if array.dtype.kind not in "iu" or array.ndim > 1 or array.size not in (1, batch_size):
        raise InvalidOptionError(
            f"seats must be an integer or an integer array of shape ({batch_size},), "
            f"got {array.dtype} {array.shape}"
        )
    if np.any((array < 0) | (array >= num_players)):
        raise InvalidOptionError(f"seats must be in 0..{num_players - 1}")
    return np.ascontiguousarray(np.broadcast_to(array.astype(np.int64), (batch_size,)))


def seat_array(seats: Any, batch_size: int) -> np.ndarray:
    """``seats`` broadcast to a contiguous ``int64`` array without range checks (for seats
    :func:`check_seats` or the engine itself produced)."""
    if isinstance(seats, np.ndarray) and seats.dtype == np.int64 and seats.shape == (batch_size,):
        return np.ascontiguousarray(seats)
    return np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (batch_size,)))


class FastEngineBase:
    """What the batched compiled engines of both games share (``FastArktia``,
    ``FastMoleHill``; both follow :class:`FastEngine`). A subclass sets ``batch`` (its
    game's ``fast.batch`` module), ``player_column`` (the row's column holding the seat to
    act, -1 once the game is over), ``config_column`` (the column holding
    :func:`configuration_fingerprint`), ``num_actions``, ``state_width`` and ``config``, and
    gives ``_check_rows``.

    Every public method that takes rows checks them first (:meth:`check_states`): a row
    that is not a position of this configuration gets an ``InvalidStateError`` (a
    ``WrongConfigurationError`` if another configuration made it), never a crash. The
    ``_``-prefixed twins (``_step``, ``_legal_mask``, ...) skip the check, for rows the
    engine produced itself (the vector env's).
    """

    batch: Any
    player_column: int
    config_column: int
    num_actions: int
    num_players: int
    state_width: int
    config: np.int64
    row_problems: tuple[str, ...]

    def _check_rows(self, states: np.ndarray) -> tuple[int, int]:  # pragma: no cover
        """(index, code) of the first bad row of ``states``, (-1, 0) if none."""
        raise NotImplementedError

    def check_states(self, states: Any, writeable: bool = False) -> np.ndarray:
        """``states`` if it is a C-contiguous ``(B, state_width)`` ``int64`` array of rows
        this engine can play (positions of its configuration); else InvalidStateError
        (WrongConfigurationError naming the configuration that made the rows).
        ``writeable``: the call will change the rows in place."""
        if not isinstance(states, np.ndarray):
            raise InvalidStateError(
                f"states must be a NumPy int64 array of shape (B, {self.state_width}), "
                f"got {type(states).__name__}"
            )
        if states.ndim != 2 or states.dtype != np.int64:
            raise InvalidStateError(
                f"states must be an int64 array of shape (B, {self.state_width}), "
                f"got {states.dtype} {states.shape}"
            )
        if states.shape[1] != self.state_width:
            if states.shape[1] > self.config_column and len(states):
                self._refuse_configuration(states, 0)
            raise WrongConfigurationError(
                f"states have {states.shape[1]} columns, but rows of {self!r} have "
                f"{self.state_width}: rows of another configuration?"
            )
        if not states.flags.c_contiguous:
            raise InvalidStateError("states must be C-contiguous (np.ascontiguousarray)")
        if writeable and not states.flags.writeable:
            raise InvalidStateError("states must be writeable: this call changes the rows")
        bad, code = self._check_rows(states)
        if bad >= 0:
            if code == 1:
                self._refuse_configuration(states, bad)
            raise InvalidStateError(
                f"game row {bad} is not a position of {self!r}: {self.row_problems[code]}"
            )
        return states

    def _refuse_configuration(self, states: np.ndarray, index: int) -> None:
        """WrongConfigurationError naming who made row ``index`` (if it is not ours)."""
        found = int(states[index, self.config_column])
        if found == int(self.config):
            return
        maker = CONFIGURATIONS.get(found)
        if maker is None:
            players = found & 0xFF
            maker = (
                f"an engine for {players} players (another configuration)"
                if 1 <= players <= 8 and found > 0xFF
                else f"no compiled engine (configuration column {found})"
            )
        raise WrongConfigurationError(
            f"game row {index} was made by {maker}; this engine is {self!r}"
            f" ({self.num_players} players)"
        )

    def check_row(self, row: Any) -> np.ndarray:
        """:meth:`check_states` for one ``(state_width,)`` row; returns it."""
        if not isinstance(row, np.ndarray) or row.ndim != 1:
            raise InvalidStateError(
                f"row must be a 1-d NumPy int64 array of {self.state_width} columns, "
                f"got {type(row).__name__} {getattr(row, 'shape', '')}"
            )
        self.check_states(row.reshape(1, -1))
        return row

    def seed(self, seed: int) -> None:
        """Seed the compiled code's random generator (random and greedy actions; Mole Hill's
        random flowers); ``seed`` an int 0..2**32 - 1."""
        self.batch.seed(check_count("seed", seed, 0, 2**32 - 1))

    def random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 where inactive or over)."""
        return self._random_actions(self.check_states(states), active)

    def _random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        out = np.full(len(states), -1, dtype=np.int64)
        self.batch.random_actions(states, active_rows(active, len(states)), out)
        return out

    def current_players(self, states: np.ndarray) -> np.ndarray:
        """Seat to act per game (-1 where the game is over)."""
        return self.check_states(states)[:, self.player_column].copy()

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: the game is over (only without autoreset)."""
        return self.check_states(states)[:, self.player_column] < 0

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of the seat to act."""
        return self._legal_mask(self.check_states(states))

    def _legal_mask(self, states: np.ndarray) -> np.ndarray:
        mask = np.zeros((len(states), self.num_actions), dtype=bool)
        self.batch.legal_mask(states, mask)
        return mask

    def reset_games(self, states: np.ndarray, which: np.ndarray) -> None:
        """Start new games in the rows where ``which`` (bool mask) is set."""
        self.check_states(states, writeable=True)
        self._reset_games(states, self.check_which(which, len(states)))

    def _reset_games(self, states: np.ndarray, which: np.ndarray) -> None:  # pragma: no cover
        raise NotImplementedError

    def play_opponents(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """Compiled ``"random"`` or ``"greedy"`` players decide in every (active) game
        until seat ``seats[i]`` is to act or the game ends (or is truncated, in an engine with
        a turn limit); no autoreset."""
        states = self.check_states(states, True)
        seats = check_seats(seats, len(states), self.num_players)
        return self._play_opponents(states, seats, opponent, active)

    def _play_opponents(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:  # pragma: no cover
        raise NotImplementedError

    def observe(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """``(B, *observation_shape)`` float32 planes, game ``i`` seen by ``seats[i]`` (the
        env's planes)."""
        states = self.check_states(states)
        return self._observe(states, check_seats(seats, len(states), self.num_players))

    def _observe(self, states: np.ndarray, seats: Any) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _step_inputs(
        self, states: np.ndarray, actions: Any, active: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The checked ``actions`` and ``active`` mask of a step on ``states``;
        IllegalActionError (nothing changed) naming the first game whose action is not
        legal and its legal actions (:meth:`_legal_list`, at most 20)."""
        actions = check_actions(actions, len(states))
        active = active_rows(active, len(states))
        bad = self.batch.first_illegal(states, actions, active)
        if bad >= 0:
            legal = self._legal_list(states, bad)
            raise IllegalActionError(
                f"game {bad}: action {actions[bad]} is not legal; legal: {legal[:20]}"
            )
        return actions, active

    def _legal_list(self, states: np.ndarray, index: int) -> list[int]:  # pragma: no cover
        """The legal actions of game ``index``, as the error of a step lists them."""
        raise NotImplementedError

    def check_new_batch(self, batch_size: Any) -> int:
        """``batch_size`` as an int 0..2**24 (InvalidOptionError)."""
        return check_count("batch_size", batch_size, 0, 2**24)

    def check_which(self, which: Any, batch_size: int) -> np.ndarray:
        """A ``(batch_size,)`` bool row selection (InvalidOptionError)."""
        return active_rows(which, batch_size, "which")


class FastStateBase:
    """What the one-game views of both compiled engines share (``FastArktiaState``,
    ``FastMoleHillState``): the row, its engine, and the parts of the engine protocol that
    go through the pure-Python state (text, notation, JSON). A subclass gives ``scores``
    and the compiled ``legal_actions`` and ``_apply_checked``."""

    __slots__ = ("engine", "row")

    def __init__(self, engine: Any, row: np.ndarray, trusted: bool = False) -> None:
        """``row``: a ``(state_width,)`` int64 row of ``engine``, checked
        (``engine.check_row``) unless ``trusted`` (rows the engine produced itself)."""
        self.engine = engine
        self.row = row if trusted else engine.check_row(row)

    @property
    def game(self) -> Any:
        """The rules engine's Game object (options, layout)."""
        return self.engine.game

    def clone(self) -> Any:
        """An independent copy."""
        return type(self)(self.engine, self.row.copy(), trusted=True)

    @property
    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""
        return int(self.row[self.engine.player_column])

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.row[self.engine.player_column] < 0

    def apply_action(self, action: int) -> None:
        """Play ``action``; IllegalActionError (nothing changed) if it is not legal (the
        reference engine's message)."""
        a = as_integer(action)
        if a is None or not 0 <= a < self.engine.num_actions or not self._apply_checked(a):
            self.to_state().apply_action(action)  # raises the reference engine's message
            raise IllegalActionError(f"action {action!r} is not legal")  # pragma: no cover

    def _apply_checked(self, action: int) -> bool:  # pragma: no cover - subclasses give it
        """Play ``action`` (an int in range) in compiled code if it is legal; False (row
        unchanged) if not."""
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


@runtime_checkable
class FastEngine(Protocol):
    """The batched API of a compiled engine (``envs/<game>/fast/engine.py``, named by
    ``GameSpec.fast_engine``): what the vector env (:mod:`tabletop_zoo.wrappers.vector`),
    the search agents (through :func:`~tabletop_zoo.envs.registry.fast_state`) and
    ``scripts/benchmark.py`` rely on, and what ``tests/test_structure.py`` checks.

    A batch is a ``(B, state_width)`` ``int64`` array, one game per row, all of one
    configuration (the engine's ``game``). ``active`` (where taken) is a ``(B,)`` bool mask
    of the rows to touch (``None``: all). Seats are ``0..num_players-1``; a row's current
    player is -1 once its game is over.
    """

    game: Any
    """The rules engine's Game object whose configuration the rows play."""
    num_players: int
    num_actions: int
    state_width: int
    observation_shape: tuple[int, ...]
    """``(rows, cols, planes)`` of one observation, as the env's encoder."""

    def seed(self, seed: int) -> None:
        """Seed the compiled random generator (random and greedy actions, random setups)."""
        ...

    def new_states(self, batch_size: int, seed: int | None = None) -> np.ndarray:
        """``batch_size`` games at the start."""
        ...

    def reset_games(self, states: np.ndarray, which: np.ndarray) -> None:
        """Start new games in the rows where the bool mask ``which`` is set."""
        ...

    def current_players(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` seat to act per game (-1 where over)."""
        ...

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: the game is over."""
        ...

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of the seat to act."""
        ...

    def observe(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """``(B, *observation_shape)`` float32, game ``i`` seen by ``seats[i]``."""
        ...

    def step(
        self, states: np.ndarray, actions: Any, autoreset: bool = True, active: Any = None
    ) -> StepResult:
        """One decision in every (active) game; an illegal action raises
        IllegalActionError and changes nothing. Ended games restart with ``autoreset``."""
        ...

    def random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 where inactive or over)."""
        ...

    def greedy_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """The greedy agent's action per game (-1 where inactive or over)."""
        ...

    def play_opponents(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """Compiled ``"random"``/``"greedy"`` players act until ``seats[i]`` is to act or
        the game ends (no autoreset)."""
        ...

    def scores(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_players)`` int64 scores as the positions stand."""
        ...

    def random_play(
        self, batch_size: int, steps_per_game: int, seed: int = 0, parallel: bool = False
    ) -> tuple[int, int]:
        """Uniform random play inside compiled code: ``(steps, finished games)``."""
        ...

    def from_state(self, state: Any) -> np.ndarray:
        """The row of a rules-engine state of this configuration."""
        ...

    def to_state(self, row: np.ndarray) -> Any:
        """The rules-engine state of a row."""
        ...

    def wrap(self, row: np.ndarray) -> Any:
        """One row behind the engine protocol (a :class:`FastStateBase`)."""
        ...

    def new_initial_state(self, seed: int | None = None) -> Any:
        """A fresh game as one wrapped row."""
        ...


def check_opponent(opponent: Any) -> None:
    """Refuse a compiled opponent other than ``"random"`` or ``"greedy"``
    (InvalidOptionError)."""
    if opponent not in ("random", "greedy"):
        raise InvalidOptionError(f"opponent must be 'random' or 'greedy', got {opponent!r}")


def check_actions(actions: Any, batch_size: int) -> np.ndarray:
    """``actions`` as an ``int64`` array of shape ``(batch_size,)`` (IllegalActionError)."""
    array = np.asarray(actions)
    if array.shape != (batch_size,) or array.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be an integer array of shape ({batch_size},), "
            f"got {array.dtype} {array.shape}"
        )
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise IllegalActionError(f"action {array.max()} is out of range")
    return array.astype(np.int64, copy=False)


def active_rows(active: Any, batch_size: int, name: str = "active") -> np.ndarray:
    """The ``active`` mask of a batched call (all rows when ``None``); a bool array of
    shape ``(batch_size,)`` (InvalidOptionError otherwise: no coercion of other types)."""
    if active is None:
        return np.ones(batch_size, dtype=np.bool_)
    mask = np.asarray(active)
    if mask.shape != (batch_size,) or mask.dtype != np.bool_:
        raise InvalidOptionError(
            f"{name} must be a bool array of shape ({batch_size},), got {mask.dtype} {mask.shape}"
        )
    return np.ascontiguousarray(mask)


def warm_up() -> float:
    """Compile (first start) or load from the disk cache (later starts) every compiled
    function of every game's engine; returns the seconds it took.

    ``python -m tabletop_zoo.envs.fast_common`` runs it, e.g. once in a Docker build.
    """
    from tabletop_zoo.envs.fast_random import PythonStream, matches_python
    from tabletop_zoo.envs.registry import GAMES, fast_engine

    start = time.perf_counter()
    matches_python()
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
        state.clone().rollout(PythonStream(random.Random(0)).words)
        state.search_tree(PythonStream(random.Random(0)).words, state.legal_actions(), 4, 1.4)
        state.greedy_best()
        state.scores()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"compiled engines ready in {warm_up():.1f} s")
