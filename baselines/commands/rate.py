"""Rate an agent on the shipped ladder of a game and player count, in one command::

    tabletop-zoo rate --game GAME --num-players 3 --agent ref:GAME-3p-ppo

The agent plays every mix of the ladder's members in every seating, ``--rounds`` times;
only its rating is fitted (Plackett-Luce ``mu`` with its 95% interval; 2 players: Elo
too), so it lands on the ladder's scale. ``--against SPEC`` reports placements against one
opponent instead. Needs the ``train`` extra (openskill).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.agents.reference import ladder_entry
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import ladder
from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.game_log import GameLog, model_digests
from tabletop_zoo.baselines.evaluation.report import display_names, text_table
from tabletop_zoo.baselines.evaluation.seating import PLACEMENT_HEADER, SeatedResult
from tabletop_zoo.envs.extras import require_extra


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="Rate an agent on the shipped ladder.")
    _flags.add_game_flags(p)
    p.add_argument("--agent", required=True, help=f"agent spec: {cli.agent_help()}")
    p.add_argument("--rounds", type=cli.integer(1), default=2, help="times every seating is played")
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="SPEC",
        help="placements against SPEC in every other seat instead of the ladder (repeatable)",
    )
    p.add_argument(
        "--random-opening",
        type=cli.integer(0),
        default=None,
        metavar="K",
        help="the first K actions of every game are random legal actions: two deterministic "
        "agents (ppo:, az:, ref:) in a game without chance play the same game every round "
        "otherwise (default: 0 with --against, the ladder's own K on a ladder)",
    )
    p.add_argument(
        "--workers",
        type=cli.PROCESSES,
        default=1,
        help="processes playing games (2 on a 2-core machine: about half the wall time, "
        "the same games)",
    )
    p.add_argument(
        "--csv",
        type=cli.output_file(".csv"),
        help="write every game played to this CSV file (seats, returns, scores, ranks)",
    )
    _flags.add_game_log_flags(p, "results/rate")
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    reproducible.add_flag(p)
    return p


def write_csv(args: argparse.Namespace, players: int, specs: list[str], log: GameLog) -> str:
    """Every game of the run (agent indices into ``specs``) to ``--csv``; its path."""
    games = [  # match k > 0 (the k-th --against): its agent 1 is specs[k]
        dataclasses.replace(g, agents=tuple(match if a and match else a for a in g.agents))
        for match, g in log.records()
    ]
    opening = log.config["random_opening"]
    result = SeatedResult(args.game, players, display_names(specs), games, opening)
    return f"wrote {result.write_csv(args.csv)} ({len(games)} games)"


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
    require_extra("train", cli.program("scripts/rate.py"), ("openskill",))
    with cli.usage_errors(parser):  # the player count, every spec, model file and the ladder
        players = cli.players(args.game, args.num_players)
        args.agent = cli.check_agent(args.agent, args.game, players, flag="--agent")
        if args.against:
            args.against = cli.check_agents(args.against, args.game, players, flag="--against")
        specs, opening = [args.agent, *args.against], 0
        if not args.against:  # the ladder's members, and its own K
            entry = ladder_entry(args.game, players)
            specs, opening = [args.agent, *entry["members"]], entry.get("random_opening", 0)
        if args.random_opening is not None:
            opening = args.random_opening
        config = {"command": "rate", "game": args.game, "num_players": players, "specs": specs}
        config |= {"against": bool(args.against), **_flags.pick(args, "rounds", "seed")}
        config |= {"random_opening": opening, "models": model_digests(specs)}
        log = GameLog(args.out, config, resume=args.resume)
    options = _flags.pick(args, "rounds", "seed", "workers") | {"random_opening": opening}
    options["trust"] = args.trust_model
    options["progress"] = _flags.progress(args)
    start, rows = cpu_seconds(), []
    with cli.usage_errors(parser), cli.recorded_games(log, "rate.py", argv):
        if not args.against:  # the agent's rating on the ladder, placements per mix
            rated = ladder.rate_newcomer(args.game, players, args.agent, log=log, **options)
            print("\n".join(ladder.newcomer_lines(rated)))
        for number, opponent in enumerate(args.against, start=1):
            place = ladder.rate_against(
                args.game, players, args.agent, opponent, log=log.part(number), **options
            )
            rows.append((f"{players - 1} x {opponent}", *place.cells()))
    if rows:
        header = ("opponents (every other seat)", *PLACEMENT_HEADER)
        print("\n".join(text_table(rows, header)))
    print(f"cpu time: {(cpu_seconds() - start) / 60:.1f} min")
    if args.csv is not None:
        print(write_csv(args, players, specs, log))
    return 0
