"""Ctrl-C while one of our programs starts: one line and exit 130, never Python's traceback.

Our commands turn Ctrl-C into one line in :func:`tabletop_zoo.baselines.cli.run_main`, but
the package's imports before it (about half a second) would let a ``KeyboardInterrupt``
reach Python's top level. :func:`guard_program_start` runs first in ``import tabletop_zoo``
(standard library only): when the main program is one of ours (:func:`our_program`) it
chains a ``sys.excepthook`` that prints ``<program>: interrupted`` and exits 130 for an
interruption and passes every other exception on. Other programs are left alone.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from types import TracebackType

INTERRUPTED = 130
"""The exit code of an interrupted command (``128 + SIGINT``, as a shell reports it)."""

CONSOLE_SCRIPT = "tabletop-zoo"
_REPOSITORY = Path(__file__).resolve().parents[2]  # envs/_package/ -> the clone's root


def our_program(argv: list[str] | None = None, main_file: str | None = None) -> str | None:
    """The name our program gives itself in its messages, or ``None`` if the main program
    is not one of ours. ``argv`` and ``main_file`` default to ``sys.argv`` and the file of
    the ``__main__`` module.

    * the console script (``tabletop-zoo COMMAND``): ``"tabletop-zoo COMMAND"``;
    * a script of the clone's ``scripts/`` folder (shims, lab tools): its file name
      (``"evaluate.py"``), as :func:`~tabletop_zoo.baselines.cli.run_main` names it.
    """
    argv = list(sys.argv if argv is None else argv)
    if main_file is None:
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if not argv or not main_file:
        return None
    launcher = re.sub(r"(-script\.pyw?|\.exe)$", "", Path(argv[0]).name)
    if launcher == CONSOLE_SCRIPT:
        command = argv[1] if len(argv) > 1 else ""
        return (
            f"{CONSOLE_SCRIPT} {command}"
            if re.fullmatch(r"[a-z][a-z_-]*", command)
            else (CONSOLE_SCRIPT)
        )
    try:
        script = Path(main_file).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    scripts = _REPOSITORY / "scripts"
    if (_REPOSITORY / "pyproject.toml").is_file() and script.is_relative_to(scripts):
        return Path(argv[0]).name
    return None


def _interrupted(error: BaseException | None) -> bool:
    """True if ``error`` is a ``KeyboardInterrupt`` or was raised while handling one (a
    library that turns it into its own error)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def guard_program_start() -> None:
    """If the main program is one of ours (:func:`our_program`), make an interruption that
    reaches Python's top level one line on stderr and exit code 130 (module docstring)."""
    program = our_program()
    if program is None:
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None):
        if not _interrupted(error):
            previous(kind, error, trace)
            return
        try:
            sys.stdout.flush()
        except Exception:
            pass
        print(f"{program}: interrupted", file=sys.stderr, flush=True)
        os._exit(INTERRUPTED)

    sys.excepthook = hook
