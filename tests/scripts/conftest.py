"""Helpers for the script tests: load a command (``baselines/commands/<name>.py``, which
``tabletop-zoo`` and ``scripts/<name>.py`` run) or a lab tool (``scripts/lab/<name>.py``)
as a fresh module."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import tabletop_zoo.baselines.commands as commands

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
COMMANDS_DIR = Path(commands.__file__).resolve().parent


def load_script(name: str) -> ModuleType:
    """Import ``baselines/commands/<name>.py`` (module names: ``train_alphazero``), or
    ``scripts/lab/<name>.py`` for a lab tool, afresh (its module-level code runs again)."""
    path = COMMANDS_DIR / f"{name}.py"
    if not path.is_file():
        path = SCRIPTS / "lab" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_script_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def script():
    """``script("train")`` gives the loaded module."""
    return load_script


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_for_ctrl_c(
    *argv: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.Popen:
    return subprocess.Popen(
        [str(part) for part in argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})},
        preexec_fn=_default_ctrl_c,
    )


@pytest.fixture
def start_for_ctrl_c() -> Callable[..., subprocess.Popen]:
    """``start_for_ctrl_c(*argv, cwd=folder, env=more)`` starts a program for the Ctrl-C
    tests (text pipes, one thread, ``more`` added to the environment): the child starts with
    the default SIGINT action. A shell's background job (``cmd &``) starts with SIGINT
    ignored, and a Python started that way never raises ``KeyboardInterrupt``."""
    return _start_for_ctrl_c
