"""tabletop_zoo.envs: PettingZoo AEC environments for the games of ``registry.GAMES``.

``from tabletop_zoo.envs import <game>_v0`` gives a game's env module (``env()`` and
``raw_env``). Its parent package ``tabletop_zoo``, imported first, registers every game's
PettingZoo id and Gymnasium id (``GameSpec.pettingzoo_id``, ``GameSpec.gymnasium_id``). It
imports neither torch nor pygame.
"""

from types import ModuleType

from tabletop_zoo.envs._lazy import import_submodule
from tabletop_zoo.envs.registry import GAMES

#: The versioned env modules (``<game>_v0``), importable as attributes of this package.
__all__ = [spec.env_module.rsplit(".", 1)[1] for spec in GAMES.values()]


def __getattr__(name: str) -> ModuleType:
    """Sub-modules on first use: ``tabletop_zoo.envs.<game>_v0`` with no import of its own."""
    return import_submodule(__name__, name)
