"""Arktia: the game's folder (engine, views, and the compiled twin in ``fast/``; the
bundle of ``docs/DESIGN.md``). This package exports the pure-Python rules engine.

``ArktiaGame(num_players, layout, neutral_pieces).new_initial_state()`` gives an
``ArktiaState`` implementing the engine protocol of ``docs/DESIGN.md``.
"""

from tabletop_zoo.envs.arktia.actions import ActionCodec
from tabletop_zoo.envs.arktia.constants import (
    COLOUR_LETTERS,
    DEFAULT_MAX_TURNS,
    KIND_LETTERS,
    NEUTRAL,
    PHASES,
    STACK_SHAPES,
    D,
    G,
    T,
)
from tabletop_zoo.envs.arktia.layout import DEFAULT_LAYOUTS, DIRECTIONS, Layout, parse_layout
from tabletop_zoo.envs.arktia.rules import ArktiaGame, ArktiaState

__all__ = [
    "COLOUR_LETTERS",
    "DEFAULT_LAYOUTS",
    "DEFAULT_MAX_TURNS",
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
