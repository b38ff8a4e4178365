"""Train a MaskablePPO agent by self-play against a pool of opponents.

    tabletop-zoo train                          # quick demo (the first game of the registry)
    tabletop-zoo train --game GAME --timesteps 300000 --name long_run
    tabletop-zoo train --engine fast            # the compiled batched engine (fast extra)
    tabletop-zoo train --resume runs/long_run   # continue a killed run from its checkpoint

Everything goes to ``runs/<name>/``: ``config.json``, ``progress.csv``, ``eval.csv``,
``learning_curve.png``, ``snapshots/``, ``best_model.zip``, ``final_model.zip`` and
``checkpoint.pt``. Needs the ``train`` extra; the library is
:mod:`tabletop_zoo.baselines.training`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.training import (
    ENGINES,
    GENERIC_DEFAULTS,
    TrainConfig,
    checkpoint,
    defaults_for,
    format_eval_table,
    train,
)
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def _defaults_epilog() -> str:
    """The defaults marked 'per game': the generic ones and each game's overrides."""
    text = "per-game defaults: " + ", ".join(f"{k}={v}" for k, v in GENERIC_DEFAULTS.items())
    for name in sorted(GAMES):
        changed = {k: v for k, v in defaults_for(name).items() if GENERIC_DEFAULTS.get(k) != v}
        if changed:
            text += f"; {name}: " + ", ".join(f"{k}={v}" for k, v in changed.items())
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags (defaults marked 'per game' come from the game's spec)."""
    d = TrainConfig()
    p = argparse.ArgumentParser(
        description="MaskablePPO self-play training.", epilog=_defaults_epilog()
    )
    cli.add_game_flags(p, d.game)
    p.add_argument(
        "--name", help="run folder name (default: a fresh <game>_<N>p_seed<S>, then _2, _3, ...)"
    )
    p.add_argument(
        "--runs-dir",
        type=cli.output_folder(),
        default=d.runs_dir,
        help="parent folder of runs (default runs)",
    )
    p.add_argument("--seed", type=cli.SEED, default=d.seed)
    p.add_argument("--timesteps", type=int, default=None, help="learner steps (per game)")
    p.add_argument(
        "--n-envs", type=cli.integer(1, cli.MAX_PROCESSES), default=d.n_envs, help="parallel envs"
    )
    p.add_argument(
        "--vec",
        choices=["dummy", "subproc"],
        default=d.vec,
        help="vector env: dummy (one process, shared pool) or subproc (one process per env)",
    )
    p.add_argument(
        "--engine",
        choices=list(ENGINES),
        help="where the games run: python (the Python env, one game at a time; the default, "
        "the same results on every install) or fast (compiled, batched: faster, other games)",
    )
    p.add_argument("--n-steps", type=int, default=None, help="rollout steps per env (per game)")
    p.add_argument("--batch-size", type=int, default=None, help="minibatch size (per game)")
    p.add_argument("--n-epochs", type=int, default=d.n_epochs)
    p.add_argument("--learning-rate", type=cli.number(0, low_open=True), default=d.learning_rate)
    p.add_argument("--gamma", type=cli.number(0, 1, low_open=True), default=d.gamma)
    p.add_argument("--ent-coef", type=cli.number(0), default=d.ent_coef)
    p.add_argument(
        "--net-arch",
        default=",".join(map(str, d.net_arch)),
        help="hidden layer sizes, comma separated (default 128,128)",
    )
    p.add_argument(
        "--pool",
        default=",".join(d.baselines),
        help=f"fixed opponents of the self-play pool, comma separated agent specs: "
        f"{cli.agent_help()}",
    )
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    p.add_argument("--self-play-prob", type=cli.number(0, 1), default=d.self_play_prob)
    p.add_argument("--max-snapshots", type=int, default=d.max_snapshots)
    p.add_argument("--snapshot-every", type=int, default=None, help="0 = no snapshots")
    p.add_argument("--eval-every", type=int, default=None, help="0 = final evaluation only")
    p.add_argument("--eval-games", type=int, default=None, help="games per opponent per seat")
    p.add_argument("--final-eval-games", type=int, default=None, help="same, final evaluation")
    p.add_argument("--torch-threads", type=cli.PROCESSES, default=d.torch_threads)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (1 = print logs)")
    p.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="env option (repeatable), e.g. reward_mode=score; values parsed as JSON if possible",
    )
    checkpoint.add_flags(p, "folder (runs/NAME)")
    reproducible.add_flag(p)
    return p


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """Build the ``TrainConfig`` from parsed flags."""
    try:
        net_arch = tuple(int(x) for x in args.net_arch.split(",") if x.strip())
    except ValueError:
        message = f"--net-arch needs comma separated integers, got {args.net_arch!r}"
        raise ValueError(message) from None
    for item in args.env_option:  # the player count has a flag of its own
        key, _, value = item.partition("=")
        if key == "num_players":
            raise ValueError(
                f"--env-option {item!r}: the player count is a flag of its own, use "
                f"--num-players {value}"
            )
    return cli.config_from_flags(
        TrainConfig,
        args,
        net_arch=net_arch,
        baselines=tuple(s.strip() for s in args.pool.split(",") if s.strip()),
        trust_models=args.trust_model,
        progress_bar=not args.no_progress,
        env_kwargs=cli.key_values(args.env_option, "--env-option"),
    )


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (1 when the ``train`` extra is missing)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    checkpoint.refuse_other_flags(parser, args)
    require_extra("train", cli.program("scripts/train.py"))
    # flag values, pool agent specs (and models), env options and the run folder
    with cli.usage_errors(parser, (ValueError, TypeError)):
        config, state = config_from_args(args).resolved(), None
        if args.resume is None:
            config.check_new_run_dir()
        else:  # the run's own settings, in the folder where it is now
            settings, state = checkpoint.load_checkpoint(args.resume, "train")
            run = Path(args.resume)
            config = TrainConfig(**settings | {"runs_dir": str(run.parent), "name": run.name,
                                 "progress_bar": config.progress_bar}).resolved()  # fmt: skip
    try:
        result = train(config, checkpoint_every=args.checkpoint_every, resume=state)
    except KeyboardInterrupt:
        again = f"tabletop-zoo train --resume {config.run_dir}"
        raise cli.Interrupted(f"the run stopped; resume with: {again}") from None
    print()
    print(f"final evaluation after {result.final_eval[0].timesteps} steps (all seats):")
    print(format_eval_table(result.final_eval))
    print()
    print(f"model:          {result.model_path}")
    print(f"learning curve: {result.run_dir / 'learning_curve.png'}")
    print(f"logs:           {result.run_dir / 'progress.csv'}, {result.run_dir / 'eval.csv'}")
    print(f"wall time:      {result.seconds:.0f} s")
    steps = result.final_eval[0].timesteps
    rate = steps / max(result.learn_cpu_seconds, 1e-9)
    print(
        f"learning:       {steps} steps in {result.learn_cpu_seconds:.1f} CPU-s "
        f"({rate:.0f} learner steps per CPU-second, {config.engine} engine; "
        f"{result.update_cpu_seconds:.1f} CPU-s of it in the updates)"
    )
    return 0
