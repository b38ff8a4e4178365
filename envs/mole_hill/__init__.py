"""Mole Hill: rules engine (no RL imports) and PettingZoo env.

``MoleHillGame(num_players=2, random_flowers=False).new_initial_state(seed)`` gives a
:class:`MoleHillState`. Files: ``board.py`` (geometry, action encoding, notation),
``rules.py`` (Game, State), ``serialization.py`` (JSON), ``observation.py``,
``render.py`` and ``env.py`` (``raw_env``, ``env``); ``tabletop_zoo.envs.mole_hill_v0``
is the versioned face.
"""

from tabletop_zoo.envs.mole_hill.board import NUM_ACTIONS, action_to_string, string_to_action
from tabletop_zoo.envs.mole_hill.rules import MoleHillGame, MoleHillState

__all__ = ["NUM_ACTIONS", "MoleHillGame", "MoleHillState", "action_to_string", "string_to_action"]
