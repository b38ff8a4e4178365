"""Tianshou 2.x: masked DQN on Mole Hill against a random opponent, the way Tianshou's own
tic-tac-toe example does it (test/pettingzoo/tic_tac_toe.py in Tianshou's repository).

    tianshou.env.PettingZooEnv(mole_hill_v0.env())   obs -> {"agent_id", "obs", "mask"}
    DQN(DiscreteQLearningPolicy(Net))                the learner, Q-values masked by "mask"
    MARLRandomDiscreteMaskedOffPolicyAlgorithm       the uniformly random opponent
    MultiAgentOffPolicyAlgorithm([...], env)         Tianshou 2's replacement of 1.x's
                                                     MultiAgentPolicyManager

No glue: `PettingZooEnv` reads our {"observation", "action_mask"} dict as it is. The learner
plays one seat (`--seat`) against random, as in Tianshou's example; the rewards are vectors
(one entry per agent) and each algorithm reads its own column.

Measured (2-core machine shared with other jobs, 2026-11-29; the learner's win rate, greedy,
against random in its seat, 200 games through Tianshou's Collector):
    python docs/tutorials/tianshou_dqn.py --steps 60000 --seed 0
    before 0.44, after 0.51 (611 CPU-s, about 50 env steps per CPU-second with its
    evaluation): little learned in about 10 CPU-minutes, twice the budget we aimed at
"""

import argparse
import logging
import time

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from tabletop_zoo.envs import mole_hill_v0

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=60_000, help="env steps (the budget)")
parser.add_argument("--eval-games", type=int, default=200)
parser.add_argument("--seat", type=int, default=0, choices=[0, 1])
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # "only 1D sequences": MARL
torch.set_num_threads(1)
np.random.seed(args.seed)
torch.manual_seed(args.seed)


def get_env():
    return PettingZooEnv(mole_hill_v0.env())


env = get_env()
net = Net(
    state_shape=env.observation_space["observation"].shape,
    action_shape=env.action_space.n,
    hidden_sizes=[256, 256],
)
policy = DiscreteQLearningPolicy(
    model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
)
learner = DQN(
    policy=policy,
    optim=AdamOptimizerFactory(lr=1e-4),
    n_step_return_horizon=3,
    gamma=0.9,
    target_update_freq=320,
)
opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
agents = [learner, opponent] if args.seat == 0 else [opponent, learner]
marl = MultiAgentOffPolicyAlgorithm(algorithms=agents, env=env)

train_envs = DummyVectorEnv([get_env for _ in range(8)])
test_envs = DummyVectorEnv([get_env for _ in range(4)])
train_envs.seed(args.seed)
test_envs.seed(10_000 + args.seed)
train_collector = Collector[CollectStats](
    marl, train_envs, VectorReplayBuffer(20_000, len(train_envs)), exploration_noise=True
)
test_collector = Collector[CollectStats](marl, test_envs, exploration_noise=False)


def win_rate(games):
    stats = test_collector.collect(n_episode=games, reset_before_collect=True)
    return float(np.mean(stats.returns[:, args.seat] > 0))


start = time.process_time()
before = win_rate(args.eval_games)
train_collector.reset()
train_collector.collect(n_step=64 * len(train_envs))
epochs = 5
marl.run_training(
    OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=None,
        max_epochs=epochs,
        epoch_num_steps=max(1, args.steps // epochs),
        collection_step_num_env_steps=10,
        update_step_num_gradient_steps_per_sample=0.1,
        batch_size=64,
        multi_agent_return_reduction=lambda rews: rews[:, args.seat],
        verbose=False,
        show_progress=False,
    )
)
after = win_rate(args.eval_games)
print(
    f"win rate against random: before {before:.2f}, after {after:.2f} "
    f"(seat {args.seat}, {args.steps} env steps, seed {args.seed}, "
    f"{time.process_time() - start:.0f} CPU-s)"
)
