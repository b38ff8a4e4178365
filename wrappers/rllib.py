"""Our AEC envs as RLlib multi-agent envs with action masks (optional extra ``rllib``).

:class:`TurnBasedMultiAgentEnv` returns at each step the observation of the one agent to
decide next, as ``{"observations": flat float32 planes, "action_mask": float32 0/1}`` (what
``ActionMaskingTorchRLModule`` reads). Rewards are 0 until the game ends; then every agent
gets its final reward and an observation, with ``terminateds`` (or after ``max_turns``
``truncateds``) ``"__all__"`` set. With ``opponent`` (a ``make_agent`` spec) our baseline
plays the other seats inside the env and one seat per episode is the learner. The module
and mapping helpers build ``train-rllib``'s setups: one shared module (``"main"``), one per
seat (``"seat_<i>"``), or ``"main"`` against a ``"snapshot"`` that
:class:`SnapshotCallback` refreshes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.rllib import flat_observation
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import make_env

MAIN = "main"
SNAPSHOT = "snapshot"
POLICY_SETUPS = ("shared", "per-seat", "snapshot")


class TurnBasedMultiAgentEnv(MultiAgentEnv):
    """RLlib ``MultiAgentEnv`` view of one of our AEC envs (see the module docstring).

    ``config`` keys: ``game`` (required), ``num_players``, ``opponent`` (agent spec for the
    seats RLlib does not play; ``None``: RLlib plays every seat), ``seed``; every other key
    is an env option (``reward_mode``, ``max_turns``, game options).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        if "game" not in options:
            raise InvalidOptionError("TurnBasedMultiAgentEnv needs config['game']")
        game = options.pop("game")
        num_players = options.pop("num_players", None)
        self.opponent_spec: str | None = options.pop("opponent", None)
        self._rng = random.Random(options.pop("seed", None))
        self.aec = make_env(game, num_players, **options)  # classic: illegal action loses
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_space(self.possible_agents[0])
        size = int(np.prod(inner["observation"].shape))
        num_actions = int(self.aec.action_space(self.possible_agents[0]).n)
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self._opponents: dict[str, Any] = {}
        self._seen: set[str] = set()

    # ---- MultiAgentEnv API
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """New game; with an ``opponent``, a new learner seat and fresh opponent agents."""
        if seed is not None:
            self._rng.seed(seed)
        self.aec.reset(seed=self._rng.getrandbits(31))
        self._opponents = {}
        if self.opponent_spec is not None:
            learner = self._rng.randrange(len(self.possible_agents))
            for seat, agent in enumerate(self.possible_agents):
                if seat != learner:
                    opponent = make_agent(self.opponent_spec, seed=self._rng.getrandbits(31))
                    self._opponents[agent] = opponent
        self.agents = [a for a in self.possible_agents if a not in self._opponents]
        self._seen = set()
        self._play_opponents()
        return self._emit(acted=None)[0], {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the deciding agent's action, then the in-env opponents up to our next turn."""
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise InvalidOptionError(
                f"it is {agent}'s decision; got actions for {sorted(action_dict)}"
            )
        self.aec.step(int(action_dict[agent]))
        self._play_opponents()
        return self._emit(acted=agent)

    # ---- helpers
    def _over(self) -> tuple[bool, bool]:
        """(terminated, truncated) of the whole game."""
        aec = self.aec
        return all(aec.terminations.values()), all(aec.truncations.values())

    def _play_opponents(self) -> None:
        """Let the in-env opponents decide until a learner agent is to move or the game ends."""
        aec = self.aec
        while not any(self._over()) and aec.agent_selection in self._opponents:
            agent = aec.agent_selection
            obs = aec.observe(agent)
            action = self._opponents[agent].act(
                obs["observation"], obs["action_mask"], aec.unwrapped.game_state
            )
            aec.step(int(action))

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        self._seen.add(agent)
        return flat_observation(self.aec.observe(agent))

    def _emit(self, acted: str | None) -> tuple[dict, dict, dict, dict, dict]:
        """The observation/reward/done dicts after the last decision."""
        terminated, truncated = self._over()
        if terminated or truncated:
            finished = [a for a in self.agents if a in self._seen]
            obs = {a: self._observe(a) for a in finished}
            rewards = {a: float(self.aec.rewards[a]) for a in finished}
            terminateds = {"__all__": terminated, **dict.fromkeys(finished, terminated)}
            truncateds = {"__all__": truncated, **dict.fromkeys(finished, truncated)}
            return obs, rewards, terminateds, truncateds, {}
        nxt = self.aec.agent_selection
        rewards = {} if acted is None or acted in self._opponents else {acted: 0.0}
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}


# ---------------------------------------------------------------------------- PPO setups
def module_ids(setup: str, num_players: int) -> list[str]:
    """The RLModule ids of a setup: ``shared``, ``per-seat`` or ``snapshot``."""
    if setup == "shared":
        return [MAIN]
    if setup == "per-seat":
        return [f"seat_{i}" for i in range(num_players)]
    if setup == "snapshot":
        return [MAIN, SNAPSHOT]
    raise InvalidOptionError(f"unknown policy setup {setup!r}; allowed: {POLICY_SETUPS}")


def trained_module_ids(setup: str, num_players: int) -> list[str]:
    """The ids PPO trains (the snapshot is frozen)."""
    return [m for m in module_ids(setup, num_players) if m != SNAPSHOT]


def policy_mapping(setup: str, num_players: int) -> Callable[..., str]:
    """``agent_id -> module id`` for RLlib's ``multi_agent(policy_mapping_fn=...)``.

    ``snapshot``: per episode one seat (from the episode id) is ``main``, all others play
    the frozen ``snapshot``.
    """
    module_ids(setup, num_players)  # validates the setup

    def mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[1])
        if setup == "shared":
            return MAIN
        if setup == "per-seat":
            return f"seat_{seat}"
        learner = hash(episode.id_) % num_players if episode is not None else 0
        return MAIN if seat == learner else SNAPSHOT

    return mapping


def module_specs(ids: list[str], hidden: tuple[int, ...] = (256, 256)) -> MultiRLModuleSpec:
    """Action-masking PPO torch modules (an MLP of ``hidden`` layers) for every id."""
    spec = {
        module_id: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []},
        )
        for module_id in ids
    }
    return MultiRLModuleSpec(rl_module_specs=spec)


class SnapshotCallback(RLlibCallback):
    """Every ``every`` training iterations, copy ``main``'s weights into ``snapshot``."""

    def __init__(self, every: int = 1) -> None:
        super().__init__()
        self.every = max(1, int(every))

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        """Refresh the frozen opponent on the learner and on every env runner."""
        if algorithm.iteration % self.every:
            return
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        algorithm.learner_group.set_weights({SNAPSHOT: weights})
        algorithm.env_runner_group.foreach_env_runner(
            lambda runner: runner.module[SNAPSHOT].set_state(weights)
        )
        result["snapshot_refreshed"] = algorithm.iteration
