"""The leaderboard across libraries (docs/leaderboard.md), written from the runs' outputs,
and the tutorials' table (docs/tutorials/README.md, between its markers)::

    python scripts/lab/leaderboard.py entry --agent SPEC --budget env_steps=N --cpu-seconds S ...
    python scripts/lab/leaderboard.py write runs/tutorials/*/result.json DIR/result.json
    python scripts/lab/leaderboard.py tutorials runs/tutorials/*/result.json

A row is a ``result.json`` in the tutorials' schema (docs/tutorials/README.md: library,
algorithm, budget, CPU-seconds, win rates against random and greedy with their chance level)
and, beside it, the ``rating/`` folder of ``tabletop-zoo rate --out`` on the shipped ladder:
the rating is fitted again from that ``games.jsonl``, the members keeping their published
ratings, as ``rate`` fits it. ``entry`` makes both for an agent spec of ours (the reference
models, a ``ppo:`` file of ``tabletop-zoo train``, an ``az:`` file, a ``py:`` factory): its
win rates (the kit of :mod:`~tabletop_zoo.baselines.evaluation.outside`) and its rating, with
the training budget given by flags. A missing or corrupt file is one line (exit 2).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

from tabletop_zoo import __version__
from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.reference import ladder_entry, load_manifest
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import game_log, outside, outside_results
from tabletop_zoo.baselines.evaluation.ladder import fixed_ratings
from tabletop_zoo.baselines.evaluation.seating import SeatedResult
from tabletop_zoo.envs._files import write_text_atomic
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES

FIELDS = ("library", "algorithm", "game", "num_players", "command", "budget", "cpu_seconds")
INTRO = """# Leaderboard

