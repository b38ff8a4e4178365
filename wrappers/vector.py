"""A Gymnasium ``VectorEnv`` over a compiled batched engine (the ``fast`` extra).

For custom training loops (CleanRL style) that step thousands of games at once: one seat
learns in every game, the other seats are played inside, in batch, by compiled random or
greedy opponents or by a user-supplied batched policy::

    from tabletop_zoo.wrappers.vector import make_vector_env
    envs = make_vector_env("mole_hill", num_envs=1024, opponent="greedy", seed=0)
    obs, infos = envs.reset()
    actions = envs.sample_legal_actions()        # or your policy, masked by
    obs, rewards, terminated, truncated, infos = envs.step(actions)  # infos["action_mask"]

* Observations are the AEC env's planes seen by the learner, ``(num_envs, rows, cols,
  planes)`` float32; ``infos["action_mask"]`` (and :meth:`action_masks`) the learner's
  legal actions, ``(num_envs, num_actions)`` bool.
* A reward reaches the learner when its game ends: +1 / 0 / -1 (``reward_mode="win"``)
  or its score minus the best other score (``"score"``); the opponents' replies happen
  inside the same ``step``.
* Autoreset is Gymnasium's ``SAME_STEP`` mode: a game that ends is restarted at once (the
  returned observation is the new game's); ``infos["final_obs"]`` holds the learner's
  last observation of the finished game (``None`` for the others), ``infos["_final_obs"]``
  marks those games and ``infos["final_scores"]`` holds their scores.
* ``learner_seat`` is a seat, or ``None`` for a random seat per game and episode
  (``infos["learner_seat"]``).
* An illegal learner action raises :class:`~tabletop_zoo.envs.errors.IllegalActionError`
  and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from tabletop_zoo.envs._aec_base import positive_int_option, reward_mode_option, seat_option
from tabletop_zoo.envs.errors import InvalidOptionError, UsageError
from tabletop_zoo.envs.registry import fast_engine, get_spec

if TYPE_CHECKING:  # the protocol module loads numba; the env itself does not need it
    from tabletop_zoo.envs.fast_common import FastEngine

__all__ = ["BatchedVectorEnv", "make_vector_env"]

#: ``policy(observations, action_masks) -> actions`` for the games in the batch where an
#: opponent is to move (observations from the mover's side).
BatchedPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
OPPONENTS = ("random", "greedy")


class BatchedVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of one configuration on a compiled engine, one learner per game.

    Args:
        engine: a compiled engine following :class:`~tabletop_zoo.envs.fast_common.FastEngine`
            (``tabletop_zoo.envs.registry.fast_engine(...)``).
        num_envs: number of games stepped together.
        opponent: ``"random"``, ``"greedy"`` (both compiled) or a batched policy.
        learner_seat: the learner's seat, or ``None`` for a random seat per episode.
        reward_mode: ``"win"`` or ``"score"``.
        seed: default seed of the first ``reset()``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        engine: FastEngine,
        num_envs: int,
        opponent: str | BatchedPolicy = "random",
        learner_seat: int | None = 0,
        reward_mode: str = "win",
        seed: int | None = None,
    ) -> None:
        num_envs = positive_int_option("num_envs", num_envs)
        if not (opponent in OPPONENTS or callable(opponent)):
            raise InvalidOptionError(
                f"opponent must be one of {OPPONENTS} or a batched policy "
                f"(observations, masks) -> actions, got {opponent!r}"
            )
        learner_seat = seat_option(
            "learner_seat", learner_seat, engine.num_players, "a random seat per episode"
        )
        reward_mode = reward_mode_option(reward_mode)
        self.engine = engine
        self.num_envs = num_envs
        self.opponent = opponent
        self.learner_seat_option = learner_seat
        self.reward_mode = reward_mode
        self._default_seed = seed
        self.single_observation_space = gymnasium.spaces.Box(
            0.0, 1.0, engine.observation_shape, dtype=np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.states = engine.new_states(num_envs)
        self.learner_seat = np.zeros(num_envs, dtype=np.int64)
        self._rng = np.random.default_rng(seed)
        self._ready = False

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start ``num_envs`` new games and play the opponents up to the learner's turn."""
        del options
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        if seed is None and not self._ready:
            seed = self._default_seed
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.engine.seed(int(self._rng.integers(2**31)))
        self.states = self.engine.new_states(self.num_envs, int(self._rng.integers(2**31)))
        self._draw_seats(np.ones(self.num_envs, dtype=bool))
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        self._play_opponents(rewards, done, done.copy(), {})
        self._ready = True
        return self._observe(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game, then the opponents' replies; autoreset."""
        if not self._ready:
            raise UsageError("step() before reset(): call reset() first to start the games")
        actions = np.asarray(actions)
        result = self.engine.step(self.states, actions, autoreset=False)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        finals: dict[str, Any] = {}
        self._finish(result, np.ones(self.num_envs, dtype=bool), rewards, terminated,
                     truncated, finals)  # fmt: skip
        self._play_opponents(rewards, terminated, truncated, finals)
        return self._observe(), rewards, terminated, truncated, self._infos(finals)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learner's legal actions (sb3-contrib name)."""
        return self.engine.legal_mask(self.states)

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action per game for the learner (compiled)."""
        return self.engine.random_actions(self.states)

    # ------------------------------------------------------------------ internals
    def _draw_seats(self, which: np.ndarray) -> None:
        if self.learner_seat_option is None:
            seats = self._rng.integers(self.engine.num_players, size=self.num_envs)
            self.learner_seat[which] = seats[which]
        else:
            self.learner_seat[which] = self.learner_seat_option

    def _observe(self) -> np.ndarray:
        return self.engine.observe(self.states, self.learner_seat)

    def _infos(self, finals: dict[str, Any] | None = None) -> dict[str, Any]:
        infos: dict[str, Any] = {
            "action_mask": self.action_masks(),
            "learner_seat": self.learner_seat.copy(),
        }
        if finals:
            infos.update(finals)
        return infos

    def _finish(
        self,
        result: Any,
        active: np.ndarray,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        finals: dict[str, Any],
    ) -> None:
        """Learner rewards and final observations of the games that just ended; restart."""
        ended = active & (result.terminated | result.truncated)
        if not ended.any():
            return
        rows = np.flatnonzero(ended)
        seats = self.learner_seat[rows]
        scores = result.final_scores[rows]
        if self.reward_mode == "win":
            rewards[rows] = result.rewards[rows, seats]
        else:
            others = scores.copy()
            others[np.arange(len(rows)), seats] = np.iinfo(np.int64).min
            rewards[rows] = scores[np.arange(len(rows)), seats] - others.max(axis=1)
        terminated[rows] = result.terminated[rows]
        truncated[rows] = result.truncated[rows]
        if not finals:
            finals["final_obs"] = np.full(self.num_envs, None, dtype=object)
            finals["final_scores"] = np.zeros((self.num_envs, self.engine.num_players), np.int64)
            finals["_final_obs"] = np.zeros(self.num_envs, dtype=bool)
        last = self.engine.observe(self.states[rows], seats)
        for k, row in enumerate(rows):
            finals["final_obs"][row] = last[k]
        finals["final_scores"][rows] = scores
        finals["_final_obs"][rows] = True
        self.engine.reset_games(self.states, ended)
        self._draw_seats(ended)

    def _play_opponents(
        self,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        finals: dict[str, Any],
    ) -> None:
        """Let the opponents decide, in batch, until the learner is to act in every game."""
        while True:
            mover = self.engine.current_players(self.states)
            active = (mover >= 0) & (mover != self.learner_seat)
            if not active.any():
                return
            if self.opponent in OPPONENTS:  # compiled: up to the learner's turn at once
                result = self.engine.play_opponents(
                    self.states, self.learner_seat, self.opponent, active
                )
            else:
                rows = np.flatnonzero(active)
                chosen = self.opponent(
                    self.engine.observe(self.states[rows], mover[rows]),
                    self.engine.legal_mask(self.states[rows]),
                )
                actions = np.zeros(self.num_envs, dtype=np.int64)
                actions[rows] = np.asarray(chosen, dtype=np.int64)
                result = self.engine.step(self.states, actions, autoreset=False, active=active)
            self._finish(result, active, rewards, terminated, truncated, finals)


def make_vector_env(
    game: str,
    num_envs: int,
    num_players: int | None = None,
    opponent: str | BatchedPolicy = "random",
    learner_seat: int | None = 0,
    reward_mode: str = "win",
    max_turns: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> BatchedVectorEnv:
    """A :class:`BatchedVectorEnv` of ``game`` (registry name) with the game's options.

    ``max_turns`` is the truncation limit of games that have one (default: the env's).
    """
    spec = get_spec(game)
    engine = fast_engine(spec.name, num_players, max_turns=max_turns, **options)
    return BatchedVectorEnv(engine, num_envs, opponent, learner_seat, reward_mode, seed)
