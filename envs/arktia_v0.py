"""Arktia as a PettingZoo AEC environment (``tabletop_zoo/arktia-v0``).

``env(**options)`` gives the raw env wrapped like PettingZoo's classic games
(TerminateIllegalWrapper: an illegal action ends the game with -1 for the offender and 0
for everyone else; AssertOutOfBoundsWrapper; OrderEnforcingWrapper); ``raw_env`` raises
:class:`~tabletop_zoo.envs.errors.IllegalActionError` on an illegal action and changes
nothing.

Options (keyword arguments of ``env`` / ``raw_env``):

* ``num_players``: 2, 3 or 4 (default 2); agents ``player_0`` .. ``player_{n-1}``, seat
  ``i`` = ``player_i``, seat 0 moves first.
* ``layout``: None (the default board of R2 for ``num_players``) or an ASCII layout (R2, R3).
* ``neutral_pieces``: None (default: True for 2 players, False for 3 and 4), True or False
  (R5; not allowed with 4 players).
* ``reward_mode``: ``"win"`` (default; +1 sole top scorer, 0 for players tied for top,
  -1 for everyone else) or ``"score"`` (own score minus the best other score).
* ``max_turns``: positive int (default :data:`DEFAULT_MAX_TURNS`): after that many
  completed turns (``game.turn``) every agent is truncated and rewarded from the scores
  as the position stands (ruling R23).
* ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

A turn with several decisions (move or placement, then group choices, then a melt) is
several consecutive steps of the same agent; players whose game has ended are skipped.
Rewards are 0 until the whole game ends (or is truncated); then every agent receives its
final reward in the same step and all agents terminate (or are truncated) together.
``env.unwrapped.game`` is the live :class:`~tabletop_zoo.envs.arktia.ArktiaState`;
``info`` of every agent is ``{"scores": [...]}`` (score per seat as the position stands).
The observation planes are documented in :mod:`tabletop_zoo.envs.arktia.observation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from tabletop_zoo.envs._aec_base import (
    TurnBasedAECEnv,
    check_options,
    positive_int_option,
    wrap_classic,
)
from tabletop_zoo.envs.arktia import COLOUR_LETTERS, ArktiaGame, ArktiaState
from tabletop_zoo.envs.arktia.observation import ArktiaObservationEncoder
from tabletop_zoo.envs.arktia.render import ArktiaImageRenderer, render_ansi

#: Default truncation limit in completed turns (R23). A 2-player game where both
#: players place all 9 pieces and then melt lasts well under 100 turns; 300 leaves
#: room for long manoeuvring without letting a stalled game run forever.
DEFAULT_MAX_TURNS = 300


ALLOWED_OPTIONS = {
    "num_players": "2, 3 or 4",
    "layout": "None or an ASCII hex layout",
    "neutral_pieces": "None, True or False",
    "reward_mode": "'win' or 'score'",
    "max_turns": f"positive int (default {DEFAULT_MAX_TURNS})",
    "render_mode": "None, 'ansi', 'rgb_array' or 'human'",
}


def env(**kwargs: Any) -> AECEnv:
    """The Arktia AEC env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TurnBasedAECEnv, EzPickle):
    """Arktia AEC env without wrappers (illegal actions raise IllegalActionError)."""

    metadata = {
        "name": "arktia_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        layout: str | None = None,
        neutral_pieces: bool | None = None,
        reward_mode: str = "win",
        max_turns: int = DEFAULT_MAX_TURNS,
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        """Build the game tables and spaces (InvalidOptionError on a bad option)."""
        check_options(unknown, ALLOWED_OPTIONS)
        EzPickle.__init__(
            self, num_players, layout, neutral_pieces, reward_mode, max_turns, render_mode
        )
        max_turns = positive_int_option("max_turns", max_turns)  # needed by the encoder
        self.arktia = ArktiaGame(
            num_players=num_players, layout=layout, neutral_pieces=neutral_pieces
        )
        self.turn_limit = max_turns
        self.encoder = ArktiaObservationEncoder(self.arktia, max_turns)
        planes = spaces.Box(0.0, 1.0, self.encoder.shape, dtype=np.float32)
        self.state_space = planes
        super().__init__(
            num_players,
            self.arktia.num_actions,
            planes,
            render_mode=render_mode,
            reward_mode=reward_mode,
            max_turns=max_turns,  # counts completed turns, see _turns_played()
        )
        self._renderer: ArktiaImageRenderer | None = None

    # ------------------------------------------------------------ base-class hooks
    def _new_game(self, seed: int) -> ArktiaState:
        return self.arktia.new_initial_state(seed=seed)

    def _observation(self, seat: int) -> np.ndarray:
        return self.encoder.encode(self.game, seat)

    def _state(self) -> np.ndarray:
        return self.encoder.encode(self.game, 0)  # seat 0's view = seat-absolute

    def _render_ansi(self) -> str:
        return render_ansi(self.game, header=self._header())

    def _render_rgb(self) -> np.ndarray:
        if self._renderer is None:
            self._renderer = ArktiaImageRenderer(self.arktia.layout, self.arktia.num_players)
        return self._renderer.draw(self.game)

    def _turns_played(self) -> int:
        return self.game.turn  # R23: completed turns, not decisions

    def _header(self) -> str:
        colours = ", ".join(
            f"player_{seat} = {COLOUR_LETTERS[seat]}" for seat in range(self.arktia.num_players)
        )
        return f"arktia_v0  turn {self.game.turn}/{self.turn_limit}  ({colours})"
