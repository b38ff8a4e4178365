"""Masked PPO on the compiled vector env in one module, in CleanRL's order (``cleanrl/ppo.py``):
the arguments (:class:`PPOVectorConfig`), the env (:func:`make_envs`,
:class:`SnapshotOpponent`), the agent (:class:`ActorCritic`, its weights:
:func:`save_weights`, :func:`load_weights`), the loop (:func:`train`). ``tabletop-zoo
ppo-vector`` is its command line.

The learner takes a random seat in each of ``num_envs`` games stepped together by the
compiled engine (:mod:`tabletop_zoo.wrappers.vector`); the other seats are played inside
the batch by compiled ``random`` or ``greedy`` players, or by a frozen copy of the learner
(``snapshot``, refreshed every ``snapshot_every`` updates; random until the first one); a
comma list mixes them, one entry drawn per other seat and episode. Illegal actions are
masked out of the policy. Needs the ``fast`` and ``train`` extras (numba, torch).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from tabletop_zoo.baselines.agents.numpy_net import legal_action
from tabletop_zoo.baselines.evaluation import evaluate_agent
from tabletop_zoo.baselines.evaluation.stats import PairingStats
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.baselines.training.export import read_ppo_vector_weights
from tabletop_zoo.envs.errors import ModelFileError
from tabletop_zoo.wrappers.vector import make_vector_env
from tabletop_zoo.wrappers.vector_batched import BatchedVectorEnv


# ---------------------------------------------------------------- arguments
@dataclass
class PPOVectorConfig:
    """The run's settings: the command's flags, one field each (``--num-envs``: num_envs)."""

    game: str
    num_players: int
    opponent: str = "random"  # random, greedy, snapshot, or a comma list of them
    seed: int = 0
    reward_mode: str = "win"
    reward_scale: float = 1.0
    total_timesteps: int = 2_000_000
    cpu_budget: float | None = None
    num_envs: int = 64
    num_steps: int = 64
    learning_rate: float = 1e-3
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128
    snapshot_every: int = 20
    torch_threads: int = 1
    log_every: int = 10
    eval_games: int = 50
    eval_policy: str = "argmax"
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    load: str | None = None
    save: str | None = None
    checkpoint_every: float = checkpoint.DEFAULT_EVERY  # seconds; the checkpoint: beside save


# ---------------------------------------------------------------- env
class SnapshotOpponent:
    """The policy of ``snapshot`` opponents: the learner's last frozen copy (``network``), or
    until there is one, uniformly random legal actions from the opponent's own generator
    (NumPy's legacy stream of ``seed``)."""

    def __init__(self, seed: int) -> None:
        self.network: ActorCritic | None = None
        self.rng = np.random.RandomState(seed)

    @torch.no_grad()
    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.network is None:
            return (self.rng.random_sample(masks.shape) * masks).argmax(axis=1)
        obs, mask = torch.as_tensor(observations), torch.as_tensor(masks)
        return self.network.act(obs, mask)[0].numpy()


def make_envs(config: PPOVectorConfig, snapshot: SnapshotOpponent) -> BatchedVectorEnv:
    """The vector env; its ``snapshot`` opponents are played by ``snapshot``."""
    kinds = config.opponent.split(",")
    entries = [snapshot if kind == "snapshot" else kind for kind in kinds]
    opponent = entries[0] if len(entries) == 1 else entries  # a list: drawn per seat
    return make_vector_env(
        config.game,
        config.num_envs,
        config.num_players,
        opponent=opponent,
        learner_seat=None,
        reward_mode=config.reward_mode,
        seed=config.seed,
    )


# ---------------------------------------------------------------- agent
class ActorCritic(nn.Module):
    """An MLP over the flattened planes with a masked policy head and a value head."""

    def __init__(self, inputs: int, actions: int, hidden: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Flatten(), nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.actor = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The value head's estimates."""
        return self.critic(self.trunk(obs)).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the entropy, the value); draws the action if None."""
        hidden = self.trunk(obs)
        logits = torch.where(mask, self.actor(hidden), torch.tensor(-1e9))
        checkpoint.check_finite("a PPO step", logits)  # in place of torch's own check of them
        dist = Categorical(logits=logits, validate_args=False)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(-1)


def save_weights(agent: ActorCritic, path: str) -> None:
    """Write the tensors of ``agent`` (a failed or killed save keeps the old file)."""
    checkpoint.save_tensors(agent.state_dict(), path)


def load_weights(agent: ActorCritic, path: str) -> None:
    """Load :func:`save_weights` weights into ``agent`` (tensors only); weights of another
    game, player count or hidden size are a :class:`ModelFileError` and load nothing."""
    weights = read_ppo_vector_weights(path)
    expected = agent.state_dict()
    if any(weights[name].shape != expected[name].shape for name in expected):
        raise ModelFileError(
            f"{path}: these weights do not fit this game, player count and hidden size"
        )
    agent.load_state_dict(weights)


class ArenaPlayer:
    """The trained policy as an arena agent: its most probable legal action (``argmax``), or
    an action drawn from its masked policy with the player's own generator (``sample``)."""

    def __init__(
        self, agent: ActorCritic, name: str, policy: str = "argmax", seed: int = 0
    ) -> None:
        self.agent, self.name, self.policy = agent, name, policy
        self.rng = np.random.default_rng(seed)

    @torch.no_grad()
    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: object = None) -> int:
        """The action for one observation of the arena."""
        obs = torch.as_tensor(np.asarray(observation, np.float32))[None]
        legal = np.flatnonzero(np.asarray(action_mask, bool))
        logits = self.agent.actor(self.agent.trunk(obs))[0].numpy()[legal]
        return legal_action(logits, legal, None if self.policy == "argmax" else self.rng)


