"""AgileRL: DQN learning Mole Hill by self-play, with a turn loop for any turn order.

    mole_hill_v0.env(observation_layout="chw")   planes channels first, as AgileRL's CNNs want
    agilerl.algorithms.DQN                       get_action(obs, epsilon, action_mask)
    agilerl.components.ReplayBuffer              transitions as TensorDicts

The turn loop follows AgileRL's PettingZoo self-play tutorial (one agent, an
`env.agent_iter()` loop, a replay buffer), made general: each agent's transition is closed
when that agent is to move again (or its game is over), with the reward PettingZoo gathered
for it meanwhile. So it is right for games where a player moves several times in a row (an
Arktia turn is several decisions) or a seat is skipped, not only for strict alternation.

Two silent traps, both avoided here: AgileRL guesses an image's layout from its shape (the
smallest axis last = channels last), which reads our default `(rows, cols, planes)` as
channels first with rows as channels: use `observation_layout="chw"`. And it divides image
inputs by 255 unless `normalize_images=False`; our planes are already in [0, 1].

Measured (2-core machine shared with other jobs, 2026-11-29; win rate, greedy, against
uniform random, 200 games, seats alternating):
    python docs/tutorials/agilerl_dqn.py --games 600 --seed 0
    before 0.58, after 0.41 (397 CPU-s, about 1.5 self-play games per CPU-second): with
    these settings AgileRL's DQN does NOT learn to beat random in a 5-CPU-minute budget
    (an untrained network's greedy play happened to do better than the trained one)
"""

import argparse
import time

import numpy as np
import torch
from agilerl.algorithms import DQN
from agilerl.components import ReplayBuffer
from agilerl.components.data import Transition, transition_to_tensordict

from tabletop_zoo.envs import mole_hill_v0

parser = argparse.ArgumentParser()
parser.add_argument("--games", type=int, default=600, help="self-play games (the budget)")
parser.add_argument("--eval-games", type=int, default=200)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)
rng = np.random.default_rng(args.seed)

env = mole_hill_v0.env(observation_layout="chw")
agent = DQN(
    env.observation_space("player_0")["observation"],
    env.action_space("player_0"),
    batch_size=64,
    lr=1e-3,
    learn_step=4,
    gamma=0.99,
    tau=0.01,
    normalize_images=False,
)
memory = ReplayBuffer(max_size=50_000)


def store(obs, action, reward, next_obs, done):
    transition = Transition(
        obs=obs[None],
        action=np.array([action]),
        reward=np.array([reward], dtype=np.float32),
        next_obs=next_obs[None],
        done=np.array([done], dtype=np.float32),
    )
    transition.batch_size = torch.Size([1])
    memory.add(transition_to_tensordict(transition))


def choose(obs, epsilon):
    mask = obs["action_mask"][None]
    return int(agent.get_action(obs["observation"][None], epsilon, action_mask=mask)[0])


def self_play_game(seed, epsilon):
    """Both seats are the learner; works for any turn order (see the docstring)."""
    env.reset(seed=seed)
    pending = {}  # agent -> (observation, action) waiting for its outcome
    decisions = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if name in pending:
            before, action = pending.pop(name)
            store(before, action, reward, obs["observation"], term)
        if term or trunc:
            env.step(None)
            continue
        action = choose(obs, epsilon)
        pending[name] = (obs["observation"], action)
        env.step(action)
        decisions += 1
        if decisions % agent.learn_step == 0 and len(memory) >= agent.batch_size:
            agent.learn(memory.sample(agent.batch_size))


def win_rate(games):
    wins = 0
    for g in range(games):
        learner = f"player_{g % 2}"
        env.reset(seed=10_000 + g)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                wins += name == learner and reward > 0
                env.step(None)
            elif name == learner:
                env.step(choose(obs, 0.0))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return wins / games


start = time.process_time()
before = win_rate(args.eval_games)
for game in range(args.games):
    self_play_game(seed=game, epsilon=max(0.05, 1.0 - game / (0.7 * args.games)))
after = win_rate(args.eval_games)
print(
    f"win rate against random: before {before:.2f}, after {after:.2f} "
    f"({args.games} self-play games, seed {args.seed}, {time.process_time() - start:.0f} CPU-s)"
)
