"""Mole Hill (Reiner Knizia) as a two-player PettingZoo AEC environment.

| Import             | ``from tabletop_zoo.envs import mole_hill_v0``                  |
|--------------------|-----------------------------------------------------------------|
| Make               | ``pettingzoo.make("aec", "tabletop_zoo/mole_hill-v0")``         |
| Agents             | ``player_0`` (mole in round 1), ``player_1`` (mole in round 2)  |
| Actions            | ``Discrete(173)``: 0..62 mole goes to space, 63..172 rod on edge |
| Observation        | ``float32 (7, 9, 16)`` planes + ``int8 (173,)`` action mask     |
| Rewards            | at the end: +1 / -1 / 0, or the score margin                    |
| Options            | ``reward_mode``, ``max_turns``, ``random_flowers``,             |
|                    | ``observation_layout`` (``"chw"``: planes first, ``(16, 7, 9)``) |

Each agent plays both roles (mole one round, gardener the other), so both use
the same action space; the action encoding and notation are in
:mod:`tabletop_zoo.envs.mole_hill.board`. Observation planes are relative to
the observing agent ("me" / "opponent"); ``state()`` gives the same planes from
``player_0``'s side (seat-absolute). ``env.unwrapped.game_state`` (alias ``game``) is the live
:class:`~tabletop_zoo.envs.mole_hill.MoleHillState` (agents must not mutate it),
``env.unwrapped.engine`` the :class:`~tabletop_zoo.envs.mole_hill.MoleHillGame`,
``env.unwrapped.encoder`` the observation encoder. ``raw_env(num_players=2,
render_mode=None, reward_mode="win", max_turns=None, random_flowers=False,
observation_layout="hwc")``; the code is
in :mod:`tabletop_zoo.envs.mole_hill.env`. Calls out of order on ``raw_env`` raise
:class:`~tabletop_zoo.envs.errors.UsageError`; ``copy.deepcopy`` / ``pickle`` of a live
env continue the same game (``docs/errors.md``). The observation planes are documented
in :mod:`tabletop_zoo.envs.mole_hill.observation`.
"""

from tabletop_zoo.envs.mole_hill.env import ALLOWED_OPTIONS, env, raw_env

__all__ = ["ALLOWED_OPTIONS", "env", "raw_env"]
