"""The batched API of the compiled engines as a :class:`typing.Protocol`, and the record
their ``step`` returns.

This module needs no numba: the vector env, the batched arena, the benchmark and the
structure tests name the protocol without loading the compiled engines.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np


class StepResult(NamedTuple):
    """What a compiled engine's ``step`` returns, one entry per game of the batch."""

    rewards: np.ndarray
    """``(B, n)`` float32: +1 sole top scorer, 0 tied top, -1 others, in the games that
    ended or were truncated in this step; 0 elsewhere."""
    terminated: np.ndarray
    """``(B,)`` bool: the game ended in this step (by the rules)."""
    truncated: np.ndarray
    """``(B,)`` bool: the game reached the engine's ``max_turns`` in this step."""
    final_scores: np.ndarray
    """``(B, n)`` int64: scores of the games that ended or were truncated, else 0."""


@runtime_checkable
class FastEngine(Protocol):
    """The batched API of a compiled engine (``envs/<game>/fast/engine.py``, named by
    ``GameSpec.fast_engine``): what the vector env (:mod:`tabletop_zoo.wrappers.vector`),
    the search agents (through :func:`~tabletop_zoo.envs.registry.fast_state`) and
    ``scripts/benchmark.py`` rely on, and what ``tests/test_structure.py`` checks.

    A batch is a ``(B, state_width)`` ``int64`` array, one game per row, all of one
    configuration (the engine's ``game``). ``active`` (where taken) is a ``(B,)`` bool mask
    of the rows to touch (``None``: all). Seats are ``0..num_players-1``; a row's current
    player is -1 once its game is over.
    """

    game: Any
    """The rules engine's Game object whose configuration the rows play."""
    num_players: int
    num_actions: int
    state_width: int
    observation_shape: tuple[int, ...]
    """``(rows, cols, planes)`` of one observation, as the env's encoder."""
    player_column: int
    """The column of a row that holds the seat to act (-1 once the game is over)."""

    def seed(self, seed: int) -> None:
        """Seed the compiled random generator (random and greedy actions, random setups)."""
        ...

    def new_states(self, batch_size: int, seed: int | None = None) -> np.ndarray:
        """``batch_size`` games at the start."""
        ...

    def reset_games(self, states: np.ndarray, which: np.ndarray) -> None:
        """Start new games in the rows where the bool mask ``which`` is set."""
        ...

    def current_players(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` seat to act per game (-1 where over)."""
        ...

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: the game is over."""
        ...

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of the seat to act."""
        ...

    def observe(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """``(B, *observation_shape)`` float32, game ``i`` seen by ``seats[i]``."""
        ...

    def step(
        self, states: np.ndarray, actions: Any, autoreset: bool = True, active: Any = None
    ) -> StepResult:
        """One decision in every (active) game; an illegal action raises
        IllegalActionError and changes nothing. Ended games restart with ``autoreset``."""
        ...

    def random_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 where inactive or over)."""
        ...

    def greedy_actions(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """The greedy agent's action per game (-1 where inactive or over)."""
        ...

    def play_opponents(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """Compiled ``"random"``/``"greedy"`` players act until ``seats[i]`` is to act or
        the game ends (no autoreset)."""
        ...

    def scores(self, states: np.ndarray) -> np.ndarray:
        """``(B, num_players)`` int64 scores as the positions stand."""
        ...

    def random_play(
        self, batch_size: int, steps_per_game: int, seed: int = 0, parallel: bool = False
    ) -> tuple[int, int]:
        """Uniform random play inside compiled code: ``(steps, finished games)``."""
        ...

    # The trusted twins: the calls above without the row check, for rows the engine made
    # itself (a vector env's, a search's); what they do with any other row is undefined.
    def reset_games_trusted(self, states: np.ndarray, which: np.ndarray) -> None:
        """:meth:`reset_games`, ``which`` a ``(B,)`` bool array."""
        ...

    def legal_mask_trusted(self, states: np.ndarray) -> np.ndarray:
        """:meth:`legal_mask`."""
        ...

    def observe_trusted(self, states: np.ndarray, seats: Any) -> np.ndarray:
        """:meth:`observe`, ``seats`` valid."""
        ...

    def step_trusted(
        self, states: np.ndarray, actions: Any, autoreset: bool = True, active: Any = None
    ) -> StepResult:
        """:meth:`step` (the actions are still checked)."""
        ...

    def random_actions_trusted(self, states: np.ndarray, active: Any = None) -> np.ndarray:
        """:meth:`random_actions`."""
        ...

    def play_opponents_trusted(
        self, states: np.ndarray, seats: Any, opponent: str = "random", active: Any = None
    ) -> StepResult:
        """:meth:`play_opponents`."""
        ...

    def from_state(self, state: Any) -> np.ndarray:
        """The row of a rules-engine state of this configuration."""
        ...

    def to_state(self, row: np.ndarray) -> Any:
        """The rules-engine state of a row."""
        ...

    def wrap(self, row: np.ndarray) -> Any:
        """One row behind the engine protocol (a :class:`FastStateBase`)."""
        ...

    def new_initial_state(self, seed: int | None = None) -> Any:
        """A fresh game as one wrapped row."""
        ...
