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
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.envs.errors import ModelFileError
from tabletop_zoo.envs.extras import MissingExtraError, install_command, require_extra
from tabletop_zoo.envs.registry import GAMES, fast_path_available

GAMES_WITH_ENGINES = [name for name, spec in GAMES.items() if spec.fast_engine is not None]
POSITIVE = cli.number(0, low_open=True)  # a finite number > 0 (no nan, no inf)
OPPONENT_KINDS = ("random", "greedy", "snapshot")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, checked (one usage line for a bad one); one field of the config each."""
    from tabletop_zoo.baselines.training.ppo_vector import PPOVectorConfig

    p = argparse.ArgumentParser(description="Masked PPO on the compiled vector env.")
    add = _flags.config_flags(p, PPOVectorConfig)
    p.add_argument("--game", choices=GAMES_WITH_ENGINES, default=GAMES_WITH_ENGINES[0])
    p.add_argument("--num-players", type=int, help="default: the game's smallest count")
    add(
        "opponent",
        type=opponent_list,
        help="random, greedy, snapshot, or a comma list of them drawn per seat and episode "
        "(e.g. random,greedy)",
    )
    add("seed", type=cli.SEED)
    add(
        "reward_mode",
        choices=["win", "score"],
        help="win: +1 / 0 / -1; score: own score minus the best other one",
    )
    add("reward_scale", type=POSITIVE, help="rewards are divided by this (for score rewards)")
    add(
        "total_timesteps",
        type=cli.integer(0),
        help="0: no training (with --load: evaluate those weights)",
    )
    add("cpu_budget", type=POSITIVE, help="stop training after this many process CPU-seconds")
    add("num_envs", type=cli.integer(1, cli.MAX_LAYER))
    add("num_steps", type=cli.integer(1, cli.MAX_LAYER), help="rollout steps per env")
    add("learning_rate", type=POSITIVE)
    add("anneal_lr", action=argparse.BooleanOptionalAction)
    add("gamma", type=cli.number(0, 1))
    add("gae_lambda", type=cli.number(0, 1))
    add("num_minibatches", type=cli.integer(1))
    add("update_epochs", type=cli.integer(1))
    add("clip_coef", type=POSITIVE)
    add("ent_coef", type=cli.number(0))
    add("vf_coef", type=cli.number(0))
    add("max_grad_norm", type=POSITIVE)
    add("hidden", type=cli.integer(1, cli.MAX_LAYER), help="units per hidden layer")
    add("snapshot_every", type=cli.integer(1), help="updates")
    add("torch_threads", type=cli.PROCESSES)
    add("log_every", type=cli.integer(1), help="updates between logs")
    add("eval_games", type=cli.integer(0), help="per opponent per seat; 0 = none")
    add(
        "eval_policy",
        choices=["argmax", "sample"],
        help="the most probable action, or one drawn from the policy",
    )
    add("eval_opponents", help=f"agent specs, comma separated: {cli.agent_help()}")
    add("load", help="start from weights written by --save (same game, --hidden)")
    add("save", type=cli.output_file(), help="write the trained network's weights (.pt)")
    _flags.add_checkpoint_flags(p, "that saves to this --save file")
    reproducible.add_flag(p)
    args = p.parse_args(argv)
    _flags.refuse_other_flags(p, args)
    with cli.usage_errors(p):
        args.num_players = cli.players(args.game, args.num_players)
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
        every = flags["checkpoint_every"]  # the run's settings, writing its own --save
        flags = settings | {"save": run, "load": None, "checkpoint_every": every}
    config = PPOVectorConfig(**flags)
    try:
        agent = train(config, log=lambda line: print(line, flush=True), resume=state)
        if config.eval_games:
            print(format_eval_table(evaluate(agent, config)))
    except ModelFileError as exc:  # the weights of --load (the flag checks read the others)
        raise ModelFileError(f"--load {exc}") from None
    except KeyboardInterrupt:
        again = f"; resume with: tabletop-zoo ppo-vector --resume {config.save}"
        raise cli.Interrupted("no weights saved" + (again if config.save else "")) from None
    print(f"process CPU-s in all (training, evaluation, start-up): {time.process_time():.1f}")
    return 0
