"""One-line messages for optional dependencies ("extras") that are not installed.

``require("imageio", "record", "recording a game")`` imports and returns the module, or
raises :class:`MissingExtraError` (an ``ImportError``) whose message is one line naming the
extra in the install form that fits this installation: ``pip install -e ".[record]"`` for an
editable install from a clone, ``pip install "tabletop-zoo[record]"`` otherwise.
"""

from __future__ import annotations

import importlib
import site
import sysconfig
from pathlib import Path
from types import ModuleType

DISTRIBUTION = "tabletop-zoo"


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message says which extra installs it."""


def is_editable_install() -> bool:
    """Whether the package runs from a source checkout (``pip install -e .``) rather than
    from a site-packages folder."""
    here = Path(__file__).resolve()
    folders = [
        *site.getsitepackages(),
        site.getusersitepackages(),
        sysconfig.get_paths()["purelib"],
    ]
    return not any(here.is_relative_to(Path(folder).resolve()) for folder in folders)


def install_command(extra: str) -> str:
    """The pip command that installs ``extra`` for this installation."""
    if is_editable_install():
        return f'pip install -e ".[{extra}]"'
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtraError` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{purpose} needs {module.split('.')[0]}, which is not installed: "
            f"{install_command(extra)}"
        ) from None
