"""Arktia as a PettingZoo AEC environment: the engine, encoder and renderer given to
:class:`~tabletop_zoo.envs._aec_base.TurnBasedAECEnv`, and the options (the env card is
the docstring of :mod:`tabletop_zoo.envs.arktia_v0`).
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from tabletop_zoo.envs._aec_base import (
    TurnBasedAECEnv,
    allowed_options,
    positive_int_option,
    wrap_classic,
)
from tabletop_zoo.envs.arktia.constants import COLOUR_LETTERS, DEFAULT_MAX_TURNS
from tabletop_zoo.envs.arktia.observation import ArktiaObservationEncoder
from tabletop_zoo.envs.arktia.render import ArktiaImageRenderer
from tabletop_zoo.envs.arktia.rules import ArktiaGame

#: Every keyword ``raw_env`` accepts, with what is allowed (shown on a bad option).
ALLOWED_OPTIONS = allowed_options(
    "2, 3 or 4",
    f"positive int (default {DEFAULT_MAX_TURNS})",
    layout="None or an ASCII hex layout",
    neutral_pieces="None, True or False",
)


def env(**kwargs: Any) -> AECEnv:
    """The Arktia AEC env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TurnBasedAECEnv, EzPickle, name="arktia_v0"):  # PettingZoo naming
    """Arktia AEC env without wrappers (illegal actions raise IllegalActionError)."""

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward_mode: str = "win",
        max_turns: int = DEFAULT_MAX_TURNS,
        layout: str | None = None,
        neutral_pieces: bool | None = None,
        observation_layout: str = "hwc",
        **unknown: Any,
    ) -> None:
        """Build the engine, encoder and spaces (InvalidOptionError on a bad option)."""
        self._keep_options(locals(), ALLOWED_OPTIONS)
        max_turns = positive_int_option("max_turns", max_turns)  # the encoder scales by it
        engine = ArktiaGame(num_players=num_players, layout=layout, neutral_pieces=neutral_pieces)
        super().__init__(
            engine,
            ArktiaObservationEncoder(engine, max_turns),
            render_mode=render_mode,
            reward_mode=reward_mode,
            max_turns=max_turns,  # counts completed turns, see _turns_played()
            renderer_class=ArktiaImageRenderer,
            observation_layout=observation_layout,
        )

    def _turns_played(self) -> int:
        return self.game_state.turn  # R23: completed turns, not decisions

    def _ansi_header(self) -> str:
        colours = ", ".join(
            f"player_{seat} = {COLOUR_LETTERS[seat]}" for seat in range(self.engine.num_players)
        )
        return f"arktia_v0  turn {self.game_state.turn}/{self.max_turns}  ({colours})"
