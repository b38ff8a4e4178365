"""Sub-modules reachable as attributes, imported on first use (PEP 562).

``import tabletop_zoo`` stays light, yet ``tabletop_zoo.envs.<game>_v0`` or
``tabletop_zoo.wrappers.openspiel`` work without an ``import`` of their own: a package's
module-level ``__getattr__`` imports the sub-module the first time it is asked for. A name
that is no sub-module raises ``AttributeError`` as usual; a sub-module whose optional extra is
missing raises its own one-line ``ImportError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from tabletop_zoo.envs.extras import module_available


def import_submodule(package: str, name: str) -> ModuleType:
    """``package.name`` imported, or ``AttributeError`` when it is no sub-module."""
    # dunders (__path__, __wrapped__) are never modules
    if not name.startswith("__") and module_available(f"{package}.{name}"):
        return importlib.import_module(f"{package}.{name}")
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
