"""Mole Hill as a two-player PettingZoo AEC environment: the engine, encoder and renderer
given to :class:`~tabletop_zoo.envs._aec_base.TurnBasedAECEnv`, and the options (the env
card is the docstring of :mod:`tabletop_zoo.envs.mole_hill_v0`).
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from tabletop_zoo.envs._aec_base import TurnBasedAECEnv, allowed_options, wrap_classic
from tabletop_zoo.envs.mole_hill.observation import MoleHillObservationEncoder
from tabletop_zoo.envs.mole_hill.render import MoleHillImageRenderer
from tabletop_zoo.envs.mole_hill.rules import MoleHillGame

#: Every keyword ``raw_env`` accepts, with what is allowed (shown on a bad option).
ALLOWED_OPTIONS = allowed_options(
    "2 (Mole Hill is a 2-player game)",
    "None (default: no limit) or a positive int (actions before truncation)",
    random_flowers="bool, flowers on random spaces (default False)",
)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env: an illegal action ends the game with -1 for the offender."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TurnBasedAECEnv, EzPickle, name="mole_hill_v0"):  # PettingZoo naming
    """Unwrapped Mole Hill env; raises IllegalActionError on an illegal action."""

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward_mode: str = "win",
        max_turns: int | None = None,
        random_flowers: bool = False,
        observation_layout: str = "hwc",
        **unknown: Any,
    ) -> None:
        """Build the engine, encoder and spaces (InvalidOptionError on a bad option)."""
        self._keep_options(locals(), ALLOWED_OPTIONS)
        engine = MoleHillGame(num_players=num_players, random_flowers=random_flowers)
        super().__init__(
            engine,
            MoleHillObservationEncoder(engine, max_turns),
            render_mode=render_mode,
            reward_mode=reward_mode,
            max_turns=max_turns,
            renderer_class=MoleHillImageRenderer,
            observation_layout=observation_layout,
        )
