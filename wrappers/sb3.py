"""A Stable-Baselines3 ``VecEnv`` over a compiled batched engine (the ``fast`` and
``train`` extras), for ``MaskablePPO`` at engine speed::

    from sb3_contrib import MaskablePPO
    from tabletop_zoo.wrappers.sb3 import make_sb3_vec_env
    envs = make_sb3_vec_env("mole_hill", num_envs=8, opponent="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", envs, n_steps=64).learn(2_000)

One learner seat per game (a random seat per episode); the other seats are played inside
the batch, between two learner steps, by compiled ``random`` or ``greedy`` players or by
frozen snapshots of the learner (a pool, :class:`BatchedOpponents`: every seat of every
episode draws its opponent; all games waiting on the same snapshot share one forward pass).
Observations and masks are those of the single-agent env
(:mod:`tabletop_zoo.wrappers.single_agent`) for the same position; ``action_masks()``
(and ``env_method("action_masks")``) serves ``MaskablePPO``. A game that ends restarts at
once; its last observation is ``infos[i]["terminal_observation"]`` (SB3's convention) and
``infos[i]["TimeLimit.truncated"]`` says it was cut by ``max_turns``. The games run on
:class:`~tabletop_zoo.wrappers.vector.BatchedVectorEnv` (the Gymnasium vector env).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from tabletop_zoo.envs.registry import fast_engine, get_spec
from tabletop_zoo.wrappers.vector import BatchedVectorEnv

__all__ = ["BatchedOpponents", "CompiledVecEnv", "PoolVectorEnv", "make_sb3_vec_env"]


class BatchedOpponents(Protocol):
    """Who plays the other seats, drawn per seat per episode (implemented by
    :class:`tabletop_zoo.baselines.training.opponents.BatchedOpponentPool`).

    An opponent is an integer code: ``-1 - k`` for compiled baseline ``k`` of
    ``baselines`` (``"random"`` or ``"greedy"``), a code ``>= 0`` for a policy (a frozen
    snapshot) that :meth:`sample_actions` plays for a whole batch at once.
    """

    baselines: tuple[str, ...]
    counts: dict[str, int]

    def refresh(self, in_use: np.ndarray) -> None:
        """Update the policies; keep those whose codes are ``in_use``."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Opponent codes of ``shape`` seats."""

    def name(self, code: int) -> str:
        """The opponent's name (for ``counts``)."""

    def sample_actions(self, code: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Policy ``code``'s actions for a batch of its seats' observations and masks."""


class PoolVectorEnv(BatchedVectorEnv):
    """:class:`BatchedVectorEnv` whose opponents come from ``pool`` (:class:`BatchedOpponents`),
    one draw per seat per episode."""

    def __init__(self, engine: Any, num_envs: int, pool: BatchedOpponents, **kwargs: Any):
        self.pool = pool
        self.seat_opponents = np.full((num_envs, engine.num_players), -1, dtype=np.int64)
        super().__init__(engine, num_envs, opponent=pool.baselines[0], **kwargs)

    def _draw_seats(self, which: np.ndarray) -> None:
        super()._draw_seats(which)
        rows = np.flatnonzero(which)
        codes = self.pool.draw(self._rng, (len(rows), self.engine.num_players))
        self.seat_opponents[rows] = codes
        others = np.arange(self.engine.num_players)[None] != self.learner_seat[rows, None]
        for code, count in zip(*np.unique(codes[others], return_counts=True), strict=True):
            name = self.pool.name(int(code))
            self.pool.counts[name] = self.pool.counts.get(name, 0) + int(count)

    def _play_opponents(
        self,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        finals: dict[str, Any],
    ) -> None:
        """Opponents decide until the learner is to act in every game: a game whose other
        seats are all one compiled player is played to the learner's turn in one compiled
        call; the others one decision at a time, a forward pass per snapshot."""
        seats = np.arange(self.engine.num_players)[None]
        while True:
            mover = self._states[:, self.engine.player_column]  # rows the engine made
            active = (mover >= 0) & (mover != self.learner_seat)
            if not active.any():
                return
            others = seats != self.learner_seat[:, None]
            codes = np.where(others, self.seat_opponents, 0)
            single = others.sum(axis=1)
            for k, kind in enumerate(self.pool.baselines):
                whole = active & ((codes == -1 - k).sum(axis=1) == single)
                if whole.any():
                    result = self.engine._play_opponents(
                        self._states, self.learner_seat, kind, whole
                    )
                    self._finish(result, whole, rewards, terminated, truncated, finals)
                    active &= ~whole
            if not active.any():
                continue
            code = self.seat_opponents[np.arange(self.num_envs), np.maximum(mover, 0)]
            actions = np.full(self.num_envs, -1, dtype=np.int64)
            for c in np.unique(code[active]).tolist():
                chosen = active & (code == c)
                if c >= 0:
                    rows = np.flatnonzero(chosen)
                    observations = self.engine._observe(self._states[rows], mover[rows])
                    masks = self.engine._legal_mask(self._states[rows])
                    actions[rows] = self.pool.sample_actions(c, observations, masks)
                elif self.pool.baselines[-1 - c] == "greedy":
                    actions[chosen] = self.engine.greedy_actions(self._states, chosen)[chosen]
                else:
                    actions[chosen] = self.engine._random_actions(self._states, chosen)[chosen]
            result = self.engine._step(self._states, actions, autoreset=False, active=active)
            self._finish(result, active, rewards, terminated, truncated, finals)


class CompiledVecEnv(VecEnv):
    """SB3 ``VecEnv`` of ``num_envs`` games on a compiled engine (see the module doc).

    Args:
        env: the Gymnasium vector env holding the games (:class:`PoolVectorEnv` or
            :class:`BatchedVectorEnv`, with ``learner_seat=None`` for random seats).
    """

    render_mode = None

    def __init__(self, env: BatchedVectorEnv) -> None:
        self.env = env
        self._actions: np.ndarray | None = None
        self._masks: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> np.ndarray:
        """Start every game (seeded by the last ``seed()`` call, if any)."""
        seed = self._seeds[0]
        self._refresh_pool()
        obs, infos = self.env.reset(seed=seed)
        self._masks = infos["action_mask"]
        self.reset_infos = [{"learner_seat": int(s)} for s in infos["learner_seat"]]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learner's actions (one per game) for :meth:`step_wait`."""
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game: the learner's action, the opponents' replies, autoreset."""
        assert self._actions is not None, "step_async() comes first"
        self._refresh_pool()
        obs, rewards, terminated, truncated, infos = self.env.step(self._actions)
        self._actions = None
        self._masks = infos["action_mask"]
        dones = terminated | truncated
        seats = infos["learner_seat"]
        out: list[dict[str, Any]] = [{"learner_seat": int(s)} for s in seats]
        for i in np.flatnonzero(dones):
            out[i]["terminal_observation"] = infos["final_obs"][i]
            out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            out[i]["final_scores"] = infos["final_scores"][i].tolist()
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learner's legal actions per game (those
        the last ``reset``/``step`` returned with, computed once)."""
        if self._masks is None:
            self._masks = self.env.action_masks()
        return self._masks

    def _refresh_pool(self) -> None:
        pool = getattr(self.env, "pool", None)
        if pool is not None:
            pool.refresh(self.env.seat_opponents)

    def close(self) -> None:
        """Nothing to release (the games are arrays)."""

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``attr_name`` of the env, once per game of ``indices`` (``learner_seat``: each
        game's own); AttributeError if there is none."""
        rows = list(self._get_indices(indices))
        if attr_name == "learner_seat":
            return [int(self.env.learner_seat[i]) for i in rows]
        return [getattr(self, attr_name)] * len(rows)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set ``attr_name`` on the env (one value for all its games)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call ``method_name`` once; its per-game results (``action_masks``: each game's
        row) or its one result for every game of ``indices``."""
        rows = list(self._get_indices(indices))
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        if method_name == "action_masks":
            return [result[i] for i in rows]
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No game is wrapped in a Gymnasium wrapper."""
        return [False] * len(list(self._get_indices(indices)))


def make_sb3_vec_env(
    game: str,
    num_envs: int,
    num_players: int | None = None,
    opponent: str | BatchedOpponents = "random",
    reward_mode: str = "win",
    max_turns: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> CompiledVecEnv:
    """A :class:`CompiledVecEnv` of ``game`` (registry name): ``opponent`` is ``"random"``,
    ``"greedy"`` or a pool (:class:`BatchedOpponents`, e.g. ``tabletop_zoo.baselines.
    training.opponents.BatchedOpponentPool``); ``options`` are the game's options."""
    spec = get_spec(game)
    engine = fast_engine(spec.name, num_players, max_turns=max_turns, **options)
    if not isinstance(opponent, str):
        env: BatchedVectorEnv = PoolVectorEnv(
            engine, num_envs, opponent, learner_seat=None, reward_mode=reward_mode, seed=seed
        )
    else:
        env = BatchedVectorEnv(engine, num_envs, opponent, None, reward_mode, seed)
    return CompiledVecEnv(env)
