"""Round-robin tournament between agents: rates with 95% CIs, mean scores, Elo.

    tabletop-zoo evaluate --agents random,greedy,mcts:100 --games 20
    tabletop-zoo evaluate --game GAME --num-players 3 --agents greedy,ppo:runs/a/m.zip

Every pair plays ``--games`` games with seats rotated (other seats: ``--filler``); the
games, ``pairings.csv``, ``standings.csv``, ``games.csv`` and ``tournament.png`` go to
``--out``. Needs the ``train`` extra; ``rllib`` for ``--backend ray``.
"""

from __future__ import annotations

import argparse
import sys
import time

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import round_robin
from tabletop_zoo.baselines.evaluation.game_log import GameLog, model_digests
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="Round-robin tournament between agents.")
    _flags.add_game_flags(p, next(iter(GAMES)))
    p.add_argument(
        "--agents",
        default="random,greedy",
        help=f"comma separated agent specs, at least 2: {cli.agent_help()} (default random,greedy)",
    )
    p.add_argument(
        "--games", type=cli.integer(1), default=20, help="games per pairing (default 20)"
    )
    p.add_argument(
        "--seed", type=cli.SEED, default=0, help="tournament seed, 0..2**32-1 (default 0)"
    )
    p.add_argument(
        "--filler",
        default="random",
        help="agent spec for the seats beyond the pair, 3-4 players only (default random)",
    )
    _flags.add_game_log_flags(p, "results/tournament", tables=True)
    p.add_argument("--workers", type=cli.PROCESSES, default=1, help="processes playing games")
    p.add_argument(
        "--random-opening",
        type=cli.integer(0),
        default=0,
        metavar="K",
        help="the first K actions of every game are random legal actions (default 0): two "
        "deterministic agents (ppo:, az:, ref:) play the same game in every game with the "
        "same seating otherwise, since both games start from one position",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local: this process (or --workers processes); ray: one Ray task per game, on a "
        "local Ray instance or the cluster at --ray-address (rllib extra). Same tables.",
    )
    p.add_argument("--ray-address", default=None, help="Ray cluster to join, e.g. auto")
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    reproducible.add_flag(p)
    return p


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
    # the chart needs matplotlib: say so before playing (the progress bar shows where tqdm is)
    require_extra("train", cli.program("scripts/evaluate.py"), ("matplotlib",))
    progress = _flags.progress(args)
    with cli.usage_errors(parser):  # every spec, model file and the player count first
        players = cli.players(args.game, args.num_players)
        specs = cli.check_agents(args.agents, args.game, players)
        if len(specs) < 2:
            raise ValueError(f"--agents needs at least 2 agents, got {args.agents!r}")
        cli.check_agents(args.filler, args.game, players, flag="--filler")
        config = {"command": "evaluate", "game": args.game, "num_players": players}
        config |= {"agents": specs, **_flags.pick(args, "filler", "games", "seed")}
        config |= {"random_opening": args.random_opening, "models": model_digests(specs)}
        log = GameLog(args.out, config, resume=args.resume)
    start = time.perf_counter()
    # a model that cannot be loaded, bad backend settings: a usage error; a ppo: agent
    # without torch, the ray backend without ray: a missing extra (cli.command)
    with cli.usage_errors(parser), cli.recorded_games(log, "evaluate.py", argv):
        options = {"agent_specs": specs, "progress": progress, "log": log}
        result = _flags.call(round_robin, args, trust=args.trust_model, **options)
    seconds = time.perf_counter() - start
    print(result.table())
    paths = result.write_csv(args.out)  # an OSError (full disk): one line from run_main
    png = result.plot(f"{args.out}/tournament.png")
    print()
    print(f"wrote {', '.join(str(p) for p in paths)}, {png}  ({seconds:.1f} s)")
    return 0