Agents trained with different libraries on one scale, per game and player count. Win rates
are sole first places against uniformly random or greedy players in every other seat, seats
rotating, with Wilson 95% intervals (wins / games); the chance level is a uniformly random
player's under the same protocol. The rating is the Plackett-Luce `mu` on the shipped ladder
([results.md](results.md#ladders-and-ratings); 95%: `mu +- 1.96 sigma`), fitted from the
`tabletop-zoo rate` games beside each result, the members keeping their ratings. The budget
is the training's CPU-seconds and steps as each run reports them; the command trained it.
Written by `python scripts/lab/leaderboard.py write` from each run's `result.json`
([how](results.md#leaderboard))."""
TABLE_BEGIN = "<!-- results table: written by scripts/lab/leaderboard.py tutorials -->"
TABLE_END = "<!-- end of the results table -->"
HEADER = (
    "| library | algorithm | training CPU-s | budget | against random [95%] | against greedy "
    "[95%] | rating [95%] | command | made |\n|---|---|---:|---:|---|---|---|---|---|"
)


def rating(folder: Path) -> Any:
    """The rating on the shipped ladder of the newcomer of a ``rate --out`` folder, fitted
    again from its games; ``None`` if there is no such folder."""
    if not folder.is_dir():
        return None
    config, games, where = game_log.read_games(folder, "rating")
    if config.get("command") != "rate" or config.get("against"):
        raise InvalidOptionError(f"{where} is no rating on a ladder (rate without --against)")
    game, players, specs = config["game"], config["num_players"], config["specs"]
    ladder = ladder_entry(game, players)
    if specs[1:] != list(ladder["members"]):
        raise InvalidOptionError(f"{where} was rated on another ladder than the shipped one")
    records = [games[key] for key in sorted(games)]
    result = SeatedResult(game, players, specs, records, config["random_opening"])
    return result.ratings(fixed=fixed_ratings(ladder))[0]


def row(result: dict, rated: Any) -> str:
    """The Markdown row of one ``result.json`` and its rating (``None``: not rated)."""
    library, versions = result["library"], result.get("versions", {})
    lower = {name.lower(): version for name, version in versions.items()}
    rest = [f"{n} {v}" for n, v in versions.items() if n not in ("torch", "tabletop-zoo")]
    named = f"{library} {lower[library.lower()]}" if library.lower() in lower else library
    named += f" ({', '.join(rest)})" if library.lower() not in lower and rest else ""
    cpu = f"{result['cpu_seconds']['training']:,.0f}"
    cells = [named, result["algorithm"], cpu]
    cells.append(outside_results.budget_cell(result["budget"]))
    cells += [outside_results.win_cell(result.get(key)) for key in ("after", "greedy")]
    made = f"{result.get('date', '-')}, {result.get('cpu', '-')}"
    return (
        "| " + " | ".join([*cells, str(rated or "-"), f"`{result['command'] or '-'}`", made]) + " |"
    )


def load(path: str) -> tuple[dict, Any]:
    """A ``result.json`` with the fields a row needs, and the rating beside it
    (:func:`rating`); ``InvalidOptionError`` in one line."""
    try:
        result = json.loads(Path(path).read_text())
        missing = [f for f in (*FIELDS, "after", "chance") if f not in result]
    except (OSError, ValueError, TypeError) as exc:
        raise InvalidOptionError(f"{path}: not a result.json ({cli.one_line(exc)})") from None
    if missing:
        raise InvalidOptionError(f"{path}: not a result.json (no {', '.join(missing)})")
    budget_of(result["budget"], path)
    return result, rating(Path(path).parent / "rating")


def budget_of(budget: Any, where: str) -> dict:
    """``budget`` if it is an object of numbers >= 0 (``env_steps``, ...), else
    ``InvalidOptionError``."""
    numbers = isinstance(budget, dict) and all(
        type(v) in (int, float) and v >= 0 for v in budget.values()
    )
    if not numbers:
        raise InvalidOptionError(f"{where}: the budget must be numbers >= 0, got {budget!r}")
    return budget


def write(paths: list[str], out: str) -> str:
    """The page of every result: a section per game and player count, the rated rows first,
    by rating."""
    results = [load(path) for path in paths]
    lines = [INTRO]
    for game, players in sorted({(r["game"], r["num_players"]) for r, _ in results}):
        group = [
            (r, rated) for r, rated in results if (r["game"], r["num_players"]) == (game, players)
        ]
        group.sort(key=lambda pair: -pair[1].value if pair[1] else float("inf"))
        lines += [f"\n## {GAMES[game].title}, {players} players\n"]
        lines += [f"Chance level: {outside_results.win_cell(group[0][0]['chance'])}.\n", HEADER]
        lines += [row(result, rated) for result, rated in group]
    write_text_atomic(out, "\n".join(lines) + "\n")
    return f"wrote {out} ({len(results)} rows)"


def tutorials(paths: list[str], page: str) -> str:
    """The tutorials' table in ``page``, between its markers, a row per result."""
    results = sorted(map(outside_results.read_result, paths), key=lambda r: r["tutorial"])
    text = Path(page).read_text()
    start, end = text.find(TABLE_BEGIN + "\n"), text.find("\n" + TABLE_END)
    if start < 0 or end < start:
        raise InvalidOptionError(f"{page} has no {TABLE_BEGIN} ... {TABLE_END} to write between")
    table = "\n".join([outside_results.HEADER, *map(outside_results.result_row, results)])
    write_text_atomic(page, text[: start + len(TABLE_BEGIN) + 1] + table + "\n" + text[end:])
    return f"wrote the table of {len(results)} results into {page}"


def entry(args: argparse.Namespace) -> str:
    """``result.json`` and ``rating/`` of one agent of ours in ``args.out``."""
    from tabletop_zoo.baselines.commands import command_module

    players = cli.players(args.game, args.num_players)  # every flag before the work
    cli.check_agent(args.agent, args.game, players, flag="--agent")
    budget = budget_of(cli.key_values(args.budget, "--budget"), "--budget")
    kind, name = args.agent.partition(":")[::2]
    model = load_manifest()["models"].get(name, {}) if kind == "ref" else {}
    command = args.command or model.get("training_command", "").partition(" (")[0]
    options = {"num_players": players, "games": args.games, "seed": args.seed}
    win_rates = {
        opponent: outside.win_rate(args.agent, args.game, opponent=opponent, **options)
        for opponent in ("random", "greedy")
    }
    argv = ["--game", args.game, "--num-players", str(players), "--agent", args.agent]
    argv += ["--rounds", str(args.rounds), "--seed", str(args.seed), "--out", f"{args.out}/rating"]
    if command_module("rate").main(argv):
        raise InvalidOptionError(f"rating {args.agent} failed")
    result = {
        "library": args.library,
        "versions": {args.library: __version__} if args.library == "tabletop-zoo" else {},
        "algorithm": args.algorithm,
        "game": args.game,
        "num_players": players,
        "command": command,
        "seed": args.seed,
        "budget": budget,
        "cpu_seconds": {"training": args.cpu_seconds},
        "chance": outside.chance_level(args.game, **options),
        "after": win_rates["random"],
        "greedy": win_rates["greedy"],
        "policy": args.agent,
        "cpu": outside_results.cpu_name(),
        "date": datetime.date.today().isoformat(),
    }
    return f"wrote {outside.write_result(Path(args.out, 'result.json'), result)}"


def main(argv: list[str] | None = None) -> int:
    """``entry``, ``write`` or ``tutorials``; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command_name", required=True)
    page = commands.add_parser("write", help="write the page from result.json files")
    page.add_argument("results", nargs="+", help="result.json files (a rating/ folder beside)")
    page.add_argument("--out", default="docs/leaderboard.md")
    table = commands.add_parser("tutorials", help="write the tutorials' table from result.json")
    table.add_argument("results", nargs="+", help="the tutorials' result.json files")
    table.add_argument("--page", default="docs/tutorials/README.md")
    one = commands.add_parser("entry", help="evaluate and rate an agent of ours into --out")
    one.add_argument(
        "--agent",
        required=True,
        help="agent spec (ref:NAME, ppo:PATH, az:PATH, py:FILE:FACTORY, ...)",
    )
    _flags.add_game_flags(one)
    for flag, default in (("--library", "tabletop-zoo"), ("--algorithm", "MaskablePPO self-play")):
        one.add_argument(flag, default=default)
    one.add_argument("--command", default=None, help="the training command (ref: the manifest's)")
    one.add_argument(
        "--budget",
        action="append",
        required=True,
        metavar="KEY=N",
        help="the training's budget: env_steps=N or self_play_games=N (repeatable)",
    )
    one.add_argument("--cpu-seconds", type=cli.number(0), required=True, help="training CPU-s")
    one.add_argument("--games", type=cli.integer(1), default=200, help="games per opponent")
    one.add_argument("--rounds", type=cli.integer(1), default=2, help="rate's --rounds")
    one.add_argument("--seed", type=cli.SEED, default=0)
    one.add_argument("--out", required=True, help="folder: result.json and rating/")
    args = parser.parse_args(argv)
    with cli.usage_errors(parser, (ValueError, OSError)):
        if args.command_name == "tutorials":
            print(tutorials(args.results, args.page))
        else:
            print(write(args.results, args.out) if args.command_name == "write" else entry(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
