"""Compiled, batched Arktia engine (optional ``fast`` extra, numba).

``FastArktia(game, max_turns=300)`` plays many games of one configuration (players,
layout, neutral pieces) at once on a ``(B, width)`` ``int64`` array, one row per game
(layout in :mod:`tabletop_zoo.envs.arktia.fast.kernels`)::

    from tabletop_zoo.envs.registry import fast_engine
    engine = fast_engine("arktia", 3)                # FastArktia(ArktiaGame(3))
    states = engine.new_states(1024)
    result = engine.step(states, actions)            # rewards, terminated, truncated; autoreset

``max_turns`` is the truncation limit of ruling R23 (completed turns), as in the env: a
batched game reaching it is scored as the position stands and restarted.
:meth:`FastArktia.from_state` / :meth:`FastArktia.to_state` convert single positions
both ways and :class:`FastArktiaState` offers the engine protocol on one row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.envs.arktia import ArktiaGame, ArktiaState, serialization
from tabletop_zoo.envs.arktia.constants import (
    DEFAULT_MAX_TURNS,
    NEUTRAL,
    ROUND_PHASES,
    STACK_SHAPES,
)
from tabletop_zoo.envs.arktia.fast import batch as B
from tabletop_zoo.envs.arktia.fast import kernels as K
from tabletop_zoo.envs.arktia.fast import observation as O
from tabletop_zoo.envs.arktia.fast.state import FastArktiaState, score
from tabletop_zoo.envs.arktia.observation import ArktiaObservationEncoder
from tabletop_zoo.envs.arktia.serialization import ArktiaSnapshot
from tabletop_zoo.envs.compiled.base import FastEngineBase
from tabletop_zoo.envs.compiled.checks import configuration_fingerprint, seat_array
from tabletop_zoo.envs.compiled.common import bit_list
from tabletop_zoo.envs.errors import (
    InvalidOptionError,
    InvalidStateError,
    WrongConfigurationError,
    as_integer,
)

_SHAPES = K.stack_table(STACK_SHAPES)
_PHASE_OF = {"setup": 0, "opening": 0, "normal": 0, "melt": K.MELT_SUB, "choose": K.CHOOSE}


def _int64(mask: int) -> np.int64:
    return np.int64(mask - (1 << 64) if mask >= 1 << 63 else mask)


class FastArktia(FastEngineBase):
    """Batched compiled Arktia for the configuration of ``game`` (an :class:`ArktiaGame`)."""

    batch = B
    state_class = FastArktiaState
    score = staticmethod(score)
    player_column = K.CUR
    config_column = K.CONFIG
    row_problems = B.ROW_PROBLEMS

    def __init__(self, game: ArktiaGame | None = None, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.game = game if game is not None else ArktiaGame()
        count = as_integer(max_turns)
        if count is None or count < 1:
            raise InvalidOptionError(f"max_turns must be a positive int, got {max_turns!r}")
        self.max_turns = count
        layout = self.game.layout
        n_tiles, codec = layout.num_tiles, self.game.codec
        self.num_players = self.game.num_players
        self.num_actions = codec.num_actions
        self.max_legal = min(self.num_actions, 30 * n_tiles + 1)
        self.state_width = K.LEGAL + self.max_legal
        self.neighbours = np.array([_int64(m) for m in layout.neighbour_masks], dtype=np.int64)
        self.lines = K.line_table(layout.rays, n_tiles)
        self.params = np.array(
            [
                n_tiles,
                self.num_players,
                _int64(layout.all_mask),
                codec.MOVE,
                codec.MELT,
                codec.KEEP,
                codec.STOP,
            ],
            dtype=np.int64,
        )
        self.tables = (self.neighbours, self.lines, self.params, _SHAPES)
        self.config = configuration_fingerprint(
            f"FastArktia({self.game!r}, layout {layout.names!r} "
            f"{[int(m) for m in self.neighbours]!r})",
            self.num_players,
            f"FastArktia({self.game!r})",
        )
        encoder = ArktiaObservationEncoder(self.game, self.max_turns)
        self.observation_shape = encoder.shape
        self._cells, self._sizes = O.observation_tables(encoder)
        self.initial_row = self.from_state(self.game.new_initial_state())
        self._greedy_tables = (self.tables,)
        self._opponent_args = (self.max_turns, self.tables)
        self._restart_args = (self.max_turns, self.initial_row, self.tables)

    def __repr__(self) -> str:
        return f"FastArktia({self.game!r}, max_turns={self.max_turns})"

    def _check_rows(self, states: np.ndarray) -> tuple[int, int]:
        return B.check_rows(states, self.config, self.max_legal, self.game.num_neutral, self.tables)

    # ---------------------------------------------------------------- batches
    def new_states(self, batch_size: int, seed: int | None = None) -> np.ndarray:
        """``batch_size`` games at the start (Arktia has no chance: ``seed`` is ignored)."""
        del seed
        batch_size = self.check_new_batch(batch_size)
        return np.repeat(self.initial_row[None], batch_size, axis=0)

    def reset_games_trusted(self, states: np.ndarray, which: np.ndarray) -> None:
        states[which] = self.initial_row

    def observe_trusted(self, states: np.ndarray, seats: Any) -> np.ndarray:
        seats = seat_array(seats, len(states))  # checked by the public twin
        obs = np.empty((len(states), *self.observation_shape), dtype=np.float32)
        O.encode_batch(states, seats, self._cells, self._sizes, obs)
        return obs

    # ---------------------------------------------------------------- conversion
    def from_state(self, state: ArktiaState) -> np.ndarray:
        """The compiled row of a Python state (of this engine's configuration)."""
        if not isinstance(state, ArktiaState):
            raise InvalidStateError(f"expected an ArktiaState, got {type(state).__name__}")
        other = state.game
        if other is not self.game and (
            other.num_players != self.game.num_players
            or other.neutral_pieces != self.game.neutral_pieces
            or other.layout.names != self.game.layout.names
            or other.layout.neighbour_masks != self.game.layout.neighbour_masks
        ):
            raise WrongConfigurationError(
                f"the state is a position of {other!r}; this engine is {self!r}"
            )
        n, n_tiles = self.num_players, self.game.layout.num_tiles
        row = np.zeros(self.state_width, dtype=np.int64)
        row[K.PIECES : K.PIECES + 3 * K.MAX_TILES] = -1
        alive = 0
        on_board = [0] * 5
        for t in range(n_tiles):
            if not state.alive(t):
                continue
            alive |= 1 << t
            stack = state.stack(t)
            row[K.HEIGHT + t] = len(stack)
            for level, (owner, kind) in enumerate(stack):
                row[K.PIECES + 3 * t + level] = owner * 3 + kind
                on_board[owner] += 1
            if stack:
                row[K.OCC] |= _int64(1 << t)
        row[K.ALIVE] = _int64(alive)
        for colour in range(5):
            row[K.CMASK + colour] = _int64(state.colour_tiles(colour))
        material = [9 if s < n else 0 for s in range(4)] + [3 * n * self.game.neutral_pieces]
        for s in range(n):
            k = 3 * s
            row[K.RESERVE + k : K.RESERVE + k + 3] = state.reserve(s)
            row[K.NEUTRAL_RESERVE + k : K.NEUTRAL_RESERVE + k + 3] = state.neutral_reserve(s)
            row[K.REMOVED + s] = state.removed(s)
            row[K.MELTED + s] = state.melted(s)
            row[K.ENDED + s] = int(state.ended(s))
            row[K.LOST + s] = material[s] - on_board[s] - sum(state.reserve(s))
        neutral_left = sum(sum(state.neutral_reserve(s)) for s in range(n))
        row[K.LOST + NEUTRAL] = material[NEUTRAL] - on_board[NEUTRAL] - neutral_left
        row[K.ROUND] = state.round
        row[K.SUB] = _PHASE_OF[state.phase]
        row[K.MUST_MELT] = int(state.must_melt)
        row[K.CUR] = state.current_player
        row[K.TURN] = state.turn
        pending = state.pending_groups()
        row[K.PENDING_COUNT] = len(pending)
        for e, (colour, groups) in enumerate(pending):
            row[K.PENDING_COLOUR + e] = colour
            row[K.PENDING_SIZE + e] = len(groups)
            for i, group in enumerate(groups):
                row[K.PENDING_GROUPS + e * K.MAX_GROUPS + i] = _int64(group)
        legal = state.legal_actions()
        row[K.CONFIG] = self.config
        row[K.LEGAL_COUNT] = len(legal)
        row[K.LEGAL : K.LEGAL + len(legal)] = legal
        return row

    def to_state(self, row: np.ndarray) -> ArktiaState:
        """The Python state of a compiled row, rebuilt through ``from_json`` (which checks
        material, connectivity and the legal actions with the reference rules)."""
        row = self.check_row(row)  # read-only: a writeable copy
        n, layout = self.num_players, self.game.layout

        def cut(column: int, count: int) -> tuple[int, ...]:
            return tuple(row[column : column + count].tolist())

        def mask(word: Any) -> int:  # a tile set as a Python int (bit 63 included)
            return sum(1 << t for t in bit_list(word))

        rnd = int(row[K.ROUND])
        phase = {K.CHOOSE: "choose", K.MELT_SUB: "melt"}.get(int(row[K.SUB]), ROUND_PHASES[rnd])
        pieces = [cut(K.PIECES + 3 * t, row[K.HEIGHT + t]) for t in range(layout.num_tiles)]
        pending = range(row[K.PENDING_COUNT])
        groups = [
            cut(K.PENDING_GROUPS + e * K.MAX_GROUPS, row[K.PENDING_SIZE + e]) for e in pending
        ]
        snapshot = ArktiaSnapshot(
            num_players=n,
            neutral_pieces=self.game.neutral_pieces,
            layout=layout,
            alive=mask(row[K.ALIVE]),
            stacks=tuple(tuple(divmod(piece, 3) for piece in stack) for stack in pieces),
            reserves=tuple(cut(K.RESERVE + 3 * s, 3) for s in range(n)),
            neutral_reserves=tuple(cut(K.NEUTRAL_RESERVE + 3 * s, 3) for s in range(n)),
            removed=cut(K.REMOVED, n),
            melted=cut(K.MELTED, n),
            round=rnd,
            phase=phase,
            current_player=int(row[K.CUR]),
            ended=tuple(bool(x) for x in cut(K.ENDED, n)),
            turn=int(row[K.TURN]),
            pending_choices=tuple(
                (int(row[K.PENDING_COLOUR + e]), tuple(mask(g) for g in group))
                for e, group in enumerate(groups)
            ),
        )
        return ArktiaState.from_json(serialization.dumps(snapshot))

    def canonical(self, row: np.ndarray) -> np.ndarray:
        """The meaningful part of a row (the legal list's unused tail cut off)."""
        return row[: K.LEGAL + row[K.LEGAL_COUNT]]

    def new_initial_state(self, seed: int | None = None) -> FastArktiaState:
        """Engine protocol: a new game as a :class:`FastArktiaState`."""
        del seed
        return FastArktiaState(self, self.initial_row.copy(), trusted=True)
