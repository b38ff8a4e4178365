"""Registration of our environments in PettingZoo's and Gymnasium's registries.

Entry points are strings, so registering imports nothing heavy.
"""

from __future__ import annotations

import warnings

PETTINGZOO_IDS = {
    "tabletop_zoo/mole_hill-v0": "tabletop_zoo.envs.mole_hill_v0:env",
    "tabletop_zoo/arktia-v0": "tabletop_zoo.envs.arktia_v0:env",
}

GYMNASIUM_IDS = {
    "tabletop_zoo/MoleHill-v0": "tabletop_zoo.wrappers.single_agent:make_mole_hill_env",
    "tabletop_zoo/Arktia-v0": "tabletop_zoo.wrappers.single_agent:make_arktia_env",
}


def register_all() -> None:
    """Register every id once (safe to call repeatedly)."""
    import gymnasium
    import pettingzoo

    for env_id, entry_point in PETTINGZOO_IDS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point)
    for env_id, entry_point in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gymnasium.register(id=env_id, entry_point=entry_point, disable_env_checker=True)
