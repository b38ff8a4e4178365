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
from tabletop_zoo.baselines.commands import _flags
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
    p = argparse.ArgumentParser(
        description="MaskablePPO self-play training.", epilog=_defaults_epilog()
    )
    add = _flags.config_flags(p, TrainConfig)
    _flags.add_game_flags(p, TrainConfig().game)
    add("name", help="run folder name (default: a fresh <game>_<N>p_seed<S>, then _2, _3, ...)")
    add("runs_dir", type=cli.output_folder(), help="parent folder of runs (default %(default)s)")
    add("seed", type=cli.SEED)
    add("timesteps", type=int, help="learner steps (per game)")
    add("n_envs", type=cli.integer(1, cli.MAX_PROCESSES), help="parallel envs")
    add(
        "vec",
        choices=["dummy", "subproc"],
        help="vector env: dummy (one process, shared pool) or subproc (one process per env)",
    )
    add(
        "engine",
        choices=list(ENGINES),
        help="where the games run: python (the Python env, one game at a time; the default, "
        "the same results on every install) or fast (compiled, batched: faster, other games)",
    )
    add("n_steps", type=int, help="rollout steps per env (per game)")
    add("batch_size", type=int, help="minibatch size (per game)")
    add("n_epochs", type=int)
    add("learning_rate", type=cli.number(0, low_open=True))
    add("gamma", type=cli.number(0, 1, low_open=True))
    add("ent_coef", type=cli.number(0))
    add(
        "net_arch",
        type=cli.layer_sizes,
        help="hidden layer sizes, comma separated (default %(default)s)",
    )
    add(
        "baselines",
        "--pool",
        type=lambda text: tuple(spec.strip() for spec in text.split(",") if spec.strip()),
        help=f"fixed opponents of the self-play pool, comma separated agent specs: "
        f"{cli.agent_help()}",
    )
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    add("self_play_prob", type=cli.number(0, 1))
    add("max_snapshots", type=int)
    add("snapshot_every", type=int, help="0 = no snapshots")
    add("eval_every", type=int, help="0 = final evaluation only")
    add("eval_games", type=int, help="games per opponent per seat")
    add("final_eval_games", type=int, help="same, final evaluation")
    add("torch_threads", type=cli.PROCESSES)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add("verbose", type=int, help="SB3 verbosity (1 = print logs)")
    _flags.add_key_values(p, "--env-option", "env option (repeatable), e.g. reward_mode=score")
    _flags.add_checkpoint_flags(p, "folder (runs/NAME)")
    reproducible.add_flag(p)
    return p


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (1 when the ``train`` extra is missing)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _flags.refuse_other_flags(parser, args)
    require_extra("train", cli.program("scripts/train.py"))
    # flag values, pool agent specs (and models), env options and the run folder
    with cli.usage_errors(parser, (ValueError, TypeError)):
        given = {"trust_models": args.trust_model, "progress_bar": not args.no_progress}
        given["baselines"] = args.pool
        given["env_kwargs"] = cli.key_values(args.env_option, "--env-option")
        config, state = _flags.call(TrainConfig, args, **given).resolved(), None
        if args.resume is None:
            config.check_new_run_dir()
        else:  # the run's own settings, in the folder where it is now
            settings, state = checkpoint.load_checkpoint(args.resume, "train")
            run = Path(args.resume)
            config = TrainConfig(
                **settings
                | {
                    "runs_dir": str(run.parent),
                    "name": run.name,
                    "progress_bar": config.progress_bar,
                }
            ).resolved()
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
