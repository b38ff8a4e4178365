"""Self-play speed, side by side: one game at a time (the trainer before batched self-play)
against many games in lockstep (:func:`~.self_play.play_self_play_games`).

    python scripts/lab/self_play_speed.py --game mole_hill --games 16

Plays ``--games`` self-play games three ways with one seeded random network and the same
search settings: ``serial`` (one game at a time on the Python engine, ``--search-batch``
leaves per network call, as the AlphaZero agent searches), ``batched-python`` and
``batched-compiled`` (``--parallel-games`` games in lockstep, one network call per step;
the latter needs the ``fast`` extra). Prints one JSON line per way
(games and decisions per CPU-minute of this process, after one untimed warm-up game) and
the ratio.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split

import argparse
import dataclasses
import json
import time
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, random_network
from tabletop_zoo.baselines.training.self_play import play_self_play_games
from tabletop_zoo.envs.errors import TabletopZooError
from tabletop_zoo.envs.registry import fast_path_available, get_spec


def compare_self_play(cfg: AlphaZeroConfig, games: int, ways: list[str]) -> list[dict[str, Any]]:
    """Play ``games`` self-play games of ``cfg`` (checked) each of ``ways`` (``serial``,
    ``batched-python``, ``batched-compiled``); one row per way: games, decisions, CPU
    seconds, games and decisions per CPU-minute."""
    net = random_network(cfg, cfg.seed)
    rows = []
    warm = dataclasses.replace(cfg, num_simulations=2, max_moves=4)

    def play(way: str, cfg: AlphaZeroConfig, games: int) -> tuple[int, int]:
        if way == "serial":  # one game at a time, as the one-game search of the agent
            cfg = dataclasses.replace(cfg, parallel_games=1, leaves_per_game=cfg.search_batch)
        rng = np.random.default_rng(cfg.seed)
        _, stats = play_self_play_games(net, cfg, games, rng, fast=way == "batched-compiled")
        return stats.games, stats.decisions

    for way in ways:
        play(way, warm, 1)  # untimed: loads the compiled code (once per process)
        start = time.process_time()
        played, decisions = play(way, cfg, games)
        seconds = time.process_time() - start
        rows.append(
            {
                "way": way,
                "games": played,
                "decisions": decisions,
                "cpu_seconds": round(seconds, 2),
                "games_per_cpu_minute": round(60 * played / seconds, 2),
                "decisions_per_cpu_minute": round(60 * decisions / seconds, 1),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description="Self-play games per CPU-minute, side by side.")
    _flags.add_game_flags(p)
    p.add_argument("--games", type=cli.integer(1), default=16)
    p.add_argument("--parallel-games", type=cli.integer(1), default=16)
    p.add_argument("--leaves-per-game", type=cli.integer(1), default=1)
    p.add_argument("--simulations", type=cli.integer(1), default=32)
    p.add_argument("--search-batch", type=cli.integer(1), default=8)
    p.add_argument("--max-moves", type=cli.integer(1), default=500)
    p.add_argument("--hidden", type=cli.layer_sizes, default=(128, 128), help="e.g. 128,128")
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument("--skip-serial", action="store_true", help="only the batched ways")
    args = p.parse_args(argv)
    with cli.usage_errors(p, (TabletopZooError,)):
        cfg = _flags.call(
            AlphaZeroConfig, args, num_simulations=args.simulations, out="runs/unused.npz"
        ).check()  # nothing is written
    limit_threads()
    ways = [] if args.skip_serial else ["serial"]
    ways.append("batched-python")
    if fast_path_available() and get_spec(cfg.game).fast_engine is not None:
        ways.append("batched-compiled")
    rows = compare_self_play(cfg, args.games, ways)
    for row in rows:
        print(json.dumps(row))
    if rows[0]["way"] == "serial":
        base = rows[0]["games_per_cpu_minute"]
        ratios = {row["way"]: round(row["games_per_cpu_minute"] / base, 2) for row in rows[1:]}
        print(json.dumps({"games_per_cpu_minute_over_serial": ratios}))


if __name__ == "__main__":
    cli.run_main(main)
