"""Registration of every game of :data:`~tabletop_zoo.envs.registry.GAMES` in PettingZoo's
and Gymnasium's registries.

Entry points are strings, so registering imports nothing heavy.
"""

from __future__ import annotations

import warnings

from tabletop_zoo.envs.registry import GAMES

#: One Gymnasium entry point for every game; the game is bound per id through ``kwargs``.
GYMNASIUM_ENTRY_POINT = "tabletop_zoo.wrappers.single_agent:make_env"
#: The vector entry point of every game with a compiled engine (``gymnasium.make_vec(id,
#: num_envs, vectorization_mode="vector_entry_point", **options)``, the ``fast`` extra).
VECTOR_ENTRY_POINT = "tabletop_zoo.wrappers.vector:make_vector_env"


def register_all() -> None:
    """Register every id once (safe to call repeatedly)."""
    import gymnasium
    import pettingzoo

    # PettingZoo's registries (AEC, parallel) arrived in 1.27; older releases (1.24-1.26) have
    # none, and the envs need nothing else from them: there the ids are Gymnasium's only
    for spec in GAMES.values():
        for kind, face in (("aec", "env"), ("parallel", "parallel_env")):
            registry = getattr(pettingzoo, f"{kind}_registry", None)
            if registry is not None and spec.pettingzoo_id not in registry:
                pettingzoo.register(kind, spec.pettingzoo_id, f"{spec.env_module}:{face}")
        if spec.gymnasium_id not in gymnasium.registry:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gymnasium.register(
                    id=spec.gymnasium_id,
                    entry_point=GYMNASIUM_ENTRY_POINT,
                    vector_entry_point=VECTOR_ENTRY_POINT if spec.fast_engine else None,
                    kwargs={"game": spec.name},
                    disable_env_checker=True,
                )
