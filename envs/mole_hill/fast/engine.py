"""Compiled, batched Mole Hill engine (optional ``fast`` extra, numba).

``FastMoleHill(game)`` plays many games at once on a ``(B, WIDTH)`` ``int64`` array (one
row per game, layout in :mod:`tabletop_zoo.envs.mole_hill.fast.kernels`)::

    from tabletop_zoo.envs.registry import fast_engine
    engine = fast_engine("mole_hill")            # FastMoleHill(MoleHillGame())
    states = engine.new_states(1024, seed=0)
    mask = engine.legal_mask(states)             # (B, 173) bool
    result = engine.step(states, actions)        # rewards, terminated, final scores; autoreset
    obs = engine.observe(states, engine.current_players(states))  # (B, 7, 9, 16) float32

The pure-Python engine stays the reference: :meth:`FastMoleHill.from_state` and
:meth:`FastMoleHill.to_state` convert single positions both ways, and
:class:`FastMoleHillState` offers the engine protocol on one compiled row.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tabletop_zoo.envs.compiled.base import FastEngineBase
from tabletop_zoo.envs.compiled.checks import check_count, configuration_fingerprint, seat_array
from tabletop_zoo.envs.compiled.common import bit_list
from tabletop_zoo.envs.errors import InvalidOptionError, InvalidStateError
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState, action_to_string
from tabletop_zoo.envs.mole_hill.fast import batch as B
from tabletop_zoo.envs.mole_hill.fast import kernels as K
from tabletop_zoo.envs.mole_hill.fast.state import FastMoleHillState, score
from tabletop_zoo.envs.mole_hill.observation import NUM_PLANES


def _space_mask(spaces: Any) -> int:
    return sum(1 << int(s) for s in spaces)  # the spaces are distinct


class FastMoleHill(FastEngineBase):
    """Batched compiled Mole Hill for the options of ``game`` (a :class:`MoleHillGame`)."""

    batch = B
    state_class = FastMoleHillState
    score = staticmethod(score)
    _greedy_tables = ()
    _opponent_args = ()
    player_column = K.PLAYER
    config_column = K.CONFIG
    row_problems = B.ROW_PROBLEMS
    num_players = 2
    num_actions = K.NUM_ACTIONS
    state_width = K.WIDTH
    observation_shape = (K.ROWS, K.COLS, NUM_PLANES)

    def __init__(self, game: MoleHillGame | None = None, max_turns: int | None = None) -> None:
        if max_turns is not None:
            raise InvalidOptionError(
                "Mole Hill games end by the rules (at most 86 actions): max_turns must be None"
            )
        self.game = game if game is not None else MoleHillGame()
        self.random_flowers = bool(self.game.random_flowers)
        red, white = self.game.draw_flowers(0) if not self.random_flowers else ((), ())
        flowers = (np.int64(_space_mask(red)), np.int64(_space_mask(white)))
        self._restart_args = (self.random_flowers, *flowers)
        self._scratch = np.empty(K.NUM_ACTIONS, dtype=np.int64)
        self.config = configuration_fingerprint(repr(self), 2, repr(self))

    def __repr__(self) -> str:
        return f"FastMoleHill({self.game!r})"

    # ---------------------------------------------------------------- batches
    def new_states(self, batch_size: int, seed: int | None = None) -> np.ndarray:
        """``batch_size`` games at the start (random flowers drawn from ``seed``)."""
        batch_size = self.check_new_batch(batch_size)
        seed = -1 if seed is None else check_count("seed", seed, 0, 2**32 - 1)
        states = np.zeros((batch_size, K.WIDTH), dtype=np.int64)
        states[:, K.CONFIG] = self.config
        B.new_states(states, seed, *self._restart_args)
        return states

    def _check_rows(self, states: np.ndarray) -> tuple[int, int]:
        return B.check_rows(states, self.config, *self._restart_args)

    def reset_games_trusted(self, states: np.ndarray, which: np.ndarray) -> None:
        rows = np.flatnonzero(which)
        if len(rows):
            states[rows] = self.new_states(len(rows))

    def observe_trusted(self, states: np.ndarray, seats: Any) -> np.ndarray:
        seats = seat_array(seats, len(states))  # checked by the public twin
        obs = np.empty((len(states), K.NUM_SPACES, NUM_PLANES), dtype=np.float32)
        B.observe(states, seats, obs)
        return obs.reshape(len(states), *self.observation_shape)

    # ---------------------------------------------------------------- conversion
    def from_state(self, state: MoleHillState) -> np.ndarray:
        """The compiled row (``(WIDTH,)`` int64) of a Python state."""
        if not isinstance(state, MoleHillState):
            raise InvalidStateError(f"expected a MoleHillState, got {type(state).__name__}")
        row = np.zeros(K.WIDTH, dtype=np.int64)
        row[K.RED] = _space_mask(state.red_flowers)
        row[K.WHITE] = _space_mask(state.white_flowers)
        row[K.ROUND] = state.round
        for r, round_score in enumerate(state.round_scores):
            row[K.SCORES + r] = round_score
        row[K.VISITED] = _space_mask(state.trail)
        row[K.LENGTH] = len(state.trail)
        row[K.TRAIL : K.TRAIL + len(state.trail)] = state.trail
        row[K.NUM_RODS] = len(state.rods)
        row[K.ROD_ORDER : K.ROD_ORDER + len(state.rods)] = state.rods
        for e in state.rods:
            row[K.RODS + e // 64] |= np.int64(1) << np.int64(e % 64)
        row[K.MOLE] = int(state.mole_to_move)
        row[K.PLAYER] = state.current_player
        row[K.CONFIG] = self.config
        return row

    def to_state(self, row: np.ndarray) -> MoleHillState:
        """The Python state of a compiled row (rebuilt through ``from_json``, which replays
        the round's moves with the reference rules)."""
        row = self.check_row(row)  # read-only: a writeable copy
        data = json.loads(self.game.new_initial_state().to_json())
        data["red_flowers"] = [action_to_string(s) for s in bit_list(row[K.RED])]
        data["white_flowers"] = [action_to_string(s) for s in bit_list(row[K.WHITE])]
        rnd, over = int(row[K.ROUND]), row[K.PLAYER] < 0
        data["round"] = rnd + 1
        data["round_scores"] = [int(x) for x in row[K.SCORES : K.SCORES + rnd + int(over)]]
        trail = row[K.TRAIL : K.TRAIL + row[K.LENGTH]].tolist()
        rods = row[K.ROD_ORDER : K.ROD_ORDER + row[K.NUM_RODS]].tolist()
        moves = []
        for i, space in enumerate(trail):
            moves.append(action_to_string(space))
            if i < len(rods):
                moves.append(action_to_string(K.NUM_SPACES + rods[i]))
        data["moves"] = moves
        return MoleHillState.from_json(json.dumps(data))

    def new_initial_state(self, seed: int | None = None) -> FastMoleHillState:
        """Engine protocol: a new game as a :class:`FastMoleHillState`."""
        return self.wrap(self.from_state(self.game.new_initial_state(seed)))
