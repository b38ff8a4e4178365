"""Masked PPO in one file on the compiled vector env (CleanRL style), as a command:
flags -> :func:`tabletop_zoo.baselines.training.ppo_vector.train` -> printed results.

    tabletop-zoo ppo-vector --game GAME --num-players N --opponent random
    tabletop-zoo ppo-vector --opponent snapshot --snapshot-every 20 --cpu-budget 300

The training module (read top to bottom) says what the opponents are. At the end the
policy is evaluated with the arena (Python env, every seat) against ``--eval-opponents``.
``--save`` / ``--load`` write and read the weights (tensors only), ``--resume SAVE``
continues from the checkpoint beside them. Needs the ``fast`` and ``train`` extras.
"""

from __future__ import annotations

import argparse
import time

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.envs.extras import MissingExtraError, install_command, require_extra
from tabletop_zoo.envs.registry import GAMES, fast_path_available

GAMES_WITH_ENGINES = [name for name, spec in GAMES.items() if spec.fast_engine is not None]
POSITIVE = cli.number(0, low_open=True)  # a finite number > 0 (no nan, no inf)
OPPONENT_KINDS = ("random", "greedy", "snapshot")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, checked (one usage line for a bad one); one field of the config each."""
    p = argparse.ArgumentParser(description="Masked PPO on the compiled vector env.")
    p.add_argument("--game", choices=GAMES_WITH_ENGINES, default=GAMES_WITH_ENGINES[0])
    p.add_argument("--num-players", type=int, default=None, help="default: the smallest count")
    p.add_argument("--opponent", type=opponent_list, default="random",
                   help="random, greedy, snapshot, or a comma list of them drawn per seat "
                   "and episode (e.g. random,greedy)")  # fmt: skip
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument("--reward-mode", choices=["win", "score"], default="win",
                   help="win: +1 / 0 / -1; score: own score minus the best other one")  # fmt: skip
    p.add_argument("--reward-scale", type=POSITIVE, default=1.0,
                   help="rewards are divided by this (for score rewards)")  # fmt: skip
    p.add_argument("--total-timesteps", type=cli.integer(0), default=2_000_000,
                   help="0: no training (with --load: evaluate those weights)")  # fmt: skip
    p.add_argument("--cpu-budget", type=POSITIVE, default=None,
                   help="stop training after this many CPU-seconds of this process")  # fmt: skip
    p.add_argument("--num-envs", type=cli.integer(1, cli.MAX_LAYER), default=64)
    p.add_argument(
        "--num-steps", type=cli.integer(1, cli.MAX_LAYER), default=64, help="rollout steps per env"
    )
    p.add_argument("--learning-rate", type=POSITIVE, default=1e-3)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--gamma", type=cli.number(0, 1), default=0.99)
    p.add_argument("--gae-lambda", type=cli.number(0, 1), default=0.95)
    p.add_argument("--num-minibatches", type=cli.integer(1), default=4)
    p.add_argument("--update-epochs", type=cli.integer(1), default=4)
    p.add_argument("--clip-coef", type=POSITIVE, default=0.2)
    p.add_argument("--ent-coef", type=cli.number(0), default=0.01)
    p.add_argument("--vf-coef", type=cli.number(0), default=0.5)
    p.add_argument("--max-grad-norm", type=POSITIVE, default=0.5)
    p.add_argument(
        "--hidden", type=cli.integer(1, cli.MAX_LAYER), default=128, help="units per hidden layer"
    )
    p.add_argument("--snapshot-every", type=cli.integer(1), default=20, help="updates")
    p.add_argument("--torch-threads", type=cli.PROCESSES, default=1)
    p.add_argument("--log-every", type=cli.integer(1), default=10, help="updates between logs")
    p.add_argument("--eval-games", type=cli.integer(0), default=50,
                   help="per opponent per seat; 0 = none")  # fmt: skip
    p.add_argument("--eval-policy", choices=["argmax", "sample"], default="argmax",
                   help="the most probable action, or one drawn from the policy")  # fmt: skip
    p.add_argument("--eval-opponents", default="random,greedy",
                   help=f"agent specs, comma separated: {cli.agent_help()}")  # fmt: skip
    p.add_argument("--load", default=None,
                   help="start from weights written by --save (same game, --hidden)")  # fmt: skip
    p.add_argument("--save", type=cli.output_file(), default=None,
                   help="write the trained network's weights (.pt)")  # fmt: skip
    checkpoint.add_flags(p, "that saves to this --save file")
    reproducible.add_flag(p)
    args = p.parse_args(argv)
    checkpoint.refuse_other_flags(p, args)
    players = GAMES[args.game].players
    args.num_players = players[0] if args.num_players is None else args.num_players
    if args.num_players not in players:
        p.error(f"--num-players must be one of {list(players)} for {args.game}")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-envs x --num-steps must be divisible by --num-minibatches")
    specs, args.eval_opponents = args.eval_opponents, []
    if args.eval_games:  # the specs before training, not after it
        with cli.usage_errors(p):
            flag = "--eval-opponents"  # kept in the checkpoint: no py: (code=False)
            args.eval_opponents = cli.check_agents(specs, args.game, args.num_players, flag, False)
    return args


def opponent_list(text: str) -> str:
    """``--opponent``: one of random/greedy/snapshot or a comma list of them (argparse type)."""
    names = text.split(",")
    bad = [name for name in names if name not in OPPONENT_KINDS]
    if bad:
        raise argparse.ArgumentTypeError(
            f"{bad[0]!r} is not an opponent; choose from {', '.join(OPPONENT_KINDS)} "
            "(or a comma list of them)"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (Ctrl-C: one line saying nothing was saved)."""
    # a missing extra is one line (cli.run_main catches this), before the flags are read
    require_extra("train", cli.program("scripts/ppo_vector.py"), ("torch",))
    if not fast_path_available():
        raise MissingExtraError(
            f"{cli.program('scripts/ppo_vector.py')} needs the 'fast' extra (missing: numba); "
            "install it with: " + install_command("fast")
        )
    from tabletop_zoo.baselines.training.eval_log import format_eval_table
    from tabletop_zoo.baselines.training.ppo_vector import PPOVectorConfig, evaluate, train

    flags = vars(parse_args(argv))
    flags.pop("reproducible")  # applied at start-up (reproducible.configure), not a setting
    run, state = flags.pop("resume"), None
    if run is not None:  # a bad RUN: one line (run_main)
        settings, state = checkpoint.load_checkpoint(run, "ppo-vector")
        flags = settings | {"save": run, "load": None,
                            "checkpoint_every": flags["checkpoint_every"]}  # fmt: skip
    config = PPOVectorConfig(**flags)
    try:
        agent = train(config, log=lambda line: print(line, flush=True), resume=state)
        if config.eval_games:
            print(format_eval_table(evaluate(agent, config)))
    except KeyboardInterrupt:
        again = f"; resume with: tabletop-zoo ppo-vector --resume {config.save}"
        raise cli.Interrupted("no weights saved" + (again if config.save else "")) from None
    print(f"process CPU-s in all (training, evaluation, start-up): {time.process_time():.1f}")
    return 0
