"""Arktia's options through the OpenSpiel bridge: a custom layout and neutral pieces."""

from __future__ import annotations

import pickle

import pyspiel
import pytest

from tabletop_zoo.wrappers import openspiel as bridge

# Seven tiles in a hexagon (R2 format): a centre tile and its six neighbours.
SMALL_LAYOUT = " o o\no o o\n o o"


def test_custom_layout_survives_game_strings_and_pickling():
    game = pyspiel.load_game("python_arktia", {"layout": SMALL_LAYOUT, "neutral_pieces": "no"})
    assert game.engine.num_tiles == 7
    assert game.observation_tensor_shape()[1] == 3  # three rows of tiles
    again = pyspiel.load_game(str(game))
    assert again.engine.num_tiles == 7 and again.engine.neutral_pieces is False
    restored = pickle.loads(pickle.dumps(game))
    assert restored.engine.num_tiles == 7
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_neutral_pieces_yes_no_and_engine_default():
    three = {"players": 3}
    assert bridge.load_game("arktia", three).engine.neutral_pieces is False  # R5 default
    assert bridge.load_game("arktia", {**three, "neutral_pieces": "yes"}).engine.neutral_pieces
    assert bridge.load_game("arktia", {"neutral_pieces": ""}).engine.neutral_pieces  # 2 players
    assert not bridge.load_game("arktia", {"neutral_pieces": "no"}).engine.neutral_pieces


def test_a_bool_for_neutral_pieces_is_refused_not_coerced():
    """OpenSpiel types a parameter by its declared default (here a string), and refuses a
    bool with its own error: no silent reading of True or False (docs/ecosystem.md)."""
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter neutral_pieces"):
        pyspiel.load_game("python_arktia", {"players": 3, "neutral_pieces": True})