def evaluate(agent: ActorCritic, config: PPOVectorConfig) -> list[PairingStats]:
    """The arena's games of ``agent`` from every seat against ``config.eval_opponents``."""
    player = ArenaPlayer(agent.eval(), "ppo_vector", config.eval_policy, config.seed + 1)
    return evaluate_agent(
        player,
        config.game,
        config.num_players,
        config.eval_opponents,
        config.eval_games,
        seed=config.seed + 1,
    )


# ---------------------------------------------------------------- loop
@dataclass
class Rollout:
    """The rollout storage and what carries over from one rollout to the next."""

    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor
    next_obs: torch.Tensor
    next_mask: torch.Tensor
    next_done: torch.Tensor
    global_step: int = 0
    finished: int = 0
    returns: list[float] = field(default_factory=list)
    cut: list[bool] = field(default_factory=list)  # per finished game: ended by truncation
    CARRIED = ("next_obs", "next_mask", "next_done", "global_step", "finished", "returns", "cut")

    @classmethod
    def start(cls, envs: BatchedVectorEnv, config: PPOVectorConfig) -> Rollout:
        """Empty storage and the first observations of ``envs`` (reset with the seed)."""
        n, s = config.num_envs, config.num_steps
        obs_shape = envs.single_observation_space.shape
        obs = torch.zeros((s, n, *obs_shape))
        masks = torch.zeros((s, n, int(envs.single_action_space.n)), dtype=torch.bool)
        actions = torch.zeros((s, n), dtype=torch.long)
        storage = [torch.zeros((s, n)) for _ in range(4)]  # logprobs, rewards, dones, values
        next_obs, infos = envs.reset(seed=config.seed)
        next_mask = torch.as_tensor(infos["action_mask"])
        return cls(
            obs, masks, actions, *storage, torch.as_tensor(next_obs), next_mask, torch.zeros(n)
        )

    def collect(self, agent: ActorCritic, envs: BatchedVectorEnv, reward_scale: float) -> None:
        """Fill the storage with ``num_steps`` steps of every game."""
        for step in range(self.obs.shape[0]):
            self.global_step += envs.num_envs
            self.obs[step], self.masks[step] = self.next_obs, self.next_mask
            self.dones[step] = self.next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(self.next_obs, self.next_mask)
            self.actions[step], self.logprobs[step], self.values[step] = action, logprob, value
            next_obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            ended = terminated | truncated
            reward = reward / reward_scale
            self.rewards[step] = torch.as_tensor(reward)
            self.next_obs = torch.as_tensor(next_obs)
            self.next_mask = torch.as_tensor(infos["action_mask"])
            self.next_done = torch.as_tensor(ended, dtype=torch.float32)
            self.finished += int(ended.sum())
            self.returns.extend(reward[ended].tolist())
            self.cut.extend(truncated[ended].tolist())

    @torch.no_grad()
    def advantages(self, agent: ActorCritic, config: PPOVectorConfig) -> torch.Tensor:
        """Generalized advantage estimation over the storage."""
        next_value = agent.value(self.next_obs)
        advantages = torch.zeros_like(self.rewards)
        last = torch.zeros(config.num_envs)
        s = config.num_steps
        for t in reversed(range(s)):
            not_done = 1.0 - (self.next_done if t == s - 1 else self.dones[t + 1])
            following = next_value if t == s - 1 else self.values[t + 1]
            delta = self.rewards[t] + config.gamma * following * not_done - self.values[t]
            last = delta + config.gamma * config.gae_lambda * not_done * last
            advantages[t] = last
        return advantages


