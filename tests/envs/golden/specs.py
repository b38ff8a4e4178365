"""The golden games: name -> (factory of a fresh engine state, seed).

Add a game here, then run ``python scripts/regen_golden.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletop_zoo.envs.playthrough import playthrough

GOLDEN_DIR = Path(__file__).resolve().parent


def _mole_hill() -> Any:
    from tabletop_zoo.envs.mole_hill import MoleHillGame

    return MoleHillGame().new_initial_state()


def _arktia(num_players: int) -> Callable[[], Any]:
    def factory() -> Any:
        from tabletop_zoo.envs.arktia import ArktiaGame

        return ArktiaGame(num_players).new_initial_state()

    return factory


# name -> (state factory, seed)
SPECS: dict[str, tuple[Callable[[], Any], int]] = {
    "mole_hill_seed7": (_mole_hill, 7),
    "arktia_2p_seed3": (_arktia(2), 3),
    "arktia_3p_seed5": (_arktia(3), 5),
    "arktia_4p_seed11": (_arktia(4), 11),
}


def render(name: str) -> str:
    """The golden text for one spec."""
    factory, seed = SPECS[name]
    return playthrough(factory(), seed, title=name)
