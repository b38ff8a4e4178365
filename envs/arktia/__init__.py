"""Arktia rules engine (pure Python, no RL imports).

``ArktiaGame(num_players, layout, neutral_pieces).new_initial_state()`` gives an
``ArktiaState`` implementing the engine protocol of ``docs/DESIGN.md``.
"""

from tabletop_zoo.envs.arktia.actions import KIND_LETTERS, ActionCodec, D, G, T
from tabletop_zoo.envs.arktia.layout import DEFAULT_LAYOUTS, DIRECTIONS, Layout, parse_layout
from tabletop_zoo.envs.arktia.rules import (
    COLOUR_LETTERS,
    NEUTRAL,
    PHASES,
    STACK_SHAPES,
    ArktiaGame,
    ArktiaState,
)

__all__ = [
    "COLOUR_LETTERS",
    "DEFAULT_LAYOUTS",
    "DIRECTIONS",
    "KIND_LETTERS",
    "NEUTRAL",
    "PHASES",
    "STACK_SHAPES",
    "ActionCodec",
    "ArktiaGame",
    "ArktiaState",
    "D",
    "G",
    "Layout",
    "T",
    "parse_layout",
]