def update(agent: ActorCritic, optimizer: Any, rollout: Rollout, config: PPOVectorConfig) -> None:
    """Optimize the clipped objective over the rollout, ``update_epochs`` times."""
    advantages = rollout.advantages(agent, config)
    targets = advantages + rollout.values
    batch_size = config.num_envs * config.num_steps
    minibatch_size = batch_size // config.num_minibatches
    b_obs = rollout.obs.reshape(batch_size, *rollout.obs.shape[2:])
    b_masks = rollout.masks.reshape(batch_size, -1)
    b_actions, b_logprobs = rollout.actions.reshape(-1), rollout.logprobs.reshape(-1)
    b_advantages, b_targets = advantages.reshape(-1), targets.reshape(-1)
    for _epoch in range(config.update_epochs):
        order = torch.randperm(batch_size)
        for start in range(0, batch_size, minibatch_size):
            mb = order[start : start + minibatch_size]
            _, new_logprob, entropy, new_value = agent.act(b_obs[mb], b_masks[mb], b_actions[mb])
            ratio = (new_logprob - b_logprobs[mb]).exp()
            adv = b_advantages[mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef)
            policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
            value_loss = 0.5 * ((new_value - b_targets[mb]) ** 2).mean()
            loss = policy_loss - config.ent_coef * entropy.mean() + config.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
            checkpoint.check_finite("a PPO update", loss)  # the next act checks the logits
    checkpoint.check_finite("a PPO update", *agent.parameters())  # before any save


