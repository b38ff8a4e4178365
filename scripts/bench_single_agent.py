"""Learner steps per CPU second of the single-agent env (no learning: random legal actions).

Example::

    python scripts/bench_single_agent.py --game GAME --num-players 3 --opponent random

Measures the env side of a training step (the learner's move, the opponents' turns, the
learner's observation and mask) with CPU time (``time.process_time``), the median of
``--repeats`` runs of ``--steps`` learner steps.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from tabletop_zoo.envs.registry import GAMES
from tabletop_zoo.wrappers.single_agent import make_env


def learner_steps_per_second(game: str, players: int, opponent: str, steps: int) -> float:
    """Random legal learner actions for ``steps`` steps; steps per CPU second."""
    env = make_env(game, players, opponent=opponent, seed=0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.process_time()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.action_masks())))
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Single-agent env speed (learner steps per CPU s).")
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--num-players", type=int, default=None)
    p.add_argument("--opponent", default="random")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    players = GAMES[args.game].default_players if args.num_players is None else args.num_players
    runs = [
        learner_steps_per_second(args.game, players, args.opponent, args.steps)
        for _ in range(args.repeats)
    ]
    print(
        f"{args.game} {players}p vs {args.opponent}: {statistics.median(runs):.0f} learner "
        f"steps per CPU second (median of {args.repeats} x {args.steps})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
