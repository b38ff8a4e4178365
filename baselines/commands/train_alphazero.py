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
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    d = AlphaZeroConfig(game=next(iter(GAMES)))
    p = argparse.ArgumentParser(description="AlphaZero-style self-play training.")
    cli.add_game_flags(p, "")  # required without --resume (main checks)
    p.add_argument(
        "--out", type=cli.output_file(".npz"), default=d.out, help="network file to write (.npz)"
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--seed", type=cli.SEED, default=d.seed)
    p.add_argument("--iterations", type=cli.integer(1), default=d.iterations)
    p.add_argument(
        "--max-minutes", type=cli.number(0, low_open=True), default=None, help="CPU-time budget"
    )
    p.add_argument(
        "--checkpoint-minutes", type=cli.number(0, low_open=True), default=None,
        help="also keep a copy <out>_cpu<SSSSS>s.npz every this many CPU-minutes "
        "(for learning curves)",
    )  # fmt: skip
    p.add_argument("--games-per-iteration", type=cli.integer(1), default=d.games_per_iteration)
    p.add_argument("--simulations", type=cli.integer(1), default=d.num_simulations)
    p.add_argument(
        "--parallel-games", type=cli.integer(1), default=d.parallel_games,
        help="self-play games searched together, their leaves valued by one network call "
        "(at most --games-per-iteration; the same games on every install, faster with numba)",
    )  # fmt: skip
    p.add_argument(
        "--leaves-per-game", type=cli.integer(1), default=d.leaves_per_game,
        help="new leaves a self-play game adds to its tree per network call, with a virtual "
        "loss when more than one (fewer network calls when few games are left)",
    )  # fmt: skip
    p.add_argument("--hidden", type=cli.layer_sizes, default=",".join(map(str, d.hidden)))
    p.add_argument("--learning-rate", type=cli.number(0, low_open=True), default=d.learning_rate)
    p.add_argument("--updates-per-iteration", type=cli.integer(1), default=d.updates_per_iteration)
    p.add_argument("--train-batch", type=cli.integer(1), default=d.train_batch)
    p.add_argument("--buffer-size", type=cli.integer(1), default=d.buffer_size)
    p.add_argument("--temperature-moves", type=cli.integer(0), default=d.temperature_moves)
    p.add_argument(
        "--gumbel", action="store_true",
        help="self-play roots searched by Gumbel sequential halving; policy targets are its "
        "improved policy (Danihelka et al. 2022) instead of visit counts",
    )  # fmt: skip
    p.add_argument("--gumbel-considered", type=cli.integer(1), default=d.gumbel_considered)
    p.add_argument(
        "--max-moves", type=cli.integer(1), default=d.max_moves,
        help="actions per self-play game; a game still running ends there, scored as it stands",
    )  # fmt: skip
    p.add_argument(
        "--score-weight", type=cli.number(0, 1), default=d.score_weight,
        help="share of tanh(score margin / --score-scale) in the value of a finished game "
        "(0: win / draw / loss only)",
    )  # fmt: skip
    p.add_argument("--score-scale", type=cli.number(0, low_open=True), default=d.score_scale)
    p.add_argument(
        "--opponent", default=None, metavar="NETWORK",
        help="a fixed policy network that plays one seat of --opponent-share of the self-play "
        "games (ref:NAME or a network file .npz; default: none, pure self-play)",
    )  # fmt: skip
    p.add_argument(
        "--opponent-share", type=cli.number(0, 1, low_open=True), default=None,
        help=f"share of the self-play games with --opponent in one seat (default "
        f"{d.opponent_share})",
    )  # fmt: skip
    p.add_argument(
        "--game-option", action="append", default=[], metavar="KEY=VALUE",
        help="rules option of the game (repeatable); values parsed as JSON if possible",
    )  # fmt: skip
    checkpoint.add_flags(p, "that writes this --out file")
    reproducible.add_flag(p)
    return p


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    checkpoint.refuse_other_flags(parser, args)
    if not (args.game or args.resume):
        parser.error("the following arguments are required: --game")
    require_extra("train", cli.program("scripts/train_alphazero.py"), ("torch",))
    # flags, game options, output file: before training
    with cli.usage_errors(parser, (ValueError, TypeError)):
        if args.opponent_share is not None and args.opponent is None:
            raise ValueError("--opponent-share needs --opponent (the network to seat)")
        minutes = {"max_seconds": args.max_minutes, "checkpoint_seconds": args.checkpoint_minutes}
        config = cli.config_from_flags(
            AlphaZeroConfig,
            args,
            **{field: None if value is None else 60.0 * value for field, value in minutes.items()},
            num_simulations=args.simulations,
            game_options=cli.key_values(args.game_option, "--game-option"),
            opponent_share=args.opponent_share or AlphaZeroConfig.opponent_share,  # > 0 if given
        )
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