def train(
    config: PPOVectorConfig, log: Callable[[str], Any] = print, resume: dict | None = None
) -> ActorCritic:
    """Train as configured (from ``config.load``, saving to ``config.save`` and checkpoints
    beside it, if set; from a checkpoint's state ``resume``); ``log`` gets progress lines."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    snapshot = SnapshotOpponent(config.seed)
    envs = make_envs(config, snapshot)
    obs_shape = envs.single_observation_space.shape
    agent = ActorCritic(int(np.prod(obs_shape)), int(envs.single_action_space.n), config.hidden)
    if config.load is not None:
        load_weights(agent, config.load)
    # fused: the same digits on Intel and AMD (reproducible.ADAM)
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.learning_rate, eps=1e-5, fused=True)
    rollout = Rollout.start(envs, config)
    batch_size = config.num_envs * config.num_steps
    num_updates = max(1, config.total_timesteps // batch_size) if config.total_timesteps else 0
    checkpoints = checkpoint.Checkpoints(
        config.save, "ppo-vector", config.checkpoint_every, bool(resume)
    )
    start, spent, parts = 0, (0.0, 0.0), {"agent": agent, "optimizer": optimizer}
    if resume is not None:  # a checkpoint's state: go on as if never stopped
        resume = checkpoint.restore(resume, parts)
        if resume["snapshot"] is not None:
            snapshot.network = copy.deepcopy(agent)
            snapshot.network.load_state_dict(resume["snapshot"])
        # a checkpoint written before the opponent had a generator of its own: NumPy's global
        snapshot.rng.set_state(resume.get("snapshot_rng", np.random.get_state()))
        envs.set_state(resume["envs"])
        for name, value in resume["rollout"].items():
            setattr(rollout, name, value)
        start, spent = resume["update"], resume["spent"]  # updates done, CPU and wall seconds
        log(f"resumed after update {start} ({rollout.global_step} steps)")
    cpu_start, wall_start = time.process_time() - spent[0], time.perf_counter() - spent[1]
    log(
        f"{config.game} ({config.num_players} players) vs {config.opponent}: {num_updates} "
        f"updates of {batch_size} steps"
    )
    for number in range(start + 1, num_updates + 1):
        if checkpoints.due():  # the state before this update
            spent = (time.process_time() - cpu_start, time.perf_counter() - wall_start)
            rollout.returns, rollout.cut = rollout.returns[-1000:], rollout.cut[-1000:]  # logged
            carried = {name: getattr(rollout, name) for name in Rollout.CARRIED}
            state = checkpoint.capture(
                parts,
                rollout=carried,
                snapshot=snapshot.network and snapshot.network.state_dict(),
                snapshot_rng=snapshot.rng.get_state(),
                envs=envs.get_state(),
                update=number - 1,
                spent=spent,
            )
            checkpoints.save(asdict(config), state)
        if config.anneal_lr:
            fraction = 1 - (number - 1) / num_updates
            optimizer.param_groups[0]["lr"] = config.learning_rate * fraction
        rollout.collect(agent, envs, config.reward_scale)
        update(agent, optimizer, rollout, config)
        if "snapshot" in config.opponent.split(",") and number % config.snapshot_every == 0:
            snapshot.network = copy.deepcopy(agent)
        cpu = time.process_time() - cpu_start
        if number % config.log_every == 0 or number == num_updates:
            log(progress_line(number, rollout, time.perf_counter() - wall_start, cpu))
        if config.cpu_budget is not None and cpu >= config.cpu_budget:
            log(f"CPU budget of {config.cpu_budget:g} s reached after {rollout.global_step} steps")
            break
    cpu = time.process_time() - cpu_start
    rate = rollout.global_step / max(cpu, 1e-9)
    log(f"trained {rollout.global_step} steps in {cpu:.1f} CPU-s ({rate:.0f} steps/CPU-s)")
    if config.save is not None:
        save_weights(agent, config.save)
        checkpoints.remove()
        log(f"saved {config.save}")
    return agent


def progress_line(number: int, rollout: Rollout, wall: float, cpu: float) -> str:
    """The log line of update ``number``: steps, games, recent rewards and speed."""
    recent = rollout.returns[-1000:]
    mean = float(np.mean(recent)) if recent else float("nan")
    truncated_share = float(np.mean(rollout.cut[-1000:])) if rollout.cut else float("nan")
    steps = rollout.global_step
    return (
        f"update {number:5d}  steps {steps:9d}  games {rollout.finished:7d}  "
        f"mean reward (last 1000) {mean:+.3f}  truncated {truncated_share:.2f}  "
        f"steps/s {steps / wall:8.0f}  steps/CPU-s {steps / cpu:8.0f}"
    )
