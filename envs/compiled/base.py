"""The bases of the compiled engines of every game: the batched engine's row checks and
shared methods (:class:`FastEngineBase`) and the one-game view behind the engine protocol
(:class:`FastStateBase`), subclassed by each game's ``fast/engine.py`` and ``fast/state.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.envs.compiled.checks import (
    RowChecks,
    active_rows,
    check_actions,
    check_count,
    check_opponent,
    check_seats,
    seat_array,
)
from tabletop_zoo.envs.compiled.common import seed_compiled
from tabletop_zoo.envs.compiled.protocol import StepResult
from tabletop_zoo.envs.compiled.random_stream import check_words
from tabletop_zoo.envs.compiled.search_tree import new_tree, set_node
from tabletop_zoo.envs.errors import IllegalActionError, as_integer
from tabletop_zoo.envs.results import win_returns


class FastEngineBase(RowChecks):
    """What the batched compiled engines of both games share (``FastArktia``,
    ``FastMoleHill``; both follow :class:`FastEngine`). A subclass sets the attributes
    below and gives ``_check_rows`` (:class:`~.checks.RowChecks`): ``batch`` (its
    game's ``fast.batch`` module), ``state_class`` (its one-row view), ``score`` (the
    compiled score of a row and seat), ``player_column`` (the seat to act, -1 once the game
    is over), ``config_column`` (the :func:`configuration_fingerprint`), and what the
    ``batch`` kernels take besides the rows: ``_greedy_tables`` (greedy actions),
    ``_opponent_args`` (compiled opponents) and ``_restart_args`` (step and random play).

    Every public method that takes rows checks them first (:meth:`check_states`): a row
    that is not a position of this configuration gets an ``InvalidStateError`` (a
    ``WrongConfigurationError`` if another configuration made it), never a crash. The
    ``*_trusted`` twins (``step_trusted``, ``legal_mask_trusted``, ...) skip the check, for
    rows the engine produced itself (the vector env's, a search's).
    """

    batch: Any
    state_class: Any
    score: Any
    _greedy_tables: tuple
    _restart_args: tuple
    _opponent_args: tuple
    player_column: int
    config_column: int
    num_actions: int
    num_players: int
    state_width: int
    config: np.int64
    row_problems: tuple[str, ...]

    def seed(self, seed: int) -> None:
        """Seed the compiled code's random generator (random and greedy actions; Mole Hill's
        random flowers); ``seed`` an int 0..2**32 - 1."""
        seed_compiled(check_count("seed", seed, 0, 2**32 - 1))

    def random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 where inactive or over)."""
        return self.random_actions_trusted(self.check_states(states), active)

    def random_actions_trusted(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """:meth:`random_actions` of rows the engine made (not checked)."""
        out = np.full(len(states), -1, dtype=np.int64)
        self.batch.random_actions(states, active_rows(active, len(states)), out)
        return out

    def current_players(self, states: np.ndarray) -> np.ndarray:
        """Seat to act per game (-1 where the game is over)."""
        return self.check_states(states)[:, self.player_column].copy()

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: the game is over (only without autoreset)."""
        return self.check_states(states)[:, self.player_column] < 0

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of the seat to act."""
        return self.legal_mask_trusted(self.check_states(states))

    def legal_mask_trusted(self, states: np.ndarray) -> np.ndarray:
        """:meth:`legal_mask` of rows the engine made (not checked)."""
        mask = np.zeros((len(states), self.num_actions), dtype=bool)
        self.batch.legal_mask(states, mask)
        return mask

    def reset_games(self, states: np.ndarray, which: np.ndarray) -> None:
        """Start new games in the rows where ``which`` (bool mask) is set."""
        self.check_states(states, writeable=True)
        self.reset_games_trusted(states, active_rows(which, len(states), "which"))

    def reset_games_trusted(self, states: np.ndarray, which: np.ndarray) -> None:
        """:meth:`reset_games` of rows the engine made, ``which`` a bool mask (not
        checked)."""
        raise NotImplementedError  # pragma: no cover

    def play_opponents(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """Compiled ``"random"`` or ``"greedy"`` players decide in every (active) game until
        seat ``seats[i]`` is to act or the game ends or is truncated; no autoreset."""
        states = self.check_states(states, True)
        seats = check_seats(seats, len(states), self.num_players)
        return self.play_opponents_trusted(states, seats, opponent, active)

    def play_opponents_trusted(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """:meth:`play_opponents` on rows the engine made (not checked)."""
        check_opponent(opponent)
        b = len(states)
        seats = seat_array(seats, b)  # checked by the public twin
        result = self._zero_results(b)
        greedy = opponent == "greedy"
        self.batch.play_opponents(
            states, seats, active_rows(active, b), greedy, *self._opponent_args, *result
        )
        return result

    def observe(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """``(B, *observation_shape)`` float32 planes, game ``i`` seen by ``seats[i]`` (the
        env's planes)."""
        states = self.check_states(states)
        return self.observe_trusted(states, check_seats(seats, len(states), self.num_players))

    def observe_trusted(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """:meth:`observe` of rows the engine made, by valid ``seats`` (not checked)."""
        raise NotImplementedError  # pragma: no cover

    def step(
        self, states: np.ndarray, actions: Any, autoreset: bool = True, active: Any = None
    ) -> StepResult:
        """One decision in every (``active``) game; IllegalActionError (nothing changed) if
        any is illegal. A game that ends (or reaches the turn limit) is scored and, with
        ``autoreset``, its row is a new game when this returns."""
        return self.step_trusted(self.check_states(states, True), actions, autoreset, active)

    def step_trusted(
        self, states: np.ndarray, actions: Any, autoreset: bool = True, active: Any = None
    ) -> StepResult:
        """:meth:`step` on rows the engine made (not checked; the actions are)."""
        actions, active = self._step_inputs(states, actions, active)
        result = self._zero_results(len(states))
        self.batch.step(states, actions, active, bool(autoreset), *self._restart_args, *result)
        return result

    def _zero_results(self, b: int) -> StepResult:
        """The zeroed result of a step on ``b`` games (the kernels fill it in)."""
        n = self.num_players
        return StepResult(
            np.zeros((b, n), np.float32),
            np.zeros(b, bool),
            np.zeros(b, bool),
            np.zeros((b, n), np.int64),
        )

    def greedy_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """The greedy agent's choice per game: best (result, score margin) one ply deep,
        ties broken uniformly at random (-1 where inactive or over)."""
        states = self.check_states(states)  # read-only: a writeable copy
        out = np.full(len(states), -1, dtype=np.int64)
        active = active_rows(active, len(states))
        self.batch.greedy_actions(states, active, *self._greedy_tables, out)
        return out

    def scores(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_players)`` int64 scores as the positions stand (the rules engine's)."""
        states = self.check_states(states)  # read-only: a writeable copy
        seats = range(self.num_players)
        return np.array([[self.score(row, s) for s in seats] for row in states], dtype=np.int64)

    def random_play(
        self, batch_size: int, steps_per_game: int, seed: int = 0, parallel: bool = False
    ) -> tuple[int, int]:
        """Uniform random play entirely in compiled code: ``(steps, finished games)``; games
        that reach a turn limit restart and count as finished."""
        seed = check_count("seed", seed, 0, 2**32 - 1)
        steps_per_game = check_count("steps_per_game", steps_per_game)
        states = self.new_states(batch_size, seed)
        play = self.batch.random_play_parallel if parallel else self.batch.random_play
        games = play(states, steps_per_game, seed, *self._restart_args)
        return batch_size * steps_per_game, int(games)

    def wrap(self, row: np.ndarray) -> Any:
        """The engine-protocol view (``state_class``) of a copy of one compiled row
        (checked like :meth:`check_row`)."""
        return self.state_class(self, np.array(self.check_row(row)))

    def _step_inputs(
        self, states: np.ndarray, actions: Any, active: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The checked ``actions`` and ``active`` mask of a step on ``states``;
        IllegalActionError (nothing changed) naming the first game whose action is not
        legal and its legal actions (at most 20)."""
        actions = check_actions(actions, len(states))
        active = active_rows(active, len(states))
        bad = self.batch.first_illegal(states, actions, active)
        if bad >= 0:
            legal = np.flatnonzero(self.legal_mask_trusted(states[bad : bad + 1])[0]).tolist()
            raise IllegalActionError(
                f"game {bad}: action {actions[bad]} is not legal; legal: {legal[:20]}"
            )
        return actions, active

    def check_new_batch(self, batch_size: Any) -> int:
        """``batch_size`` as an int 0..2**24 (InvalidOptionError)."""
        return check_count("batch_size", batch_size, 0, 2**24)


class FastStateBase:
    """What the one-game views of both compiled engines share (``FastArktiaState``,
    ``FastMoleHillState``): the row, its engine, and the parts of the engine protocol that
    go through the pure-Python state (text, notation, JSON). A subclass gives the compiled
    ``legal_actions``, ``apply_if_legal`` and loops (below)."""

    __slots__ = ("engine", "row")

    def __init__(self, engine: Any, row: np.ndarray, trusted: bool = False) -> None:
        """``row``: a ``(state_width,)`` int64 row of ``engine``, checked
        (``engine.check_row``) unless ``trusted`` (rows the engine produced itself)."""
        self.engine = engine
        self.row = row if trusted else engine.check_row(row)

    @property
    def game(self) -> Any:
        """The rules engine's Game object (options, layout)."""
        return self.engine.game

    def clone(self) -> Any:
        """An independent copy."""
        return type(self)(self.engine, self.row.copy(), trusted=True)

    @property
    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""
        return int(self.row[self.engine.player_column])

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.row[self.engine.player_column] < 0

    def apply_action(self, action: int) -> None:
        """Play ``action``; IllegalActionError (nothing changed) if it is not legal (the
        reference engine's message)."""
        a = as_integer(action)
        if a is None or not 0 <= a < self.engine.num_actions or not self.apply_if_legal(a):
            self.to_state().apply_action(action)  # raises the reference engine's message
            raise IllegalActionError(f"action {action!r} is not legal")  # pragma: no cover

    #: the game's compiled loops (``staticmethod``\ s): the simulations of ``MCTSAgent``
    #: (see :mod:`.search_tree`), a random rollout and the greedy rule's best actions;
    #: ``_kernel_context()`` is what they read besides the row
    _search_loop: Any = None
    _rollout_loop: Any = None
    _greedy_loop: Any = None
    #: the dtype of the values the rollout loop writes (the one its search loop uses)
    _rollout_dtype: Any = np.float64

    def _kernel_context(self) -> Any:  # pragma: no cover - subclasses give it
        raise NotImplementedError

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.engine.num_players

    def rollout(self, words: np.ndarray, max_depth: int | None = None) -> list[float]:
        """Uniformly random play in compiled code until the end (or ``max_depth``
        decisions), each move ``Random.choice(legal_actions())`` drawn from ``words`` (a
        :class:`~tabletop_zoo.envs.compiled.random_stream.PythonStream`'s); the value per seat
        (+1/-1/0 from the scores as they then stand). Mutates the row."""
        words = check_words(words)
        out = np.zeros(self.num_players, dtype=self._rollout_dtype)
        depth = -1 if max_depth is None else max_depth
        self._rollout_loop(self.row, depth, self._kernel_context(), words, out)
        return [float(x) for x in out]

    def greedy_best(self) -> list[int]:
        """The actions the greedy rule ranks best (result if the game ends, then score
        margin, one ply deep), ascending; the agent draws one of them."""
        out = np.empty(self.engine.num_actions, dtype=np.int64)
        return out[: self._greedy_loop(self.row, self._kernel_context(), out)].tolist()

    def search_tree(
        self,
        words: np.ndarray,
        root_actions: list[int],
        simulations: int,
        exploration: float,
        max_depth: int | None = None,
        solve: bool = True,
    ) -> tuple[tuple, int]:
        """``MCTSAgent``'s search in compiled code (the game's ``_search_loop`` over the
        tree of :mod:`.search_tree`) with ``root_actions`` (already shuffled) untried at
        the root: the tree arrays and node count. Draws from ``words``; the row is not
        changed."""
        words = check_words(words)
        tree = new_tree(simulations + 1, self.num_players, self.engine.num_actions)
        actions = np.asarray(root_actions, dtype=np.int64)
        set_node(tree, 0, self.current_player, actions, len(actions))
        depth = -1 if max_depth is None else int(max_depth)
        count = self._search_loop(
            self.row,
            self._kernel_context(),
            tree,
            words,
            simulations,
            float(exploration),
            depth,
            solve,
        )
        return tree, int(count)

    def apply_if_legal(self, action: int) -> bool:  # pragma: no cover - subclasses give it
        """Play ``action`` (an int in range, not checked) in compiled code if it is legal;
        False (row unchanged) if not: :meth:`apply_action` without its checks and message,
        for a search's own moves."""
        raise NotImplementedError

    def scores(self) -> list[int]:
        """Score per seat as the position stands."""
        return [int(self.engine.score(self.row, s)) for s in range(self.num_players)]

    def returns(self) -> list[float]:
        """+1/-1/0 per seat from the scores at the end (``results.win_returns``), zeros
        before."""
        if not self.is_terminal():
            return [0.0] * self.engine.num_players
        return win_returns(self.scores())

    def to_state(self) -> Any:
        """The equivalent pure-Python state."""
        return self.engine.to_state(self.row)

    def action_to_string(self, action: int) -> str:
        """Notation of ``action`` in this position."""
        return self.to_state().action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Parse notation, checked against this position."""
        return self.to_state().string_to_action(text)

    def to_json(self) -> str:
        """The Python state's JSON."""
        return self.to_state().to_json()

    def __str__(self) -> str:
        return str(self.to_state())
