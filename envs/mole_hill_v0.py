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
env continue the same game (``docs/errors.md``). Observation planes (index: meaning):

 0 visited by the mole this round     8 spaces the mole may go to next
 1 trail order (k / 22 for the k-th)  9 I am the mole this round (const)
 2 the mole                          10 the mole is to move (const)
 3 rod on the edge to the right      11 round (0 first, 1 second) (const)
 4 rod on the edge below             12 my score so far / 24 (const)
 5 red flower                        13 opponent's score so far / 24 (const)
 6 white flower                      14 mole pieces left / 22 (const)
 7 centre                            15 the mole may jump next (const)
"""

from tabletop_zoo.envs.mole_hill.env import ALLOWED_OPTIONS, env, raw_env

__all__ = ["ALLOWED_OPTIONS", "env", "raw_env"]
