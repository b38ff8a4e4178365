"""Self-play speed, side by side: one game at a time (the trainer before batched self-play)
against many games in lockstep (:func:`~.self_play.play_self_play_games`).

    python scripts/lab/self_play_speed.py --game mole_hill --games 16

Plays ``--games`` self-play games three ways with one seeded random network and the same
search settings: ``serial`` (each game alone, a ``PUCTSearch`` on the Python engine),
``batched-python`` and ``batched-compiled`` (``--parallel-games`` games in lockstep, one
network call per step; the latter needs the ``fast`` extra). Prints one JSON line per way
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
from tabletop_zoo.baselines.agents.alphazero import NetworkEvaluator, game_values
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.puct import PUCTSearch
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, random_network
from tabletop_zoo.baselines.training.self_play import Record, play_self_play_games
from tabletop_zoo.envs.errors import TabletopZooError
from tabletop_zoo.envs.registry import fast_path_available, get_spec, new_game


def serial_self_play_game(
    state: Any, search: PUCTSearch, encoder: Any, cfg: AlphaZeroConfig, rng: Any
) -> list[Record]:
    """One self-play game searched alone (the trainer's self-play before batching):
    ``(planes, mask, visit distribution, relative value)`` per searched move."""
    num_actions = state.game.num_actions
    n = cfg.num_players
    records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
    moves = 0
    while not state.is_terminal() and moves < cfg.max_moves:
        legal = state.legal_actions()
        seat = state.current_player
        if len(legal) > 1:
            mask = np.zeros(num_actions, dtype=bool)
            mask[legal] = True
            if cfg.gumbel:
                root, chosen, improved = search.run_gumbel(state, cfg.gumbel_considered)
                target = np.zeros(num_actions)
                target[root.actions] = improved
                action = int(root.actions[chosen])
            else:
                root = search.run(state)
                counts = root.visit_counts(num_actions)
                target = counts / counts.sum()
                if moves < cfg.temperature_moves:
                    action = int(rng.choice(num_actions, p=target))
                else:
                    action = root.final_move()
            records.append((encoder.encode(state, seat), mask, target, seat))
        else:
            action = legal[0]
        state.apply_action(action)
        moves += 1
    returns = game_values(state, cfg.score_weight, cfg.score_scale).astype(np.float32)
    return [
        (planes, mask, target, returns[[(seat + k) % n for k in range(n)]])
        for planes, mask, target, seat in records
    ]


def _serial(net: DenseNet, cfg: AlphaZeroConfig, games: int) -> tuple[int, int]:
    """``games`` self-play games one at a time: games and decisions."""
    rng = np.random.default_rng(cfg.seed)
    search = PUCTSearch(
        NetworkEvaluator(net),
        cfg.num_simulations,
        c_puct=cfg.c_puct,
        batch_size=cfg.search_batch,
        dirichlet_alpha=None if cfg.gumbel else cfg.dirichlet_alpha,
        seed=int(rng.integers(2**31)),
    )
    game = new_game(cfg.game, cfg.num_players, **cfg.game_options)
    encoder = get_spec(cfg.game).make_observation_encoder(game)
    decisions = 0
    for _ in range(games):
        state = game.new_initial_state(int(rng.integers(2**31)))
        decisions += len(serial_self_play_game(state, search, encoder, cfg, rng))
    return games, decisions


def compare_self_play(cfg: AlphaZeroConfig, games: int, ways: list[str]) -> list[dict[str, Any]]:
    """Play ``games`` self-play games of ``cfg`` (checked) each of ``ways`` (``serial``,
    ``batched-python``, ``batched-compiled``); one row per way: games, decisions, CPU
    seconds, games and decisions per CPU-minute."""
    net = random_network(cfg, cfg.seed)
    rows = []
    warm = dataclasses.replace(cfg, num_simulations=2, max_moves=4)

    def play(way: str, cfg: AlphaZeroConfig, games: int) -> tuple[int, int]:
        if way == "serial":
            return _serial(net, cfg, games)
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
    cli.add_game_flags(p)
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
        cfg = cli.config_from_flags(
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
