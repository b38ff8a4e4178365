"""Shared pieces of the compiled engines (the ``fast`` extra): numba loading and bit helpers.

Only the compiled engines (``envs/<game>/fast.py``) import this module, and they are
imported only when the fast path is asked for (``GameSpec.fast_engine_class()``), so
``import tabletop_zoo.envs`` never loads numba.

Bit sets are ``int64`` words (bit ``i`` = item ``i``; bit 63 is the sign bit, which the
helpers below handle like any other bit). Every compiled function is built with
``cache=True``: the machine code is written next to the module (``__pycache__``) on the
first start and loaded from there on later starts.
"""

from __future__ import annotations

try:
    import numba
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"the compiled engines need numba: pip install 'tabletop-zoo[fast]' (import failed: {exc})"
    ) from exc

__all__ = ["jit", "lowest_bit", "numba", "popcount"]


def jit(function):  # noqa: ANN001, ANN201 - decorator
    """``numba.njit`` with the settings of every compiled engine (cached on disk)."""
    return numba.njit(cache=True, nogil=True)(function)


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
