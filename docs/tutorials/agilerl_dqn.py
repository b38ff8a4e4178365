"""AgileRL: masked double DQN learns Mole Hill against a random opponent.

    gymnasium.make("tabletop_zoo/MoleHill-v0")   one seat (random each game) against random
      -> ScoreShapingWithMask (below)            flat planes; info["action_mask"]; shaping
      -> gymnasium SyncVectorEnv, 8 envs         autoreset in the same step
      -> agilerl DQN with a masked target        3-step returns, epsilon-greedy over legal moves

Why AgileRL's DQN did not learn before (0.58 -> 0.32 against random after 600 self-play
games), and what changed:

* The target's argmax ran over all 173 actions. AgileRL's ``DQN.learn`` takes no mask for
  the next position, so the double-DQN target picked never-trained illegal actions. A small
  subclass, ``MaskedDQN``, masks it (the next masks are stored with the transitions).
* The learner played itself, never the random player it is measured against, and its
  reward came only at the end, 1-step. It now plays the single-agent env against a random
  opponent (the opponent's moves are inside the env's step, so every transition is the
  learner's own), with 3-step returns and each step's reward shaped by 0.2 x the change
  of its score margin (``info["scores"]``; over a game the shaping sums to 0.2 x the
  final margin, a few points, so the reward says by how much a game went, not only
  whether it was won). With 0.05 instead (and a step of 64 transitions per 4 env steps),
  120,000 steps reached 0.81 [0.74, 0.85] in 305 CPU-s.
* 8 envs, epsilon from 1 to 0.05 over the first 40% of the steps, a gradient step of 128
  transitions per 8 env steps, and a smaller network than AgileRL's default.
* AgileRL's ``MultiStepReplayBuffer`` (2.58.0) would add the next game's rewards to a
  game's last transition and clear its done flag; the few lines of ``store`` build the
  n-step transitions per env instead. And gymnasium's default autoreset makes the step
  after a game's end a no-op that crosses games: the envs reset in the same step.

AgileRL reads masks from ``info["action_mask"]`` (as its ``DQN.test`` does) and flat
vectors with an MLP; it guesses an image's layout from a 3-D shape, so the planes are
flattened here (``observation_layout="chw"`` is the env's option for its CNNs).

    python docs/tutorials/agilerl_dqn.py      # --steps 80000 --seed 0; --help
    tabletop-zoo rate --game mole_hill --agent py:docs/tutorials/agilerl_dqn.py:policy

Results with their intervals and CPU-seconds: docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import gymnasium
import numpy as np
import torch
from agilerl.algorithms import DQN
from agilerl.components import ReplayBuffer
from tensordict import TensorDict

import tabletop_zoo  # noqa: F401  (registers tabletop_zoo/MoleHill-v0)
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation import outside
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report

HERE = Path(__file__).resolve()
MODEL = "runs/tutorials/agilerl_dqn/model.pt"
N_ENVS, N_STEP, GAMMA, SHAPING = 8, 3, 0.99, 0.2
NET = {
    "encoder_config": {"hidden_size": [128]},
    "latent_dim": 128,
    "head_config": {"hidden_size": [128]},
}


class ScoreShapingWithMask(gymnasium.Wrapper):
    """Flat planes, the mask in ``info["action_mask"]``, and each step's reward plus SHAPING
    x the change of the learner's score margin."""

    def __init__(self, env):
        super().__init__(env)
        size = int(np.prod(env.observation_space.shape))
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.margin = margin(info)
        return obs.ravel(), self.with_mask(info)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        reward += SHAPING * (margin(info) - self.margin)
        self.margin = margin(info)
        return obs.ravel(), reward, terminated, truncated, self.with_mask(info)

    def with_mask(self, info):
        return {**info, "action_mask": self.env.unwrapped.action_masks().astype(np.int8)}


def margin(info):
    """The learner's score minus its opponent's."""
    scores, seat = info["scores"], info["learner_seat"]
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


