"""A Stable-Baselines3 ``VecEnv`` over a compiled batched engine, for ``MaskablePPO`` at
engine speed (the ``fast`` and ``train`` extras; docs/baselines.md shows it in use).

One learner seat per game (a random seat per episode); the other seats are played inside
the batch by compiled ``random`` or ``greedy`` players or by a snapshot pool
(:class:`BatchedOpponents`). Observations and masks are the single-agent env's for the same
position. A finished game restarts at once, its last observation in
``infos[i]["terminal_observation"]`` (SB3's convention), ``infos[i]["TimeLimit.truncated"]``
when ``max_turns`` cut it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from tabletop_zoo.envs.registry import fast_engine
from tabletop_zoo.wrappers.vector_batched import BatchedVectorEnv
from tabletop_zoo.wrappers.vector_pool import BatchedOpponents, PoolVectorEnv


class CompiledVecEnv(VecEnv):
    """SB3 ``VecEnv`` over ``env``, the Gymnasium vector env holding the games
    (:class:`PoolVectorEnv` or :class:`BatchedVectorEnv`, ``learner_seat=None``)."""

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
    engine = fast_engine(game, num_players, max_turns=max_turns, **options)
    if isinstance(opponent, str):
        return CompiledVecEnv(BatchedVectorEnv(engine, num_envs, opponent, None, reward_mode, seed))
    pool_env = PoolVectorEnv(
        engine, num_envs, opponent, learner_seat=None, reward_mode=reward_mode, seed=seed
    )
    return CompiledVecEnv(pool_env)
