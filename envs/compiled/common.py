"""What the compiled engines (the ``fast`` extra) share in compiled code: loading numba,
the ``jit`` settings (and ``kernel``, the same without reference counting, for the rules
kernels), the bit helpers, :func:`copy_into` (the kernels' array copy) and
:func:`seed_compiled` (docs/DESIGN.md says who may import it: never ``import
tabletop_zoo.envs``); ``python -m tabletop_zoo.envs.compiled.warm_up`` compiles everything ahead.

Bit sets are ``int64`` words (bit ``i`` = item ``i``; bit 63, the sign bit, is handled like
any other). Every compiled function is built with ``cache=True``: the machine code is
written next to the module (``__pycache__``) on the first start and loaded from there.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tabletop_zoo.envs.extras import install_command

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


def jit(function):
    """``numba.njit`` with the settings of every compiled engine (cached on disk)."""
    return numba.njit(cache=True)(function)


def kernel(function):
    """:func:`jit` for rules code that allocates nothing and returns no array (a game's
    ``kernels.py``), without numba's reference counting (``_nrt``): its count updates on
    every array argument cost a large share of a rollout (``docs/fast.md``), and the caller
    holds the arrays anyway. Code that allocates fails to compile under it."""
    return numba.njit(cache=True, _nrt=False)(function)


@jit
def popcount(word):
    """Number of set bits of an ``int64`` word."""
    count = 0
    while word != 0:
        word &= word - 1
        count += 1
    return count


@jit
def copy_into(target, source):
    """``target[k] = source[k]`` for every ``k < len(source)``, one by one: a slice copy
    would compile NumPy's broadcasting checks, seconds of every cold start."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@jit
def lowest_bit(word):
    """Index of the lowest set bit of a nonzero ``int64`` word."""
    return trailing_zeros(word)


@jit
def seed_compiled(value):
    """Seed the compiled code's random generator (this thread; shared by every kernel)."""
    np.random.seed(value)


def bit_list(mask: Any) -> list[int]:
    """The set bits of a 64-bit word, ascending (bit 63 included)."""
    mask = int(mask) & ((1 << 64) - 1)
    return [i for i in range(64) if mask >> i & 1]


def compiled_random_state() -> Any:
    """The state of numba's random generator of this thread (``None`` if unreachable):
    what an undoable step saves beside the rows."""
    try:
        from numba import _helperlib

        return _helperlib.rnd_get_state(_helperlib.rnd_get_np_state_ptr())
    except (ImportError, AttributeError):  # pragma: no cover - another numba layout
        return None


def set_compiled_random_state(state: Any) -> None:
    """Put back a state of :func:`compiled_random_state` (``None``: nothing to do)."""
    if state is not None:
        from numba import _helperlib

        _helperlib.rnd_set_state(_helperlib.rnd_get_np_state_ptr(), state)
