"""One BLAS and torch thread per process for the small networks: more threads burn CPU
without saving wall time at our sizes, and their count can change a network's last bits
(OpenBLAS with 2 threads gave other bits than with 1); parallel work comes from processes
(``--workers``). ``TABLETOP_ZOO_THREADS`` asks for ``N`` threads, or ``0`` for the
libraries' own defaults. :func:`limit_threads` is called where networks are built, and
:func:`end_with_parent` in every worker process (no worker outlives its parent).
"""

from __future__ import annotations

import os
import sys

from tabletop_zoo.envs.errors import InvalidOptionError

THREADS_VARIABLE = "TABLETOP_ZOO_THREADS"


def limit_threads(threads: int | None = None) -> int | None:
    """Give the BLAS libraries loaded so far (through ``threadpoolctl``) and torch (if
    imported) ``threads`` threads (default ``TABLETOP_ZOO_THREADS``, else 1); returns the
    count set, ``None`` when the defaults are kept. Cheap: call it again after loading a
    library that brings its own BLAS."""
    if threads is None:
        text = os.environ.get(THREADS_VARIABLE, "").strip()
        if text and not text.isdigit():
            raise InvalidOptionError(
                f"{THREADS_VARIABLE} must be a whole number of threads (0: the libraries' "
                f"defaults), got {text!r}"
            )
        threads = int(text) if text else 1
        if threads == 0:
            return None
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InvalidOptionError(f"threads must be a whole number >= 1, got {threads!r}")
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def end_with_parent() -> None:
    """In a worker process that multiprocessing started (spawn or forkserver): end it as
    soon as the process that started it dies, SIGKILL included. A daemon thread waits on
    multiprocessing's parent sentinel (a pipe whose writing end only the parent holds: it
    closes when the parent dies, however it dies) and exits; any platform. Nothing happens
    in a process that multiprocessing did not start."""
    import multiprocessing
    import threading

    parent = multiprocessing.parent_process()
    if parent is not None:  # its join() returns once the parent's end of the pipe closed
        threading.Thread(target=lambda: (parent.join(), os._exit(1)), daemon=True).start()
