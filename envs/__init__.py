"""tabletop_zoo.envs: PettingZoo AEC environments for Arktia and Mole Hill.

``from tabletop_zoo.envs import mole_hill_v0, arktia_v0`` gives the env modules
(each with ``env()`` and ``raw_env``). Importing this package registers
``tabletop_zoo/mole_hill-v0`` and ``tabletop_zoo/arktia-v0`` in PettingZoo's
registry and ``tabletop_zoo/MoleHill-v0`` and ``tabletop_zoo/Arktia-v0`` in
Gymnasium's. It imports neither torch nor pygame.
"""

from tabletop_zoo.envs._registration import register_all

register_all()

__all__ = ["arktia_v0", "mole_hill_v0"]
