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


# name -> (state factory, seed). Arktia entries are added by the Arktia engine.
SPECS: dict[str, tuple[Callable[[], Any], int]] = {
    "mole_hill_seed7": (_mole_hill, 7),
}


def render(name: str) -> str:
    """The golden text for one spec."""
    factory, seed = SPECS[name]
    return playthrough(factory(), seed, title=name)
