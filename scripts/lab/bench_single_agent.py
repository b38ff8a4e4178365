"""Learner steps per CPU second of the single-agent env (no learning: random legal actions).

    python scripts/lab/bench_single_agent.py --game GAME --num-players 3 --opponent random
    python scripts/lab/bench_single_agent.py --game arktia --forward arktia-3p-ppo

The env side of a training step (the learner's move, the opponents' turns, the learner's
observation and mask) in CPU time, the median of ``--repeats`` runs of ``--steps`` steps.
``--snapshot ZIP`` makes every opponent a frozen snapshot played through SB3 (``sb3``) or
as the opponent pool plays it (``numpy``). ``--forward NAME`` times a reference network's
forward pass per observation, alone and in batches of 2, 4 and 8.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.envs.errors import ModelFileError
from tabletop_zoo.wrappers.single_agent import make_env


def snapshot_opponent(path: str, play_as: str, trust: bool = False) -> Any:
    """A self-play snapshot sampling from its policy: SB3's ``predict`` or the NumPy actor.
    ``trust``: the file may be unpickled (read without unpickling by default)."""
    if play_as == "sb3":
        from tabletop_zoo.baselines.agents.ppo import PPOAgent

        return PPOAgent(path, deterministic=False, trust=trust)
    from tabletop_zoo.baselines.agents.reference import PolicyNetAgent
    from tabletop_zoo.baselines.training.export import export_ppo_actor

    return PolicyNetAgent(export_ppo_actor(path, {}, trust=trust), deterministic=False, seed=0)


def learner_steps_per_second(game: str, players: int, opponent: Any, steps: int) -> float:
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


def forward_ms_per_observation(name: str, batch: int, seconds: float) -> float:
    """CPU milliseconds per observation of reference network ``name``'s forward pass on
    random inputs, ``batch`` observations per call."""
    from tabletop_zoo.baselines.agents.numpy_net import DenseNet
    from tabletop_zoo.baselines.agents.reference import reference_path

    net = DenseNet.load(reference_path(name))
    inputs = np.random.default_rng(0).random((batch, net.input_size), dtype=np.float32)
    net.forward(inputs)  # warm up
    calls, start = 0, time.process_time()
    while calls == 0 or time.process_time() - start < seconds:
        net.forward(inputs)
        calls += 1
    return (time.process_time() - start) * 1000 / (calls * batch)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Single-agent env speed (learner steps per CPU s).")
    _flags.add_game_flags(p)
    p.add_argument("--opponent", default="random", help=f"agent spec: {cli.agent_help()}")
    p.add_argument("--snapshot", default=None, help="MaskablePPO .zip: every opponent plays it")
    p.add_argument("--snapshot-as", choices=("sb3", "numpy"), default="numpy")
    p.add_argument("--forward", default=None, metavar="NAME", help="time ref:NAME's forward pass")
    p.add_argument(
        "--seconds",
        type=cli.number(0, 3600, low_open=True),
        default=2.0,
        help="per batch size (--forward)",
    )
    p.add_argument("--steps", type=cli.integer(1), default=3000)
    p.add_argument("--repeats", type=cli.integer(1), default=3)
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    args = p.parse_args(argv)
    with cli.usage_errors(p):  # player count, specs, files and the reference name before measuring
        players = cli.players(args.game, args.num_players)
        if args.forward is not None:
            cli.check_agents(f"ref:{args.forward}", flag="--forward")
        opponent = cli.check_agent(args.opponent, args.game, players, flag="--opponent")
        label = opponent
        if args.snapshot is not None:
            if not Path(args.snapshot).is_file():
                raise ModelFileError(f"--snapshot: no file at {args.snapshot!r}")
            opponent = snapshot_opponent(args.snapshot, args.snapshot_as, args.trust_model)
            label = f"snapshot ({args.snapshot_as})"
    if args.forward is not None:
        for batch in (1, 2, 4, 8):
            ms = forward_ms_per_observation(args.forward, batch, args.seconds)
            print(f"ref:{args.forward} forward, batch {batch}: {ms:.4f} CPU ms per observation")
        return 0
    runs = [
        learner_steps_per_second(args.game, players, opponent, args.steps)
        for _ in range(args.repeats)
    ]
    print(
        f"{args.game} {players}p vs {label}: {statistics.median(runs):.0f} learner "
        f"steps per CPU second (median of {args.repeats} x {args.steps})"
    )
    return 0


if __name__ == "__main__":
    cli.run_main(main)
