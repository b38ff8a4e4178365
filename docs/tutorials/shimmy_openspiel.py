"""Shimmy's OpenSpiel route: our OpenSpiel game, seen by PettingZoo through Shimmy.

    pyspiel game "python_mole_hill" (tabletop_zoo.wrappers.openspiel)
      -> shimmy.OpenSpielCompatibilityV0 (a PettingZoo AEC env; masks in info["action_mask"])
      -> a masked REINFORCE policy (PyTorch, about 30 lines) learning by self-play

Reward caveat: Shimmy 2.0.1 adds a finished game's rewards once more for every agent still
to step out, so the rewards it hands player k at the end add up to (k + 1) times the
engine's return (checked below on every game). Read the final result from the engine,
`env.game_state.returns()`, as this script does. Second trap: give Shimmy `game_name=` and
`config=`; with `env=pyspiel_game` its `reset()` reloads the game by name with default
parameters (a 3-player Arktia game then fails in that `reset()`: the reloaded game has 2).

Measured (2-core machine shared with other jobs, 2026-11-29; win rate of the learner,
greedy over its masked policy, against uniform random, 200 games, seats alternating):
    python docs/tutorials/shimmy_openspiel.py --games 1500 --seed 0
    before 0.39, after 0.99 (493 CPU-s: about 8 CPU-minutes, over the 5 we aimed at; Shimmy
    computes every player's observation tensor at every step)
"""

import argparse
import time

import numpy as np
import pyspiel  # noqa: F401
import torch
from shimmy import OpenSpielCompatibilityV0

import tabletop_zoo.wrappers.openspiel  # noqa: F401  (registers python_<game> in pyspiel)

parser = argparse.ArgumentParser()
parser.add_argument("--games", type=int, default=1500, help="self-play games (the budget)")
parser.add_argument("--eval-games", type=int, default=200)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)
rng = np.random.default_rng(args.seed)

env = OpenSpielCompatibilityV0(game_name="python_mole_hill")
obs_size = int(np.prod(env.observation_space("player_0").shape))
net = torch.nn.Sequential(
    torch.nn.Linear(obs_size, 128),
    torch.nn.ReLU(),
    torch.nn.Linear(128, env.action_space("player_0").n),
)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)


def masked_logits(obs, mask):
    logits = net(torch.as_tensor(obs, dtype=torch.float32).flatten())
    return logits.masked_fill(torch.as_tensor(mask) == 0, -1e9)


def play(learners, seed, greedy=False):
    """One game; seats in `learners` use the policy, the others play uniformly at random.
    Returns the engine's returns and, per seat, the log-probabilities of its moves."""
    env.reset(seed=seed)
    log_probs = {a: [] for a in env.possible_agents}
    shimmy_sum = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        shimmy_sum[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = info["action_mask"]
        if agent in learners:
            dist = torch.distributions.Categorical(logits=masked_logits(obs, mask))
            action = dist.probs.argmax() if greedy else dist.sample()
            log_probs[agent].append(dist.log_prob(action))
            action = int(action)
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    returns = env.game_state.returns()  # the workaround: the engine's result
    for k, agent in enumerate(env.possible_agents):  # the caveat, as measured
        assert shimmy_sum[agent] == (k + 1) * returns[k]
    return returns, log_probs


def win_rate(games):
    wins = 0
    with torch.no_grad():
        for g in range(games):
            seat = g % 2
            returns, _ = play({f"player_{seat}"}, seed=10_000 + g, greedy=True)
            wins += returns[seat] > 0
    return wins / games


start = time.process_time()
before = win_rate(args.eval_games)
batch = []
for game in range(args.games):
    returns, log_probs = play(set(env.possible_agents), seed=game)  # self-play: both seats
    for k, agent in enumerate(env.possible_agents):
        batch += [(lp, returns[k]) for lp in log_probs[agent]]
    if (game + 1) % 8 == 0:
        rewards = torch.tensor([r for _, r in batch])
        loss = -(torch.stack([lp for lp, _ in batch]) * (rewards - rewards.mean())).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch = []
after = win_rate(args.eval_games)
print(
    f"win rate against random: before {before:.2f}, after {after:.2f} "
    f"({args.games} self-play games, seed {args.seed}, {time.process_time() - start:.0f} CPU-s)"
)
