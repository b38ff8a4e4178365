"""Test-wide settings: headless pygame and matplotlib; a clean exit after OpenSpiel."""

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")

_EXIT_STATUS: list[int] = []


def pytest_sessionfinish(session, exitstatus) -> None:
    """Remember the exit status for :func:`pytest_unconfigure`."""
    _EXIT_STATUS.append(int(exitstatus))


def pytest_unconfigure(config) -> None:
    """After OpenSpiel was loaded, leave without interpreter finalization.

    OpenSpiel 2.0.2's C++ side keeps Python game objects in storage that is torn down after
    the interpreter has shut down; now and then (seen in long runs that load many Python
    games, never in a single test file) that aborts the process with "Fatal Python error:
    PyThreadState_Get ... finalizing" AFTER every test has passed and the summary is
    printed, which turns a green run into exit code 134. Every result is reported by now,
    so we exit with pytest's own status and skip the finalization. Nothing of ours needs it.
    """
    if "pyspiel" in sys.modules and _EXIT_STATUS:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])
