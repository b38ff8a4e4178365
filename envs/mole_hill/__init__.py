"""Mole Hill: the game's folder (the bundle of ``docs/DESIGN.md``). This package exports the
pure-Python rules engine.

``MoleHillGame(num_players=2, random_flowers=False).new_initial_state(seed)`` gives a
:class:`MoleHillState`. Files: the engine, with no RL imports (``board.py``: geometry,
action encoding, notation; ``rules.py``: Game, State; ``serialization.py``: saved states),
``observation.py`` (planes), ``env.py`` (``raw_env``, ``env``), the pictures
(``render.py``: images; ``svg.py``; ``gui.py``: the play window's seats, status and clicks),
``help.py`` (texts for the terminal) and ``fast/`` (the compiled twin);
``tabletop_zoo.envs.mole_hill_v0`` is the versioned face.
"""

from tabletop_zoo.envs.mole_hill.board import NUM_ACTIONS, action_to_string, string_to_action
from tabletop_zoo.envs.mole_hill.rules import MoleHillGame, MoleHillState

__all__ = ["NUM_ACTIONS", "MoleHillGame", "MoleHillState", "action_to_string", "string_to_action"]
