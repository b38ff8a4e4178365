"""tabletop_zoo: PettingZoo/Gymnasium environments for the board games Arktia and Mole Hill.

``import tabletop_zoo`` registers every game of
:data:`tabletop_zoo.envs.registry.GAMES` in PettingZoo's registry (``pettingzoo.make("aec",
"tabletop_zoo/mole_hill-v0")``) and in Gymnasium's (``gymnasium.make("tabletop_zoo/MoleHill-v0")``;
the ``module:id`` form ``gymnasium.make("tabletop_zoo:tabletop_zoo/MoleHill-v0")`` imports this
package by itself). Importing it stays light: numpy, gymnasium and pettingzoo only, never torch,
pygame or numba. Installed from ``envs/_package/`` (``package-dir`` in ``pyproject.toml``).
"""

# ruff: noqa: E402 - the guard below runs before every other import

from __future__ import annotations

from tabletop_zoo._startup import guard_program_start

guard_program_start()  # first: Ctrl-C during the imports below is one line in our programs

from importlib import metadata
from types import ModuleType

from tabletop_zoo.envs._lazy import import_submodule
from tabletop_zoo.envs._registration import register_all

__all__ = ["__version__", "register_all"]

try:
    #: The installed distribution's version; its one source is ``version`` in pyproject.toml.
    __version__: str = metadata.version("tabletop-zoo")
except metadata.PackageNotFoundError:  # imported from a tree that was never installed
    __version__ = "0+unknown"

register_all()


def __getattr__(name: str) -> ModuleType:
    """``tabletop_zoo.envs``, ``.wrappers``, ``.baselines`` on first use, with no import of
    their own (``tabletop_zoo.envs.<game>_v0`` as well: see ``tabletop_zoo.envs``)."""
    return import_submodule(__name__, name)
