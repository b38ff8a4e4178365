"""Helpers for the script tests: load a script in ``scripts/`` (or the lab tools in
``scripts/lab/``) as a module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py``, or ``scripts/lab/<name>.py`` for a lab tool (the
    scripts are not a package)."""
    path = SCRIPTS / f"{name}.py"
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
