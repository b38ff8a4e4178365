"""Mole Hill rules engine (no RL imports).

``MoleHillGame(random_flowers=False).new_initial_state(seed)`` gives a
:class:`MoleHillState`; the action encoding and notation live in
:mod:`tabletop_zoo.envs.mole_hill.actions`.
"""

from tabletop_zoo.envs.mole_hill.actions import NUM_ACTIONS, action_to_string, string_to_action
from tabletop_zoo.envs.mole_hill.game import MoleHillGame, MoleHillState, round_score

__all__ = [
    "NUM_ACTIONS",
    "MoleHillGame",
    "MoleHillState",
    "action_to_string",
    "round_score",
    "string_to_action",
]
