"""The golden games: every ``GameSpec.golden_seeds`` entry of every game in ``GAMES``.

A game gets golden files by listing ``(num_players, seed)`` pairs in its spec, then
``python scripts/regen_golden.py``.
"""

from __future__ import annotations

from pathlib import Path

from tabletop_zoo.envs.playthrough import golden_games, golden_text

GOLDEN_DIR = Path(__file__).resolve().parent


def specs() -> dict[str, tuple[str, int, int]]:
    """``file stem -> (game, num_players, seed)`` of every golden playthrough."""
    return golden_games()


def render(name: str) -> str:
    """The golden text of one playthrough."""
    return golden_text(name)
