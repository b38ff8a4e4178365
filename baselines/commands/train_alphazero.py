"""AlphaZero-style self-play training for any game of the registry::

    tabletop-zoo train-alphazero --game GAME --num-players 2 --max-minutes 20 \
        --out runs/az_GAME.npz

Writes a NumPy network file that plays as ``az:PATH`` (or ``az:PATH:SIMS``) and prints one
JSON line per iteration. Ctrl-C keeps the network of the last finished iteration;
``--resume OUT`` continues from ``<out>.checkpoint.pt``. Needs the ``train`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero
from tabletop_zoo.envs.extras import require_extra


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="AlphaZero-style self-play training.")
    add = _flags.config_flags(p, AlphaZeroConfig)
    _flags.add_game_flags(p, "")  # required without --resume (main checks)
    add("out", type=cli.output_file(".npz"), help="network file to write (.npz)")
    add("overwrite", action="store_true", help="replace an existing --out file")
    add("seed", type=cli.SEED)
    add("iterations", type=cli.integer(1))
    p.add_argument("--max-minutes", type=cli.number(0, low_open=True), help="CPU-time budget")
    p.add_argument(
        "--checkpoint-minutes",
        type=cli.number(0, low_open=True),
        help="also keep a copy <out>_cpu<SSSSS>s.npz every this many CPU-minutes "
        "(for learning curves)",
    )
    add("games_per_iteration", type=cli.integer(1))
    add("num_simulations", "--simulations", type=cli.integer(1))
    add(
        "parallel_games",
        type=cli.integer(1),
        help="self-play games searched together, their leaves valued by one network call "
        "(at most --games-per-iteration; the same games on every install, faster with numba)",
    )
    add(
        "leaves_per_game",
        type=cli.integer(1),
        help="new leaves a self-play game adds to its tree per network call, with a virtual "
        "loss when more than one (fewer network calls when few games are left)",
    )
    add("hidden", type=cli.layer_sizes)
    add("learning_rate", type=cli.number(0, low_open=True))
    add("updates_per_iteration", type=cli.integer(1))
    add("train_batch", type=cli.integer(1))
    add("buffer_size", type=cli.integer(1))
    add("temperature_moves", type=cli.integer(0))
    add(
        "gumbel",
        action="store_true",
        help="self-play roots searched by Gumbel sequential halving; policy targets are its "
        "improved policy (Danihelka et al. 2022) instead of visit counts",
    )
    add("gumbel_considered", type=cli.integer(1))
    add(
        "max_moves",
        type=cli.integer(1),
        help="actions per self-play game; a game still running ends there, scored as it stands",
    )
    add(
        "score_weight",
        type=cli.number(0, 1),
        help="share of tanh(score margin / --score-scale) in the value of a finished game "
        "(0: win / draw / loss only)",
    )
    add("score_scale", type=cli.number(0, low_open=True))
    add(
        "opponent",
        metavar="NETWORK",
        help="a fixed policy network that plays one seat of --opponent-share of the self-play "
        "games (ref:NAME or a network file .npz; default: none, pure self-play)",
    )
    share_help = "share of the self-play games with --opponent in one seat"
    add("opponent_share", type=cli.number(0, 1, low_open=True), help=share_help)
    _flags.add_key_values(p, "--game-option", "rules option of the game (repeatable)")
    _flags.add_checkpoint_flags(p, "that writes this --out file")
    reproducible.add_flag(p)
    return p


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _flags.refuse_other_flags(parser, args)
    if not (args.game or args.resume):
        parser.error("the following arguments are required: --game")
    require_extra("train", cli.program("scripts/train_alphazero.py"), ("torch",))
    # flags, game options, output file: before training
    with cli.usage_errors(parser, (ValueError, TypeError)):
        if args.opponent_share != AlphaZeroConfig.opponent_share and args.opponent is None:
            raise ValueError("--opponent-share needs --opponent (the network to seat)")
        minutes = {"max_seconds": args.max_minutes, "checkpoint_seconds": args.checkpoint_minutes}
        given = {key: None if value is None else 60.0 * value for key, value in minutes.items()}
        given["game_options"] = cli.key_values(args.game_option, "--game-option")
        config = _flags.call(AlphaZeroConfig, args, num_simulations=args.simulations, **given)
        state = None
        if args.resume is not None:  # the run's settings, writing its own output
            settings, state = checkpoint.load_checkpoint(args.resume, "train-alphazero")
            config = AlphaZeroConfig(**settings | {"out": args.resume, "overwrite": True})
        config = config.check()
    finished: list[str] = []

    def log(line: str) -> None:
        finished.append(line)
        print(line, flush=True)

    try:
        result = train_alphazero(config, log, args.checkpoint_every, state)
    except KeyboardInterrupt:
        again = f"resume with: tabletop-zoo train-alphazero --resume {config.out}"
        if not finished or not Path(config.out).is_file():
            raise cli.Interrupted(f"no iteration finished; no network written; {again}") from None
        raise cli.Interrupted(
            f"{len(finished)} iterations logged; the network of the last one saved is in "
            f"{config.out}; {again}"
        ) from None
    print(f"network: {result.path}  games: {result.games}  decisions: {result.decisions}")
    print(f"cpu time: {result.seconds:.0f} s")
    return 0
