"""Tianshou 2.x: masked double DQN learns Mole Hill against a random opponent.

    gymnasium.make("tabletop_zoo/MoleHill-v0")   one seat (random each game) against random
      -> MaskedScoreShaping (below)              obs {"obs", "mask"}, as Tianshou reads masks
      -> DummyVectorEnv, Collector, replay buffer   8 envs
      -> DQN(DiscreteQLearningPolicy(Net))       double DQN, 3-step returns, masked target

Why Tianshou's DQN did not learn before (0.44 -> 0.59 in seat 0 only, as Tianshou's
tic-tac-toe example sets it up with ``PettingZooEnv`` and ``MultiAgentOffPolicyAlgorithm``),
and what changed:

* Turn-based bookkeeping. The multi-agent route keeps both seats' steps interleaved in one
  replay buffer, so the n-step return of a learner's step ran across the opponent's steps:
  it bootstrapped from the opponent's observation and mask, valued by the learner's own
  network with no change of sign (and at the round change one player moves twice). The
  single-agent env plays the opponent inside its step, so every transition is the
  learner's own; Tianshou reads the mask from ``obs["mask"]`` when acting *and* in the
  target's argmax.
* Reward timing. gamma 0.9 per turn of either player over about 80 turns, with the result
  only at the end, shrank the first round's targets to 0.015-0.0002. Now gamma 0.99 per
  learner step, 3-step returns, and each step's reward shaped by 0.2 x the change of the
  learner's score margin (``info["scores"]``; over a game it sums to 0.2 x the final
  margin, so the reward says by how much a game went, not only whether it was won).
* Exploration. A fixed epsilon of 0.1 without a random warm-up; now 1 -> 0.05 over the
  first 40% of the steps, after 1,024 random legal moves (epsilon 1: the collector's
  ``random=True`` samples the action space, masks ignored, from an unseeded generator).
  The learner plays both seats.
* Speed. Tianshou 2.0.1's trainer scans the whole replay buffer for NaN after every
  collection (``buffer.hasnull()``, whatever its validation switch says): about a third of
  the CPU; it is switched off for this buffer.

    python docs/tutorials/tianshou_dqn.py      # --steps 80000 --seed 0; --help
    tabletop-zoo rate --game mole_hill --agent py:docs/tutorials/tianshou_dqn.py:policy

Results with their intervals and CPU-seconds: docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import gymnasium
import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step

import tabletop_zoo  # noqa: F401  (registers tabletop_zoo/MoleHill-v0)
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation import outside
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report

HERE = Path(__file__).resolve()
MODEL = "runs/tutorials/tianshou_dqn/model.pt"
N_ENVS, SHAPING, HIDDEN = 8, 0.2, [128, 128]


class MaskedScoreShaping(gymnasium.Wrapper):
    """Observations as Tianshou reads masks (``{"obs", "mask"}``), and each step's reward
    plus SHAPING x the change of the learner's score margin."""

    def __init__(self, env):
        super().__init__(env)
        mask = gymnasium.spaces.MultiBinary(int(env.action_space.n))
        self.observation_space = gymnasium.spaces.Dict({"obs": env.observation_space, "mask": mask})

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.margin = margin(info)
        return self.with_mask(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        reward += SHAPING * (margin(info) - self.margin)
        self.margin = margin(info)
        return self.with_mask(obs), reward, terminated, truncated, info

    def with_mask(self, obs):
        return {"obs": obs, "mask": self.env.unwrapped.action_masks()}


def margin(info):
    """The learner's score minus its opponent's."""
    scores, seat = info["scores"], info["learner_seat"]
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def make_env():
    return MaskedScoreShaping(gymnasium.make("tabletop_zoo/MoleHill-v0"))


def q_policy():
    net = Net(state_shape=(7, 9, 16), action_shape=173, hidden_sizes=HIDDEN)
    space = gymnasium.spaces.Discrete(173)
    return DiscreteQLearningPolicy(model=net, action_space=space, eps_training=1.0)


def greedy(q):
    """``policy(observation, action_mask)`` for our AEC env's planes."""

    def act(observation, action_mask):
        batch = Batch(obs=Batch(obs=observation[None], mask=action_mask[None] == 1), info={})
        with torch.no_grad():
            return int(q(batch).act[0])

    return act


def policy(path: str | None = None):
    """The trained policy, for the ``py:`` agent spec (``$TUTORIAL_MODEL`` or MODEL)."""
    q = q_policy()
    q.model.load_state_dict(torch.load(path or os.environ.get("TUTORIAL_MODEL", MODEL)))
    return greedy(q.eval())


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
    logging.getLogger("tianshou").setLevel(logging.WARNING)
    np.random.seed(args.seed)  # Tianshou's exploration and buffer sampling use NumPy's
    torch.manual_seed(args.seed)

    q = q_policy()
    algorithm = DQN(
        policy=q,
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.99,
        n_step_return_horizon=3,
        target_update_freq=250,
    )
    train_envs = DummyVectorEnv([make_env] * N_ENVS)
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(50_000, N_ENVS)
    buffer.hasnull = lambda: False  # see the docstring: speed only
    collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)

    def epsilon(epoch, env_step):
        q.set_eps_training(max(0.05, 1.0 - env_step / (0.4 * args.steps)))

    evaluation = {"games": args.eval_games, "seed": args.seed}
    q.eval()
    chance, before = outside.chance_level(**evaluation), outside.win_rate(greedy(q), **evaluation)
    with outside.CpuShare() as training:
        collector.reset()
        with policy_within_training_step(q):  # 1,024 random legal moves (epsilon 1) first;
            collector.collect(n_step=1024)  # random=True would ignore the masks
        algorithm.run_training(
            OffPolicyTrainerParams(
                training_collector=collector,
                max_epochs=10,
                epoch_num_steps=max(1, args.steps // 10),
                collection_step_num_env_steps=N_ENVS,
                update_step_num_gradient_steps_per_sample=0.125,
                batch_size=128,
                training_fn=epsilon,
                verbose=False,
                show_progress=False,
            )
        )
    q.eval()
    after = outside.win_rate(greedy(q), **evaluation)
    against_greedy = outside.win_rate(greedy(q), opponent="greedy", **evaluation)

    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(q.model.state_dict(), args.out / "model.pt")
    rates = {"chance": chance, "before": before, "after": after, "greedy": against_greedy}
    result = report(
        HERE,
        ["tianshou"],
        training,
        rates,
        library="Tianshou",
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
