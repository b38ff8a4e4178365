"""What the compiled engines (the ``fast`` extra) share in compiled code: loading numba,
the ``jit`` settings (and ``kernel``, the same without reference counting, for the rules
kernels), the bit helpers, :func:`copy_into` (the kernels' array copy), and
:func:`warm_up`, which compiles everything ahead
(``python -m tabletop_zoo.envs.fast_common``). Beside it, without numba:
:mod:`~tabletop_zoo.envs.fast_protocol` (the batched API), :mod:`~tabletop_zoo.envs.fast_checks`
(argument checks, configuration fingerprints) and :mod:`~tabletop_zoo.envs.fast_base` (the
bases of the engines and their one-game views).

Only the compiled engines (``envs/<game>/fast/``) and the vector env's undo of a step
import this module, and only when the fast path is asked for
(``GameSpec.fast_engine_class()``), so ``import tabletop_zoo.envs`` never loads numba.

Bit sets are ``int64`` words (bit ``i`` = item ``i``; bit 63 is the sign bit, which the
helpers below handle like any other bit). Every compiled function is built with
``cache=True``: the machine code is written next to the module (``__pycache__``) on the
first start and loaded from there on later starts.
"""

from __future__ import annotations

import os
import random
import time
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

__all__ = [
    "bit_list",
    "compiled_random_state",
    "copy_into",
    "jit",
    "kernel",
    "lowest_bit",
    "numba",
    "popcount",
    "set_compiled_random_state",
    "warm_up",
]


def jit(function):  # noqa: ANN001, ANN201 - decorator
    """``numba.njit`` with the settings of every compiled engine (cached on disk)."""
    return numba.njit(cache=True)(function)


def kernel(function):  # noqa: ANN001, ANN201 - decorator
    """:func:`jit` for rules code that allocates nothing and returns no array (a game's
    ``kernels.py``): compiled without numba's reference counting (its ``_nrt`` option).
    Otherwise every call increments and decrements the count of each array argument (a
    row and the game's tables): about 40% of an MCTS rollout's time where it was measured
    (``docs/fast.md``). The caller holds the arrays for the call's duration, so the counts
    are not needed. Code that allocates fails to compile under it."""
    return numba.njit(cache=True, _nrt=False)(function)


@jit
def popcount(word):  # noqa: ANN001, ANN201 - numba function
    """Number of set bits of an ``int64`` word."""
    count = 0
    while word != 0:
        word &= word - 1
        count += 1
    return count


@jit
def copy_into(target, source):  # noqa: ANN001, ANN201 - numba function
    """``target[k] = source[k]`` for every ``k < len(source)``, one by one.

    The same as ``target[: len(source)] = source``, which numba compiles with the shape
    checks of NumPy's broadcasting and their error messages: about 4 CPU-seconds the first
    time a process compiles one, every cold start."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@jit
def lowest_bit(word):  # noqa: ANN001, ANN201 - numba function
    """Index of the lowest set bit of a nonzero ``int64`` word."""
    return trailing_zeros(word)


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
