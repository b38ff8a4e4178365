"""Mole Hill (Reiner Knizia) as a two-player PettingZoo AEC environment.

| Import             | ``from tabletop_zoo.envs import mole_hill_v0``                  |
|--------------------|-----------------------------------------------------------------|
| Make               | ``pettingzoo.make("aec" or "parallel", "tabletop_zoo/mole_hill-v0")`` |
| Agents             | ``player_0`` (mole in round 1), ``player_1`` (mole in round 2)  |
| Actions            | ``Discrete(173)``: 0..62 mole goes to space, 63..172 rod on edge |
| Observation        | ``float32 (7, 9, 16)`` planes + ``int8 (173,)`` action mask     |
| Rewards            | at the end: +1 / -1 / 0, or the score margin                    |
| Options            | ``reward_mode``, ``max_turns``, ``random_flowers``,             |
|                    | ``observation_layout`` (``"chw"``: planes first, ``(16, 7, 9)``) |

Each agent plays both roles (mole one round, gardener the other), so both use
the same action space; the action encoding and notation are in
:mod:`tabletop_zoo.envs.mole_hill.board`. ``env.unwrapped.game_state`` is the live
:class:`~tabletop_zoo.envs.mole_hill.MoleHillState` (agents must not mutate it),
``env.unwrapped.engine`` the :class:`~tabletop_zoo.envs.mole_hill.MoleHillGame`. The turn
cycle, rewards, errors and copies are those of every game
(:mod:`tabletop_zoo.envs._aec_base`); the observation planes (relative to the observing
agent) are documented in :mod:`tabletop_zoo.envs.mole_hill.observation`.
"""

from tabletop_zoo.envs._parallel import parallel_face
from tabletop_zoo.envs.mole_hill.env import ALLOWED_OPTIONS, env, raw_env

parallel_env = parallel_face(raw_env)
__all__ = ["ALLOWED_OPTIONS", "env", "parallel_env", "raw_env"]
