"""The argument checks of the compiled engines' public calls (their rows:
:class:`RowChecks`), and the configuration fingerprint that marks every row with the
engine that made it.

Plain NumPy (no numba): bad input gets one of our errors (``envs/errors.py``) before any
compiled code sees it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    WrongConfigurationError,
    as_integer,
)

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
    return np.array(np.broadcast_to(array.astype(np.int64), (batch_size,)))  # writeable


def seat_array(seats: Any, batch_size: int) -> np.ndarray:
    """``seats`` broadcast to a contiguous ``int64`` array without range checks (for seats
    :func:`check_seats` or the engine itself produced)."""
    if (
        isinstance(seats, np.ndarray)
        and seats.dtype == np.int64
        and seats.shape == (batch_size,)
        and seats.flags.writeable
    ):
        return np.ascontiguousarray(seats)
    # a writeable copy: numba compiles each kernel once, for writeable arrays
    return np.array(np.broadcast_to(np.asarray(seats, dtype=np.int64), (batch_size,)))


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


class RowChecks:
    """The row checks of a batched compiled engine (:class:`~.base.FastEngineBase`,
    whose ``state_width``, ``config_column``, ``config``, ``num_players`` and
    ``row_problems`` they read): a row that is not a position of the engine's configuration
    gets an ``InvalidStateError`` (``WrongConfigurationError`` if another one made it)."""

    def _check_rows(self, states: np.ndarray) -> tuple[int, int]:  # pragma: no cover
        """(index, code) of the first bad row of ``states``, (-1, 0) if none."""
        raise NotImplementedError

    def check_states(self, states: Any, writeable: bool = False) -> np.ndarray:
        """``states`` if it is a C-contiguous ``(B, state_width)`` ``int64`` array of rows
        this engine can play (positions of its configuration); else InvalidStateError
        (WrongConfigurationError naming the configuration that made the rows).
        ``writeable``: the call will change the rows in place. A read-only array (such
        as the vector env's ``states`` view) is returned as a writeable copy."""
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
        if not states.flags.writeable:  # read through a copy: numba compiles each kernel
            states = states.copy()  # once for writeable arrays, not again for read-only ones
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
        """:meth:`check_states` for one ``(state_width,)`` row; returns it (a writeable
        copy if it is read-only)."""
        if not isinstance(row, np.ndarray) or row.ndim != 1:
            raise InvalidStateError(
                f"row must be a 1-d NumPy int64 array of {self.state_width} columns, "
                f"got {type(row).__name__} {getattr(row, 'shape', '')}"
            )
        checked = self.check_states(row.reshape(1, -1))
        return row if row.flags.writeable else checked[0]
