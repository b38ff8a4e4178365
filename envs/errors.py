"""Errors raised by the rules engines and environments.

All of them subclass ``ValueError`` so callers that only know the standard
library can still catch them.
"""

from __future__ import annotations

import operator
from typing import Any


class TabletopZooError(ValueError):
    """Base class of every error this package raises on bad input."""


class IllegalActionError(TabletopZooError):
    """An action that is not legal in the current state (or not an action at all)."""


class InvalidStateError(TabletopZooError):
    """A saved state (JSON) that is malformed or violates the rules."""


class WrongConfigurationError(InvalidStateError):
    """A compiled engine's row (or array of rows) made by an engine of another
    configuration (player count, layout, options); the message names both."""


class InvalidLayoutError(TabletopZooError):
    """A board layout that cannot be played (custom layouts)."""


class InvalidOptionError(TabletopZooError):
    """An unknown or out-of-range environment option."""


class ModelFileError(InvalidOptionError):
    """A model file (a network ``.npz``, a saved agent) that is missing, empty, truncated or
    malformed, or made for another game; the message names the file."""


class NotationError(TabletopZooError):
    """A move string that cannot be parsed."""


class UsageError(TabletopZooError):
    """A call the env cannot serve in its current state (e.g. ``step()`` before ``reset()``);
    the message says which call to make first."""


class UntrustedModelError(InvalidOptionError):
    """A model file that can only be loaded by unpickling content of the file, which can
    run code from it: refused unless the caller opted in (``trust=True`` in Python,
    ``--trust-model`` on the scripts); the message names the opt-in."""


def as_integer(value: Any) -> int | None:
    """``value`` as a Python int if it is a Python or NumPy integer, else None.

    Bools are int subclasses but never a count or an action index, so they give None.
    """
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None
