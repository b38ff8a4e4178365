"""Shimmy's OpenSpiel route: masked REINFORCE learns Mole Hill by self-play.

    pyspiel game "python_mole_hill"          (tabletop_zoo.wrappers.openspiel registers it)
      -> shimmy.OpenSpielCompatibilityV0     a PettingZoo AEC env; masks in info["action_mask"]
      -> a masked REINFORCE policy           PyTorch, both seats, one network

What it took. The algorithm learned from the start; its cost was the problem: torch ran
every one-position forward pass on as many threads as the machine has, which on a 2-core
machine shared with other jobs burned about 9.5 times the CPU for the same result. One
thread (``limit_threads(1)`` below) brings the documented budget to about 1.5 CPU-minutes.
Shimmy itself costs about 4x our AEC env per step: it builds every player's observation
tensor and a new observation space at every step.

Two traps of Shimmy 2.0.1, both avoided here. It adds a finished game's rewards once more
for every agent still to step out, so player k's rewards add up to (k + 1) times the
engine's return: read the result from the engine, ``env.game_state.returns()`` (checked on
every game below). And give it ``game_name=``: with ``env=pyspiel_game`` its ``reset()``
reloads the game by name with default parameters (a 3-player Arktia game then fails).

    python docs/tutorials/shimmy_openspiel.py      # --games 1000 --seed 0; --help
    tabletop-zoo rate --game mole_hill --agent py:docs/tutorials/shimmy_openspiel.py:policy

Results with their intervals and CPU-seconds: docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import numpy as np
import pyspiel  # noqa: F401
import torch
from shimmy import OpenSpielCompatibilityV0

import tabletop_zoo.wrappers.openspiel  # noqa: F401  (registers python_<game> in pyspiel)
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation import outside
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report

HERE = Path(__file__).resolve()
MODEL = "runs/tutorials/shimmy_openspiel/model.pt"
PLANES, ACTIONS = 7 * 9 * 16, 173  # Mole Hill's observation tensor and actions


def network() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(PLANES, 128), torch.nn.ReLU(), torch.nn.Linear(128, ACTIONS)
    )


def masked_logits(net, tensor, mask):
    """The network's logits of OpenSpiel's flat observation tensor, -inf where illegal."""
    logits = net(torch.as_tensor(tensor, dtype=torch.float32).reshape(-1))
    return logits.masked_fill(torch.as_tensor(mask) == 0, -torch.inf)


def greedy(net):
    """``policy(observation, action_mask)`` for our AEC env's planes (rows, cols, planes):
    OpenSpiel's tensor is the same planes channel first, so they are moved first."""

    def act(observation, action_mask):
        with torch.no_grad():
            planes = np.moveaxis(np.asarray(observation), -1, 0)
            return int(masked_logits(net, planes, action_mask).argmax())

    return act


def policy(path: str | None = None):
    """The trained policy, for the ``py:`` agent spec (``$TUTORIAL_MODEL`` or MODEL)."""
    net = network()
    net.load_state_dict(torch.load(path or os.environ.get("TUTORIAL_MODEL", MODEL)))
    return greedy(net)


def play(env, net, seed):
    """One self-play game (the network plays both seats, sampling); the engine's returns
    and each seat's log-probabilities of its moves."""
    env.reset(seed=seed)
    log_probs = {agent: [] for agent in env.possible_agents}
    shimmy_sum = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        tensor, reward, termination, truncation, info = env.last()
        shimmy_sum[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        dist = torch.distributions.Categorical(
            logits=masked_logits(net, tensor, info["action_mask"])
        )
        action = dist.sample()
        log_probs[agent].append(dist.log_prob(action))
        env.step(int(action))
    returns = env.game_state.returns()  # the engine's result, not Shimmy's sums
    for k, agent in enumerate(env.possible_agents):  # the reward caveat, as measured
        assert shimmy_sum[agent] == (k + 1) * returns[k]
    return returns, log_probs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="self-play games (the budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(MODEL).parent)
    parser.add_argument("--rate", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--rate-against", metavar="SPEC", help="rate against SPEC, not the ladder")
    reproducible.add_flag(parser)
    args = parser.parse_args()
    limit_threads(1)
    torch.manual_seed(args.seed)

    env = OpenSpielCompatibilityV0(game_name="python_mole_hill")
    net = network()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    evaluation = {"games": args.eval_games, "seed": args.seed}
    chance, before = outside.chance_level(**evaluation), outside.win_rate(greedy(net), **evaluation)
    with outside.CpuShare() as training:
        batch = []  # (log-probability, the mover's return) of 8 games' moves
        for game in range(args.games):
            returns, log_probs = play(env, net, seed=args.seed * 1_000_003 + game)
            for k, agent in enumerate(env.possible_agents):
                batch += [(log_prob, returns[k]) for log_prob in log_probs[agent]]
            if (game + 1) % 8 == 0:
                rewards = torch.tensor([r for _, r in batch])
                advantages = rewards - rewards.mean()
                loss = -(torch.stack([lp for lp, _ in batch]) * advantages).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                batch = []
    after = outside.win_rate(greedy(net), **evaluation)
    against_greedy = outside.win_rate(greedy(net), opponent="greedy", **evaluation)

    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out / "model.pt")
    rates = {"chance": chance, "before": before, "after": after, "greedy": against_greedy}
    result = report(
        HERE,
        ["shimmy", "open_spiel"],
        training,
        rates,
        library="Shimmy + OpenSpiel",
        algorithm="masked REINFORCE, self-play with one network",
        game="mole_hill",
        num_players=2,
        seed=args.seed,
        budget={"self_play_games": args.games},
        model=args.out / "model.pt",
    )
    if args.rate:  # on the shipped ladder, through the py: agent spec
        rate_on_ladder(HERE, result, args.rate_against)


if __name__ == "__main__":
    main()
