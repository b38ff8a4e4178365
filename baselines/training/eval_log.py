"""The learner's evaluations during training: rows, ``eval.csv``, the learning curve, the
final table. The games themselves are played by the evaluation layer
(:func:`tabletop_zoo.baselines.evaluation.evaluate_agent`: every seat, seat by seat)."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.checks import SEED_LIMIT
from tabletop_zoo.baselines.evaluation.report import curve_figure, save_curve, text_table
from tabletop_zoo.baselines.evaluation.stats import PairingStats
from tabletop_zoo.baselines.evaluation.tournament import evaluate_agent
from tabletop_zoo.envs._files import write_bytes_atomic, write_text_atomic

EVAL_OPPONENTS = ("random", "greedy")


@dataclass
class EvalRow(PairingStats):
    """The learner's :class:`PairingStats` against one opponent (all seats), at ``timesteps``."""

    timesteps: int = 0

    @property
    def win_rate(self) -> float:
        """Fraction of games won (sole top scorer)."""
        return self.rate("wins")

    def as_dict(self) -> dict[str, Any]:
        """CSV row with rates and Wilson 95% CI of the win rate."""
        lo, hi = self.interval("wins")
        return {
            "timesteps": self.timesteps,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 6),
            "win_ci_low": round(lo, 6),
            "win_ci_high": round(hi, 6),
            "draw_rate": round(self.rate("draws"), 6),
            "loss_rate": round(self.rate("losses"), 6),
            "mean_score": round(self.mean_score, 4),
            "opponent_mean_score": round(self.opponent_mean_score, 4),
        }


EVAL_FIELDS = list(EvalRow("learner", "", 1, 0, 0, 0, 0.0, 0.0).as_dict())


def format_eval_table(rows: Sequence[PairingStats]) -> str:
    """Plain-text win/draw/loss table (rates with the 95% CI of the win rate) of ``rows``
    (:class:`EvalRow`, or the ``PairingStats`` of an evaluation)."""
    cells = []
    for r in rows:
        rates = [f"{r.rate(outcome):.2f}" for outcome in ("wins", "draws", "losses")]
        scores = [f"{r.mean_score:.2f}", f"{r.opponent_mean_score:.2f}"]
        cells.append(
            (r.opponent, r.games, *rates, "[{:.2f}, {:.2f}]".format(*r.interval("wins")), *scores)
        )
    header = ("opponent", "games", "win", "draw", "loss", "win 95% CI", "score", "opp")
    return "\n".join(text_table(cells, header))


def append_eval_csv(path: str | Path, rows: Sequence[EvalRow]) -> None:
    """Append rows to an eval CSV (header written when the file is new). The file is
    rewritten whole, atomically: a failed write keeps the rows written before."""
    path = Path(path)
    old = path.read_bytes() if path.exists() else b""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=EVAL_FIELDS)
    if not old:
        writer.writeheader()
    writer.writerows(row.as_dict() for row in rows)
    write_bytes_atomic(path, old + text.getvalue().encode())


def keep_rows_until(path: Path, column: str, steps: int) -> str:
    """Drop the CSV rows whose ``column`` is over ``steps``; the text kept ("": no file)."""
    if not path.is_file():
        return ""
    header, *rows = path.read_text().splitlines(keepends=True)
    at = header.rstrip("\n").split(",").index(column)
    text = header + "".join(r for r in rows if float(r.split(",")[at] or 0) <= steps)
    write_text_atomic(path, text)
    return text


def plot_learning_curve(
    eval_csv: str | Path, png_path: str | Path, title: str = "", resumed_at: Sequence[int] = ()
) -> Path:
    """Win rate (with Wilson 95% band) against each opponent over timesteps, as PNG; a
    dashed line at each step in ``resumed_at`` (where the run resumed from a checkpoint)."""
    fig, ax = curve_figure("the learning curve")
    series: dict[str, list[tuple[int, float, float, float]]] = {}
    with Path(eval_csv).open() as f:
        for row in csv.DictReader(f):
            rates = (float(row[name]) for name in ("win_rate", "win_ci_low", "win_ci_high"))
            series.setdefault(row["opponent"], []).append((int(row["timesteps"]), *rates))
    for opponent, points in series.items():
        points.sort()
        t, w, lo, hi = (np.array(v) for v in zip(*points, strict=True))
        ax.plot(t, w, marker="o", label=f"vs {opponent}")
        ax.fill_between(t, lo, hi, alpha=0.2)
    for i, step in enumerate(resumed_at):
        ax.axvline(step, color="grey", linestyle="--", label=None if i else "resumed")
    return save_curve(
        fig,
        ax,
        png_path,
        xlabel="timesteps",
        ylabel="win rate (all seats)",
        title=title or "learning curve",
    )


def run_evaluation(model: Any, cfg: Any, timesteps: int, games_per_seat: int) -> list[EvalRow]:
    """Evaluate ``model`` (deterministic, masked) against random and greedy from every seat;
    append the rows to ``run_dir/eval.csv`` and redraw ``run_dir/learning_curve.png``."""
    from tabletop_zoo.baselines.agents.ppo import PPOAgent

    learner = PPOAgent(model, deterministic=True, name="learner")
    seed = (cfg.seed + 1_000_003 + timesteps) % SEED_LIMIT
    stats = evaluate_agent(
        learner,
        cfg.game,
        cfg.num_players,
        EVAL_OPPONENTS,
        games_per_seat,
        seed=seed,
        env_kwargs=cfg.env_kwargs,
    )
    rows = [EvalRow(**dataclasses.asdict(s), timesteps=timesteps) for s in stats]
    append_eval_csv(path := cfg.run_dir / "eval.csv", rows)
    title = f"{cfg.name}: {cfg.game}, {cfg.num_players} players"
    plot_learning_curve(path, cfg.run_dir / "learning_curve.png", title, cfg.resumed_at)
    return rows
