"""A training result over several seeds: per-seed values, mean and 95% interval across seeds.

    python scripts/lab/seeds.py runs/mole_hill_2p_seed0 runs/mole_hill_2p_seed1
    python scripts/lab/seeds.py --values 0.62,0.71,0.80

Reads each run's final evaluation (``eval.csv``; ``--column`` another column than the win
rate) and prints per opponent every seed's value, their mean and the Student-t 95% interval
across seeds; ``--values`` summarises numbers measured elsewhere. ``--plot PNG`` draws the
runs' learning curves and their mean (matplotlib, ``train`` extra).
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.evaluation.report import curve_figure, save_curve
from tabletop_zoo.baselines.evaluation.stats import across_seeds
from tabletop_zoo.envs.extras import require_extra

RATE_COLUMNS = ("win_rate", "draw_rate", "loss_rate", "win_ci_low", "win_ci_high")


def curves(run_dir: Path, column: str) -> dict[str, dict[int, float]]:
    """Opponent -> {timesteps: ``column``} over every evaluation of the run (eval.csv)."""
    path = run_dir / "eval.csv"
    if not path.is_file():
        raise ValueError(f"{run_dir}: no eval.csv (is it a run folder of scripts/train.py?)")
    try:
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{path}: cannot be read as CSV ({cli.one_line(exc)})") from None
    if not rows:
        raise ValueError(f"{path}: no evaluation rows")
    missing = [c for c in (column, "opponent", "timesteps") if c not in rows[0]]
    if missing:
        raise ValueError(f"{path}: no column {missing[0]!r}; columns: {', '.join(rows[0])}")
    out: dict[str, dict[int, float]] = {}
    for line, r in enumerate(rows, start=2):
        try:
            value = float(r[column])
            out.setdefault(r["opponent"], {})[int(r["timesteps"])] = value
        except (TypeError, ValueError):
            raise ValueError(
                f"{path}, line {line}: timesteps {r['timesteps']!r} and {column} "
                f"{r[column]!r} must be numbers"
            ) from None
    return out


def final_evaluation(curve: dict[str, dict[int, float]]) -> tuple[int, dict[str, float]]:
    """The last timestep of a run's :func:`curves` and opponent -> value evaluated there."""
    last = max(max(points) for points in curve.values())
    return last, {opponent: points[last] for opponent, points in curve.items() if last in points}


def plot_curves(
    per_run: list[dict[str, dict[int, float]]], names: list[str], column: str, out: str
) -> None:
    """Learning curves (:func:`curves`) of several seeds: thin per seed, thick mean over
    the timesteps common to all of them."""
    fig, ax = curve_figure("scripts/lab/seeds.py --plot")
    for k, opponent in enumerate(sorted(set().union(*per_run))):
        colour = f"C{k}"
        seeds = [c[opponent] for c in per_run if opponent in c]
        for run_curve in seeds:
            steps = sorted(run_curve)
            ax.plot(steps, [run_curve[t] for t in steps], color=colour, alpha=0.35, linewidth=1)
        common = sorted(set.intersection(*(set(c) for c in seeds)))
        mean = [sum(c[t] for c in seeds) / len(seeds) for t in common]
        ax.plot(
            common,
            mean,
            color=colour,
            linewidth=2.5,
            marker="o",
            label=f"vs {opponent}: mean of {len(seeds)} seeds",
        )
    save_curve(
        fig,
        ax,
        out,
        xlabel="learner steps",
        ylabel=column,
        title=", ".join(names),
        unit_range=column in RATE_COLUMNS,
        legend_size="small",
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Mean and 95%% interval of a result across seeds.")
    p.add_argument("runs", nargs="*", type=Path, help="run folders, one per seed")
    p.add_argument("--column", default="win_rate", help="column of eval.csv (default win_rate)")
    p.add_argument("--values", default=None, help="comma-separated values instead of runs")
    p.add_argument(
        "--plot",
        type=cli.output_file(".png"),
        default=None,
        help="PNG of the runs' learning curves",
    )
    args = p.parse_args(argv)
    if args.plot is not None:  # a missing matplotlib: before reading the runs
        require_extra("train", "scripts/seeds.py --plot", ("matplotlib",))
    if (args.values is None) == (not args.runs):
        p.error("give run folders or --values (not both)")
    bounds = (0.0, 1.0) if args.column in RATE_COLUMNS else None
    if args.values is not None:
        try:
            values = [float(v) for v in args.values.split(",") if v.strip()]
        except ValueError:
            values = [math.nan]
        if not all(math.isfinite(v) for v in values):
            p.error(f"--values must be comma-separated finite numbers, got {args.values!r}")
        if not values:
            p.error("--values is empty")
        print(across_seeds(values, bounds).format())
        return 0
    try:
        per_run = [curves(run, args.column) for run in args.runs]
    except ValueError as exc:
        p.error(str(exc))
    last_steps, results = zip(*map(final_evaluation, per_run), strict=True)
    if len(set(last_steps)) > 1:
        steps = ", ".join(f"{run.name} {t}" for run, t in zip(args.runs, last_steps, strict=True))
        print(f"note: the runs' last evaluations are at different steps ({steps})")
    opponents = sorted(set().union(*results))
    print(f"{args.column} over {len(results)} seeds: mean [95% interval across seeds] (per seed)")
    for opponent in opponents:
        missing = [str(run) for run, r in zip(args.runs, results, strict=True) if opponent not in r]
        if missing:
            print(f"{opponent:>16}  not evaluated in {', '.join(missing)}")
            continue
        summary = across_seeds([r[opponent] for r in results], bounds)
        print(f"{opponent:>16}  {summary.format()}")
    if args.plot is not None:  # the name was checked before reading the runs
        plot_curves(per_run, [run.name for run in args.runs], args.column, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    cli.run_main(main)
