"""Nim, a toy game built the way a real game is added (``docs/DESIGN.md``, "Adding a game").

Everything a game folder holds, in one file: the rules engine (:class:`NimGame`,
:class:`NimState` on :class:`~tabletop_zoo.envs.protocol.StateBase`), an observation
encoder, ``raw_env`` on :class:`~tabletop_zoo.envs._aec_base.TurnBasedAECEnv`, ``env``,
and the :class:`~tabletop_zoo.envs.registry.GameSpec` (:data:`NIM_SPEC`) that the contract
tests add to the registry with ``registry.extended``.

Nim for 2-4 players: piles of objects; a move takes 1..``max_take`` objects from one pile
(action ``pile * max_take + take - 1``, notation ``"<take>@<pile>"``). Whoever takes the
last object scores +1, everybody else -1 (``win_rule="last"``); with ``win_rule="score"``
the objects taken decide (ties possible). With ``bonus_on_empty`` a player who empties a
pile while objects remain elsewhere moves again (several decisions in a row).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from gymnasium.utils import EzPickle

from tabletop_zoo.envs._aec_base import TurnBasedAECEnv, check_options, wrap_classic
from tabletop_zoo.envs._parallel import parallel_face
from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    NotationError,
    as_integer,
)
from tabletop_zoo.envs.protocol import StateBase
from tabletop_zoo.envs.registry import GameSpec

_MOVE = re.compile(r"^([1-9][0-9]?)@([0-9]{1,2})$")


class NimGame:
    """Options of a Nim game (``num_players`` first, like every Game)."""

    def __init__(
        self,
        num_players: int = 2,
        piles: tuple[int, ...] = (1, 2, 4),
        max_take: int = 4,
        win_rule: str = "last",
        bonus_on_empty: bool = False,
    ) -> None:
        count = as_integer(num_players)
        if count is None or not 2 <= count <= 4:
            raise InvalidOptionError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if win_rule not in ("last", "score"):
            raise InvalidOptionError(f"win_rule must be 'last' or 'score', got {win_rule!r}")
        self.num_players = count
        self.piles = tuple(piles)
        self.max_take = max_take
        self.num_actions = len(self.piles) * max_take
        self.win_rule = win_rule
        self.bonus_on_empty = bonus_on_empty

    def new_initial_state(self, seed: int | None = None) -> NimState:
        """Full piles, seat 0 to move (Nim has no chance: ``seed`` is ignored)."""
        return NimState(self, list(self.piles), [0] * self.num_players, 0, -1)


class NimState(StateBase):
    """A Nim position."""

    __slots__ = ("game", "piles", "taken", "current_player", "last_mover")
    game_name = "nim"

    def __init__(
        self, game: NimGame, piles: list[int], taken: list[int], player: int, last: int
    ) -> None:
        self.game = game
        self.piles = piles
        self.taken = taken
        self.current_player = player
        self.last_mover = last

    def legal_actions(self) -> list[int]:
        """``pile * max_take + take - 1`` for every pile and take it allows, ascending."""
        if self.is_terminal():
            return []
        m = self.game.max_take
        return [p * m + t - 1 for p, n in enumerate(self.piles) for t in range(1, min(n, m) + 1)]

    def apply_action(self, action: int) -> None:
        """Take objects; IllegalActionError (nothing changed) if not legal."""
        a = as_integer(action)
        if a is None:
            raise IllegalActionError(f"action {action!r} is not an integer")
        if a not in self.legal_actions():
            raise self._illegal_action_error(a)
        pile, take = divmod(a, self.game.max_take)
        take += 1
        self.piles[pile] -= take
        self.taken[self.current_player] += take
        self.last_mover = self.current_player
        if self.is_terminal():
            self.current_player = -1
        elif not (self.game.bonus_on_empty and self.piles[pile] == 0):
            self.current_player = (self.current_player + 1) % self.game.num_players

    def _illegal_action_error(self, action: int) -> IllegalActionError:
        return IllegalActionError(f"illegal action {action}; legal: {self.legal_actions()}")

    def clone(self) -> NimState:
        """An independent copy."""
        return NimState(
            self.game, list(self.piles), list(self.taken), self.current_player, self.last_mover
        )

    def is_terminal(self) -> bool:
        """True once every pile is empty."""
        return sum(self.piles) == 0

    def returns(self) -> list[float]:
        """``win_rule="last"``: +1 for the last mover, -1 others; else from the scores."""
        if self.is_terminal() and self.game.win_rule == "last":
            return [1.0 if i == self.last_mover else -1.0 for i in range(self.game.num_players)]
        return super().returns()

    def scores(self) -> list[int]:
        """Objects each seat has taken."""
        return list(self.taken)

    def to_json(self) -> str:
        """Options and position."""
        g = self.game
        return json.dumps(
            {
                "game": "nim",
                "options": [g.num_players, list(g.piles), g.max_take, g.win_rule, g.bonus_on_empty],
                "position": [self.piles, self.taken, self.current_player, self.last_mover],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> NimState:
        """Read :meth:`to_json` back (InvalidStateError if it is not such a state)."""
        try:
            data = json.loads(text)
            n, piles, max_take, win_rule, bonus = data["options"]
            game = NimGame(n, tuple(piles), max_take, win_rule, bonus)
            heaps, taken, player, last = data["position"]
            state = cls(game, list(heaps), list(taken), player, last)
            if state.to_json() != json.dumps(data) or len(taken) != n:
                raise ValueError("not in the form to_json writes")
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            raise InvalidStateError(f"not a Nim state: {exc}") from None
        return state

    def action_to_string(self, action: int) -> str:
        """``"<take>@<pile>"``."""
        a = as_integer(action)
        if a is None or not 0 <= a < self.game.num_actions:
            raise NotationError(f"action {action!r} is not in 0..{self.game.num_actions - 1}")
        pile, take = divmod(a, self.game.max_take)
        return f"{take + 1}@{pile}"

    def _parse_notation(self, text: str) -> int:
        match = _MOVE.match(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise NotationError(f"cannot parse {text!r}: expected '<take>@<pile>', e.g. '2@0'")
        take, pile = int(match[1]), int(match[2])
        if not (1 <= take <= self.game.max_take and pile < len(self.game.piles)):
            raise NotationError(f"{text!r}: no such pile or take")
        return pile * self.game.max_take + take - 1

    def __str__(self) -> str:
        return f"piles={self.piles} taken={self.taken} to_move={self.current_player}"


class NimObservationEncoder:
    """Piles (as fractions of their start) and objects taken per seat from ``seat`` on."""

    def __init__(self, game: NimGame, max_turns: int | None = None) -> None:
        self.game = game
        self.shape = (1, len(game.piles) + game.num_players, 1)
        self._total = max(1, sum(game.piles))

    def plane_names(self) -> list[str]:
        """One plane."""
        return ["objects"]

    def encode(self, state: NimState, seat: int) -> np.ndarray:
        """``float32`` planes of ``shape`` in [0, 1]."""
        taken = state.taken[seat:] + state.taken[:seat]  # own perspective first
        values = [p / max(1, q) for p, q in zip(state.piles, self.game.piles, strict=True)]
        values += [t / self._total for t in taken]
        return np.array(values, dtype=np.float32).reshape(self.shape)


class NimRenderer:
    """A few coloured bars: enough to satisfy the renderer contract."""

    def __init__(self, game: NimGame) -> None:
        self.game = game

    def draw(self, state: NimState) -> np.ndarray:
        """One 8-pixel row per pile, 8 pixels per object."""
        width = 8 * max(max(self.game.piles), 1)
        img = np.full((8 * len(state.piles), width, 3), 255, dtype=np.uint8)
        for i, pile in enumerate(state.piles):
            img[8 * i : 8 * i + 6, : 8 * pile] = (200, 60, 40)
        return img


ALLOWED_OPTIONS = {
    "num_players": "2, 3 or 4",
    "render_mode": "None, 'human', 'ansi' or 'rgb_array'",
    "reward_mode": "'win' or 'score'",
    "max_turns": "None or a positive int",
    "observation_layout": "'hwc' or 'chw'",
    "piles": "tuple of pile sizes",
    "max_take": "positive int",
    "win_rule": "'last' or 'score'",
    "bonus_on_empty": "bool",
}


class raw_env(TurnBasedAECEnv, EzPickle, name="nim_v0"):  # PettingZoo naming
    """The Nim AEC env: about twenty lines on top of the base class."""

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        reward_mode: str = "win",
        max_turns: int | None = None,
        observation_layout: str = "hwc",
        **game_options: Any,
    ) -> None:
        check_options(game_options, ALLOWED_OPTIONS)
        EzPickle.__init__(
            self,
            num_players,
            render_mode,
            reward_mode,
            max_turns,
            observation_layout,
            **game_options,
        )
        engine = NimGame(num_players=num_players, **game_options)
        super().__init__(
            engine,
            NimObservationEncoder(engine, max_turns),
            render_mode=render_mode,
            reward_mode=reward_mode,
            max_turns=max_turns,
            renderer_class=NimRenderer,
            observation_layout=observation_layout,
        )


def env(**kwargs: Any) -> Any:
    """``raw_env`` with PettingZoo's classic wrappers."""
    return wrap_classic(raw_env(**kwargs))


parallel_env = parallel_face(raw_env)


#: The spec the tests add with ``registry.extended(NIM_SPEC)``.
NIM_SPEC = GameSpec(
    name="nim",
    title="Nim",
    env_module="tests.envs.nim_game",
    engine="tests.envs.nim_game:NimGame",
    observation_encoder="tests.envs.nim_game:NimObservationEncoder",
    players=(2, 3, 4),
    pettingzoo_id="tabletop_zoo/nim-v0",
    gymnasium_id="tabletop_zoo/Nim-v0",
    benchmark_players=(2,),
    # what the toy lacks, declared: no picture helpers (plain status band, no play
    # window), no help texts (generic ones), no compiled engine
    gui=None,
    help=None,
    fast_engine=None,
)
