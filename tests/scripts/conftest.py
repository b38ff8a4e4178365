"""Helpers for the script tests: load a command (``baselines/commands/<name>.py``, which
``tabletop-zoo`` and ``scripts/<name>.py`` run) or a lab tool (``scripts/lab/<name>.py``)
as a fresh module."""

from __future__ import annotations

import importlib.util
import signal
import sys
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


@pytest.fixture
def ctrl_c_popen() -> dict:
    """``subprocess.Popen`` keywords for the Ctrl-C tests: the child starts with the default
    SIGINT action. A shell's background job (``cmd &``) starts with SIGINT ignored, and a
    Python started that way never raises ``KeyboardInterrupt``."""
    return {"preexec_fn": _default_ctrl_c}
