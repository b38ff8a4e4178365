"""Rate an agent on the shipped ladder of a game and player count, in one command.

Example::

    python scripts/rate.py --game GAME --num-players 3 --agent ref:GAME-3p-ppo

The agent plays one seat against every mix of the ladder's members (random, greedy, MCTS,
the reference models) in the other seats, every seating of every mix (seats balanced),
``--rounds`` times. The members keep their published ratings (the manifest of
``baselines/reference_models``); only the newcomer's rating is fitted, so it lands on the
ladder's scale: Plackett-Luce ``mu`` from the full finishing orders (``openskill``) with its
95% interval, and for 2 players also the maximum-likelihood Elo with its interval. Prints
the ladder with the newcomer placed in it, its share of sole first places, mean rank and
score (the share of the other seats it finished ahead of, ties half: with 2 players wins
plus half the draws) against each mix, and the CPU time. ``--against SPEC`` (repeatable)
instead reports the agent's placements against that one opponent in every other seat
(e.g. two random agents).
Needs the ``train`` extra (openskill).
"""

from __future__ import annotations

import argparse
import sys

from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.evaluation import ladder
from tabletop_zoo.baselines.evaluation.arena import IncompleteRunError, cpu_seconds
from tabletop_zoo.envs.extras import MissingExtraError, require_extra
from tabletop_zoo.envs.registry import GAMES


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="Rate an agent on the shipped ladder.")
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--num-players", type=int, default=None, help="default: smallest count")
    p.add_argument("--agent", required=True, help="agent spec (random, mcts:N, ppo:PATH, ...)")
    p.add_argument("--rounds", type=int, default=2, help="times every seating is played")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="SPEC",
        help="placements against SPEC in every other seat instead of the ladder (repeatable)",
    )
    p.add_argument(
        "--random-opening", type=int, default=None, metavar="K",
        help="the first K actions of every game are random legal actions: two deterministic "
        "agents (ppo:, az:, ref:) in a game without chance play the same game every round "
        "otherwise (default: 0 with --against, the ladder's own K on a ladder)",
    )  # fmt: skip
    p.add_argument(
        "--workers", type=int, default=1,
        help="processes playing games (2 on a 2-core machine: about half the wall time, "
        "the same games)",
    )  # fmt: skip
    p.add_argument("--csv", default=None, help="write every game to this CSV file")
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    return p


def rate_against(args: argparse.Namespace, players: int) -> None:
    """Placements of the agent against each ``--against`` field."""
    print(f"{'opponents (every other seat)':<44}{ladder.PLACEMENT_HEADER}")
    for opponent in args.against:
        place = ladder.rate_against(
            args.game,
            players,
            args.agent,
            opponent,
            rounds=args.rounds,
            seed=args.seed,
            random_opening=args.random_opening or 0,
            workers=args.workers,
            trust=args.trust_model,
        )
        print(ladder.placement_line(f"{players - 1} x {opponent}", place))


def rate_on_ladder(args: argparse.Namespace, players: int) -> None:
    """The agent's rating on the ladder (members fixed), with its placements per mix."""
    rated = ladder.rate_newcomer(
        args.game,
        players,
        args.agent,
        rounds=args.rounds,
        seed=args.seed,
        random_opening=args.random_opening,
        workers=args.workers,
        trust=args.trust_model,
    )
    print("\n".join(ladder.newcomer_lines(rated)))


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        require_extra("train", "scripts/rate.py", ("openskill",))
    except MissingExtraError as exc:
        print(f"rate.py: error: {exc}", file=sys.stderr)
        return 1
    players = GAMES[args.game].default_players if args.num_players is None else args.num_players
    start = cpu_seconds()
    try:
        if args.against:
            rate_against(args, players)
        else:
            rate_on_ladder(args, players)
    except IncompleteRunError as exc:  # a worker died: keep the games played, marked
        kept = ""
        if args.csv and exc.result.games:
            kept = f"; wrote them to {exc.result.write_csv(args.csv)}"
        print(f"rate.py: error: {exc}{kept}", file=sys.stderr)
        return 1
    except ValueError as exc:
        parser.error(str(exc))
    print(f"cpu time: {(cpu_seconds() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
