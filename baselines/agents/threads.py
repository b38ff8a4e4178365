"""One BLAS and torch thread per process for the small networks (PPO actors, AlphaZero
nets): with our network sizes, more threads burn CPU without saving wall time (the
3-player Arktia AlphaZero reference used about twice the CPU per move with the default
threads), and parallel work comes from ``--workers`` (processes) instead.

:func:`limit_threads` is called where networks are built (the PPO and AlphaZero agents,
the training loops, the evaluation workers) and by the scripts that play them. The
environment variable ``TABLETOP_ZOO_THREADS`` asks for another count: ``N`` threads, or
``0`` to keep the libraries' own defaults (usually one thread per core). The count can
change a network's outputs in the last bits (OpenBLAS with 2 threads gave other bits than
with 1 for a batch of 8 positions through the 3-player Arktia AlphaZero reference), so one
thread also gives the same searches on machines with different numbers of cores.
"""

from __future__ import annotations

import os
import sys

from tabletop_zoo.envs.errors import InvalidOptionError

__all__ = ["THREADS_VARIABLE", "limit_threads", "requested_threads"]

THREADS_VARIABLE = "TABLETOP_ZOO_THREADS"


def requested_threads() -> int | None:
    """The thread count asked for by ``TABLETOP_ZOO_THREADS`` (default 1); ``None`` when
    it is ``0`` (keep the libraries' defaults). :class:`InvalidOptionError` when it is not
    a whole number >= 0."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return 1
    if not text.isdigit():
        raise InvalidOptionError(
            f"{THREADS_VARIABLE} must be a whole number of threads (0: the libraries' "
            f"defaults), got {text!r}"
        )
    return int(text) or None


def limit_threads(threads: int | None = None) -> int | None:
    """Give the BLAS libraries loaded so far (NumPy's, through ``threadpoolctl``) and torch
    (if imported) ``threads`` threads; default :func:`requested_threads`. Returns the
    count set, ``None`` when the defaults are kept (``TABLETOP_ZOO_THREADS=0``).

    Cheap (about a millisecond); call it again after loading a library that brings its own
    BLAS. Without ``threadpoolctl`` installed only torch is limited.
    """
    if threads is None:
        threads = requested_threads()
        if threads is None:
            return None
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InvalidOptionError(f"threads must be a whole number >= 1, got {threads!r}")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a core dependency; kept for odd installs
        pass
    else:
        threadpool_limits(limits=threads, user_api="blas")
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads
