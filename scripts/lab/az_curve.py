"""Learning curves of AlphaZero-style training: every checkpoint against a fixed opponent.

    python scripts/lab/az_curve.py --game mole_hill --against mcts:200 --plot curve.png runs/az.npz

Plays each run's checkpoints (``--checkpoint-minutes`` of ``train-alphazero``) and final
network from every seat against ``--against`` and prints the win rate with its Wilson 95%
interval against training CPU time; ``--plot`` draws one line per run and their mean
(matplotlib).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import evaluate_agent
from tabletop_zoo.baselines.evaluation.report import curve_figure, save_curve
from tabletop_zoo.envs.extras import require_extra


def checkpoints(run: Path) -> list[tuple[float, Path]]:
    """``(CPU seconds of training, file)`` of a run's checkpoints and its final network (a
    checkpoint written at the same iteration as the final network is left out)."""
    if not run.is_file():
        raise ValueError(f"no network file {run}")
    files = sorted(run.parent.glob(f"{run.stem}_cpu*s.npz")) + [run]
    points: dict[float, Path] = {}
    for path in files:  # the final network last: it wins a tie with its own checkpoint
        history = DenseNet.load(path).meta.get("history") or []
        if not history:
            raise ValueError(f"{path}: no training history (not written by train_alphazero.py?)")
        points[float(history[-1]["cpu_seconds"])] = path
    return sorted(points.items())


def plot(curves: dict[str, list[tuple[float, float, float, float]]], title: str, out: str) -> None:
    """Win rate (with interval bands) against CPU minutes, one line per run."""
    fig, ax = curve_figure("scripts/lab/az_curve.py --plot")
    for name, points in curves.items():
        minutes = [p[0] / 60 for p in points]
        ax.plot(minutes, [p[1] for p in points], marker="o", label=name)
        ax.fill_between(minutes, [p[2] for p in points], [p[3] for p in points], alpha=0.15)
    save_curve(
        fig,
        ax,
        out,
        xlabel="training CPU minutes",
        ylabel="win rate (95% CI bands)",
        title=title,
        legend_size="small",
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="AlphaZero checkpoints against a fixed opponent.")
    p.add_argument("runs", nargs="+", type=Path, help="final network files (--out of training)")
    _flags.add_game_flags(p)
    p.add_argument(
        "--against",
        default="mcts:200",
        help=f"opponent spec (every other seat): {cli.agent_help()}",
    )
    p.add_argument("--simulations", type=cli.integer(1), default=400)
    p.add_argument("--games-per-seat", type=cli.integer(1), default=10)
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument("--plot", type=cli.output_file(".png"), default=None, help="PNG of the curves")
    args = p.parse_args(argv)
    if args.plot is not None:  # a missing matplotlib: before the games
        require_extra("train", "scripts/az_curve.py --plot", ("matplotlib",))
    with cli.usage_errors(p):  # player count, opponent, every network file: before the games
        players = cli.players(args.game, args.num_players)
        cli.check_agent(args.against, args.game, players, flag="--against")
        runs = {run.stem: checkpoints(run) for run in args.runs}
        for path in (path for points in runs.values() for _seconds, path in points):
            cli.check_agent(f"az:{path}", args.game, players, flag="runs")
    start = time.process_time()
    curves: dict[str, list[tuple[float, float, float, float]]] = {}
    print(f"{'run':<24}{'CPU min':>8}  win rate vs {args.against} [95% CI]  games")
    for name, points in runs.items():
        curves[name] = []
        for seconds, path in points:
            agent = AlphaZeroAgent(path, num_simulations=args.simulations, seed=args.seed)
            (row,) = evaluate_agent(
                agent,
                args.game,
                args.num_players,
                opponents=[args.against],
                games_per_seat=args.games_per_seat,
                seed=args.seed,
                name=name,
            )
            low, high = row.interval("wins")
            curves[name].append((seconds, row.rate("wins"), low, high))
            print(
                f"{name:<24}{seconds / 60:>8.1f}  {row.rate('wins'):.2f} [{low:.2f}, {high:.2f}]"
                f"{'':>16}{row.games:>5}",
                flush=True,
            )
    if args.plot is not None:
        title = f"{args.game}: AlphaZero ({args.simulations} simulations) vs {args.against}"
        plot(curves, title, args.plot)
        print(f"plot: {args.plot}")
    print(f"cpu time: {time.process_time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    cli.run_main(main)
