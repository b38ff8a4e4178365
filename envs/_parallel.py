"""The parallel face of every game (``<game>_v0.parallel_env``): PettingZoo's Parallel API
over the turn-based AEC env, one decision per ``step(actions)``.

The seat to move plays; the others wait, their actions ignored, each with a mask allowing
only :data:`WAITING_ACTION` (a masked categorical samples it with log-probability 0, and
never meets an all-zero mask). ``infos[agent]["acting"]`` names the seat to move. Rewards
are the AEC env's of the step; at the end every agent terminates (or truncates) together.
The raw AEC env checks the acting seat's action (``IllegalActionError``, nothing changed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from tabletop_zoo.envs._aec_base import TurnBasedAECEnv
from tabletop_zoo.envs.errors import UsageError

#: The one action a waiting seat's mask allows (ignored by the env).
WAITING_ACTION = 0


class TurnBasedParallelEnv(ParallelEnv):
    """Every seat steps at once; only the seat to move acts (see the module docstring)."""

    def __init__(self, aec_env: TurnBasedAECEnv) -> None:
        self.aec_env = aec_env
        self.metadata = {**aec_env.metadata, "is_parallelizable": True}
        self.possible_agents = aec_env.possible_agents[:]
        self.agents: list[str] = []
        self.render_mode, self.state_space = aec_env.render_mode, aec_env.state_space
        self.observation_spaces = aec_env.observation_spaces  # skrl reads the dicts
        self.action_spaces = aec_env.action_spaces
        # the AEC env's spaces (the same objects), global state, pictures and window
        self.observation_space, self.action_space = aec_env.observation_space, aec_env.action_space
        self.state, self.render, self.close = aec_env.state, aec_env.render, aec_env.close
        self._waiting_mask = np.eye(1, aec_env.num_actions, WAITING_ACTION, dtype=np.int8)[0]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start a new game (a seed fixes this and the following unseeded games)."""
        self.aec_env.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        return self._outputs()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the acting seat's action of ``actions``; the other seats' are ignored."""
        if not self.agents:
            self.aec_env._require_game("step()")
            raise UsageError("step() after the game is over: call env.reset() to start a new game")
        aec, acting = self.aec_env, self.aec_env.agent_selection
        if acting not in actions:
            raise UsageError(f"step(actions) needs an action for {acting!r}, the seat to move")
        aec.step(actions[acting])  # IllegalActionError, nothing changed, if illegal
        rewards = {agent: float(aec.rewards[agent]) for agent in self.agents}
        terminations = {agent: bool(aec.terminations[agent]) for agent in self.agents}
        truncations = {agent: bool(aec.truncations[agent]) for agent in self.agents}
        observations, infos = self._outputs()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _outputs(self) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Every seat's observation and info; a waiting seat's mask allows WAITING_ACTION."""
        aec, agent = self.aec_env, self.aec_env.agent_selection
        acting = None if aec.terminations[agent] or aec.truncations[agent] else agent
        observations = {agent: aec.observe(agent) for agent in self.possible_agents}
        for agent, observation in observations.items():
            if agent != acting:
                observation["action_mask"] = self._waiting_mask.copy()
        infos = {agent: {**info, "acting": agent == acting} for agent, info in aec.infos.items()}
        return observations, infos


def parallel_face(raw_env: Callable[..., TurnBasedAECEnv]) -> Callable[..., TurnBasedParallelEnv]:
    """The ``parallel_env(**options)`` of the game whose raw AEC env is ``raw_env``."""

    def parallel_env(**options: Any) -> TurnBasedParallelEnv:
        """The parallel face (:mod:`tabletop_zoo.envs._parallel`) of ``raw_env(**options)``."""
        return TurnBasedParallelEnv(raw_env(**options))

    return parallel_env
