"""Python's own random stream inside compiled code (the ``fast`` extra), so that a seed
gives the same games on the compiled engines as on the Python ones.

:class:`PythonStream` copies a :class:`random.Random`'s state (MT19937: 624 words and a
position) into an array, the kernels below advance it exactly as CPython does, and
:meth:`PythonStream.store` writes it back. ``below(words, n)`` is ``Random._randbelow(n)``
and :func:`shuffle` is ``Random.shuffle``, so the compiled path consumes the very draws
the Python path does. :func:`matches_python` checks the kernels against the running
Python's ``random`` once per process; the search agents use the compiled engines only then.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence

import numpy as np

from tabletop_zoo.envs.compiled.common import jit
from tabletop_zoo.envs.errors import InvalidOptionError

_N = 624  # MT19937 state words
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_WORD = 0xFFFFFFFF


def check_words(words: object) -> np.ndarray:
    """``words`` if it is a generator state the kernels can advance (a C-contiguous,
    writeable ``int64`` array of 625 entries whose last, the position, is in ``0..624``, as
    :class:`PythonStream` makes); ``InvalidOptionError`` otherwise, before compiled code
    could index outside it."""
    if (
        not isinstance(words, np.ndarray)
        or words.dtype != np.int64
        or words.shape != (_N + 1,)
        or not words.flags.c_contiguous
        or not words.flags.writeable
    ):
        raise InvalidOptionError(
            "words must be a writeable int64 array of 625 entries (PythonStream(rng).words)"
        )
    if not 0 <= int(words[_N]) <= _N:
        raise InvalidOptionError(f"the position words[{_N}] must be in 0..{_N}, got {words[_N]}")
    return words


@jit
def next_word(words):
    """The next 32-bit output of the generator whose state is ``words`` (624 words, then
    the position, as ``Random.getstate()[1]``); CPython's ``genrand_uint32``."""
    if words[_N] >= _N:  # generate the next 624 words at once
        for k in range(_N):
            y = (words[k] & _UPPER) | (words[(k + 1) % _N] & _LOWER)
            mixed = words[(k + _M) % _N] ^ (y >> 1)
            if y & 1:
                mixed ^= _MATRIX_A
            words[k] = mixed
        words[_N] = 0
    y = words[words[_N]]
    words[_N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & _WORD


@jit
def below(words, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``: ``Random._randbelow(n)``
    (``k = n.bit_length()`` bits per draw, drawn again while the value is ``>= n``)."""
    k = 0
    while (n >> k) > 0:
        k += 1
    r = next_word(words) >> (32 - k)
    while r >= n:
        r = next_word(words) >> (32 - k)
    return r


@jit
def shuffle(words, values):
    """Shuffle ``values`` in place as ``Random.shuffle`` does (same draws, same swaps)."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = below(words, i + 1)
        values[i], values[j] = values[j], values[i]


class PythonStream:
    """The state of a :class:`random.Random` as an array for compiled code.

    ``words`` (``int64``, 625 entries) is what the kernels advance; :meth:`store` hands it
    back to the generator. Draw only through the stream between creating it and
    :meth:`store` (the generator itself is stale meanwhile).
    """

    __slots__ = ("rng", "words", "_version", "_gauss")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._version, words, self._gauss = rng.getstate()
        self.words = np.array(words, dtype=np.int64)

    def shuffle(self, values: MutableSequence[int]) -> None:
        """``Random.shuffle(values)`` for a list of integers, drawn from the stream."""
        if len(values) > 1:
            array = np.array(values, dtype=np.int64)
            shuffle(self.words, array)
            values[:] = array.tolist()

    def store(self) -> None:
        """Write the stream's state back into its generator."""
        self.rng.setstate((self._version, tuple(self.words.tolist()), self._gauss))


_MATCHES: list[bool] = []


def matches_python() -> bool:
    """Whether the kernels draw what this Python's ``random.Random`` draws (checked once:
    shuffles and choices over many sizes, across several refills of the state)."""
    if not _MATCHES:
        python, compiled = random.Random(20240), random.Random(20240)
        stream = PythonStream(compiled)
        same = True
        for size in [*range(1, 70), 255, 256, 257, 1000, 2323] * 3:
            expected = list(range(size))
            python.shuffle(expected)
            got = list(range(size))
            stream.shuffle(got)
            same = same and got == expected
            same = same and python.choice(expected) == expected[below(stream.words, size)]
        stream.store()
        _MATCHES.append(same and python.getstate() == compiled.getstate())
    return _MATCHES[0]