class MaskedDQN(DQN):
    """AgileRL's double DQN with the target's argmax over the next position's legal moves."""

    def learn(self, experiences):
        obs, next_obs = experiences["obs"], experiences["next_obs"]
        action = experiences["action"].long().view(-1, 1)
        reward, done = experiences["reward"].view(-1, 1), experiences["done"].view(-1, 1)
        with torch.no_grad():
            illegal = experiences["next_mask"] == 0
            best = self.actor(next_obs).masked_fill(illegal, -torch.inf).argmax(1, keepdim=True)
            next_q = self.actor_target(next_obs).gather(1, best)
            target = reward + self.gamma**N_STEP * next_q * (1 - done)
        loss = self.criterion(self.actor(obs).gather(1, action), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.soft_update()
        return loss.item()


def make_agent():
    flat = gymnasium.spaces.Box(0.0, 1.0, (7 * 9 * 16,), np.float32)
    return MaskedDQN(
        flat,
        gymnasium.spaces.Discrete(173),
        net_config=NET,
        batch_size=128,
        lr=1e-3,
        gamma=GAMMA,
        tau=0.005,
        normalize_images=False,
    )


def greedy(agent):
    """``policy(observation, action_mask)`` for our AEC env's planes."""

    def act(observation, action_mask):
        planes = np.asarray(observation, np.float32).reshape(1, -1)
        return int(agent.get_action(planes, epsilon=0.0, action_mask=action_mask[None])[0])

    return act


def policy(path: str | None = None):
    """The trained policy, for the ``py:`` agent spec (``$TUTORIAL_MODEL`` or MODEL)."""
    agent = make_agent()
    agent.actor.load_state_dict(torch.load(path or os.environ.get("TUTORIAL_MODEL", MODEL)))
    return greedy(agent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=80_000, help="learner steps (the budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(MODEL).parent)
    parser.add_argument("--rate", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--rate-against", metavar="SPEC", help="rate against SPEC, not the ladder")
    reproducible.add_flag(parser)
    args = parser.parse_args()
    limit_threads(1)
    torch.manual_seed(args.seed)

    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: ScoreShapingWithMask(gymnasium.make("tabletop_zoo/MoleHill-v0"))] * N_ENVS,
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
    )
    agent = make_agent()
    memory = ReplayBuffer(max_size=100_000)
    recent = [deque() for _ in range(N_ENVS)]  # per env: its last (obs, action, reward)

    def store(i, next_obs, next_mask, done):
        """Env i's n-step transition from its oldest step (all of them when a game ends)."""
        while recent[i] and (done or len(recent[i]) == N_STEP):
            ret = sum(GAMMA**k * r for k, (_, _, r) in enumerate(recent[i]))
            obs, action, _ = recent[i].popleft()
            transition = {"obs": obs, "action": action, "reward": np.float32(ret)}
            transition |= {"next_obs": next_obs, "next_mask": next_mask, "done": np.float32(done)}
            transition = {key: torch.as_tensor(value)[None] for key, value in transition.items()}
            memory.add(TensorDict(transition, batch_size=[1]))

    evaluation = {"games": args.eval_games, "seed": args.seed}
    chance, before = (
        outside.chance_level(**evaluation),
        outside.win_rate(greedy(agent), **evaluation),
    )
    with outside.CpuShare() as training:
        obs, info = envs.reset(seed=args.seed)
        updates_due = 0.0
        for step in range(0, args.steps, N_ENVS):
            epsilon = max(0.05, 1.0 - step / (0.4 * args.steps))
            action = agent.get_action(obs, epsilon, action_mask=info["action_mask"])
            next_obs, reward, terminated, truncated, info = envs.step(action)
            for i in range(N_ENVS):  # in SAME_STEP mode a finished game's next_obs is unused
                recent[i].append((obs[i], int(action[i]), float(reward[i])))
                store(i, next_obs[i], info["action_mask"][i], terminated[i] or truncated[i])
            obs = next_obs
            updates_due += N_ENVS / 8  # a gradient step per 8 env steps
            while updates_due >= 1 and len(memory) >= 1_000:
                agent.learn(memory.sample(agent.batch_size))
                updates_due -= 1
    after = outside.win_rate(greedy(agent), **evaluation)
    against_greedy = outside.win_rate(greedy(agent), opponent="greedy", **evaluation)

    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(agent.actor.state_dict(), args.out / "model.pt")
    rates = {"chance": chance, "before": before, "after": after, "greedy": against_greedy}
    result = report(
        HERE,
        ["agilerl"],
        training,
        rates,
        library="AgileRL",
        algorithm="masked double DQN, 3-step, score shaping; against random",
        game="mole_hill",
        num_players=2,
        seed=args.seed,
        budget={"env_steps": args.steps},
        model=args.out / "model.pt",
    )
    if args.rate:  # on the shipped ladder, through the py: agent spec
        rate_on_ladder(HERE, result, args.rate_against)


if __name__ == "__main__":
    main()
