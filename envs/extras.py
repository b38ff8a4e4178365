"""Optional extras: check up front that an extra is installed, and say how to install it.

Every entry point that needs an extra (``train``, ``render``, ``bench``, ``record``,
``video``, ...) calls :func:`require_extra` before doing any work, so a missing extra is
one line naming the install command instead of a traceback from deep inside::

    require_extra("train", "scripts/train.py")
    # MissingExtraError: scripts/train.py needs the 'train' extra (missing: torch);
    #   install it with: pip install -e ".[train]"
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# The import names behind each extra of pyproject.toml (distribution names differ:
# stable-baselines3 is imported as stable_baselines3). tests/baselines/test_extras.py checks
# that every extra listed here exists in pyproject.toml.
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "tqdm", "openskill"),
    "render": ("pygame",),
    "bench": ("pygame",),
    "record": ("imageio",),
    "video": ("imageio", "imageio_ffmpeg"),
    "openspiel": ("pyspiel",),
    "rllib": ("ray", "torch"),
    "torchrl": ("torchrl",),
    "minari": ("minari", "h5py"),
}


class MissingExtraError(ImportError):
    """An optional extra needed for what was asked is not installed (message: how to fix)."""


def module_available(name: str) -> bool:
    """Whether module ``name`` can be imported, without importing it: one already in
    ``sys.modules`` can, a name set to ``None`` there cannot (as for ``import``)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_modules(modules: tuple[str, ...] | list[str]) -> list[str]:
    """The names in ``modules`` that cannot be imported (:func:`module_available`)."""
    return [name for name in modules if not module_available(name)]


def _installed_from_a_clone() -> bool:
    """True when the package runs from a source checkout (``pip install -e .``)."""
    return (Path(__file__).resolve().parents[1] / "pyproject.toml").is_file()


def install_command(extra: str) -> str:
    """The pip command that installs ``extra`` the way this package was installed (not
    being on a package index, a non-editable install is told to use a clone as well)."""
    if _installed_from_a_clone():
        return f'pip install -e ".[{extra}]"'
    return f'pip install ".[{extra}]" in a clone of the tabletop-zoo repository'


def require_extra(extra: str, needed_by: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtraError` unless every module of ``extra`` can be imported.

    Args:
        extra: a key of :data:`EXTRAS` (``"train"``, ``"render"``).
        needed_by: what needs it, for the message (``"scripts/train.py"``, ``"PPOAgent"``).
        modules: check only these modules of the extra (default: all of them).
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(sorted(EXTRAS))}")
    missing = missing_modules(EXTRAS[extra] if modules is None else modules)
    if missing:
        raise MissingExtraError(
            f"{needed_by} needs the '{extra}' extra (missing: {', '.join(missing)}); "
            f"install it with: {install_command(extra)}"
        )
