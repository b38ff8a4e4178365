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

from tabletop_zoo.baselines.agents.reference import ladder_entry
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.ratings import anchored_elo
from tabletop_zoo.baselines.evaluation.seating import lineups, play_lineups
from tabletop_zoo.baselines.evaluation.stats import head_to_head
from tabletop_zoo.baselines.extras import MissingExtraError, require_extra
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
    return p


PLACEMENT_HEADER = " games  1st share [95%]   mean rank  score [95%]"


def _placement_line(label: str, placement) -> str:
    low, high = placement.interval()
    score_low, score_high = placement.score_interval()
    return (
        f"{label:<44}{placement.games:>6}  {placement.first_share:.2f} [{low:.2f}, {high:.2f}]"
        f"{placement.mean_rank:>8.2f}"
        f"     {placement.score:.2f} [{score_low:.2f}, {score_high:.2f}]"
    )


def rate_against(args: argparse.Namespace, players: int) -> None:
    """Placements of the agent against each ``--against`` field."""
    print(f"{'opponents (every other seat)':<44}{PLACEMENT_HEADER}")
    for opponent in args.against:
        result = play_lineups(
            args.game,
            [args.agent, opponent],
            [(0,) + (1,) * (players - 1)],
            rounds=args.rounds,
            num_players=players,
            seed=args.seed,
            random_opening=args.random_opening or 0,
            workers=args.workers,
        )
        place = result.placements()[0]
        print(_placement_line(f"{players - 1} x {opponent}", place))


def rate_on_ladder(args: argparse.Namespace, players: int) -> None:
    """The agent's rating on the ladder (members fixed), with its placements per mix."""
    ladder = ladder_entry(args.game, players)
    members = list(ladder["members"])
    specs = [args.agent, *members]
    designs = lineups(len(specs), players, focus=0)
    result = play_lineups(
        args.game,
        specs,
        designs,
        rounds=args.rounds,
        num_players=players,
        seed=args.seed,
        random_opening=(
            ladder.get("random_opening", 0) if args.random_opening is None else args.random_opening
        ),
        workers=args.workers,
    )
    fixed = {
        i + 1: (ladder["members"][m]["mu"], ladder["members"][m]["sigma"])
        for i, m in enumerate(members)
    }
    rating = result.ratings(fixed=fixed)[0]
    print(f"{'opponents (mix)':<44}{PLACEMENT_HEADER}")
    for lineup in designs:
        label = " + ".join(specs[i] for i in lineup[1:])
        print(_placement_line(label, result.placements(lineup)[0]))
    print(_placement_line("all", result.placements()[0]))
    print()
    rows = [(m, ladder["members"][m]["mu"], ladder["members"][m]["sigma"]) for m in members]
    rows.append((f"{args.agent}  <- rated now", rating.value, rating.sigma))
    if players == 2 and all("elo" in ladder["members"][m] for m in members):
        results = []
        for game in result.games:
            seat = game.seats.index(0)
            other = 1 - seat
            score = head_to_head(game.returns, game.scores, seat, other)
            results.append((ladder["members"][members[game.seats[other] - 1]]["elo"], score))
        elo = anchored_elo(results)
        print(f"Elo on the ladder: {elo}")
    print(f"ladder {args.game}-{players}p (Plackett-Luce mu, 95% interval mu +- 1.96 sigma):")
    for name, mu, sigma in sorted(rows, key=lambda r: -r[1]):
        print(f"  {name:<48}{mu:>7.1f}  [{mu - 1.96 * sigma:.1f}, {mu + 1.96 * sigma:.1f}]")
    print(f"rating of {args.agent}: {rating}  ({len(result.games)} games)")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
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
    except ValueError as exc:
        parser.error(str(exc))
    print(f"cpu time: {(cpu_seconds() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
