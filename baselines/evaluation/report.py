"""Tournament outputs: short display names, the text table, CSV files and the chart (of a
:class:`~.tournament.TournamentResult`, the ``result`` of the functions here, which that
module calls); CSV files and figures of any view (:func:`write_rows`, :func:`save_figure`).

Display names keep tables narrow: ``ppo:runs/x/final_model.zip`` is shown as ``ppo(x)``
(the run folder), ``ppo:models/best.zip`` as ``ppo(best)``; repeated names get ``#2``,
``#3``. The full specs stay in ``standings.csv``. The tournament table fits 100 columns (a
name longer than its column keeps its start and its end); the other tables of the commands
are :func:`text_table`'s, whose columns are as wide as their names.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.evaluation.stats import ELO_INITIAL
from tabletop_zoo.envs._files import atomic_path, atomic_write

TABLE_WIDTH = 100
NAME_WIDTH = 24  # widest name column of the pairing table (two of them fit in 100 columns)
GENERIC_MODEL_STEMS = ("final_model", "model", "best_model")


def display_name(spec: str) -> str:
    """A short name for an agent spec: ``ppo:runs/x/final_model.zip`` -> ``ppo(x)``."""
    kind, sep, arg = spec.partition(":")
    if kind.strip().lower() != "ppo" or not sep or not arg:
        return spec
    path = Path(arg)
    stem = path.name[: -len(".zip")] if path.name.endswith(".zip") else path.name
    parent = path.parent.name
    if stem in GENERIC_MODEL_STEMS and parent:
        short = parent
    elif parent == "snapshots" and path.parent.parent.name:  # runs/x/snapshots/step_N.zip
        short = f"{path.parent.parent.name}/{stem}"
    else:
        short = stem
    return f"ppo({short})"


def display_names(specs: Sequence[str]) -> list[str]:
    """Display names of ``specs``: short names, ``#2``, ``#3`` for repeats.

    Two different specs that would get the same short name keep their full specs.
    """
    first = [display_name(s) for s in specs]
    short = [
        spec if any(other == name and specs[j] != spec for j, other in enumerate(first)) else name
        for spec, name in zip(specs, first, strict=True)
    ]
    return [
        name if (before := short[:i].count(name)) == 0 else f"{name}#{before + 1}"
        for i, name in enumerate(short)
    ]


def short_label(name: str, limit: int = NAME_WIDTH - 1) -> str:
    """``name`` if it has at most ``limit`` characters, else its first four characters and
    its end joined by ``~`` (``ppo(~ment_42/step_100000)``)."""
    if len(name) <= limit:
        return name
    return name[:4] + "~" + name[len(name) - (limit - 5) :]


def _fit(name: str, width: int) -> str:
    """``name`` shortened to ``width - 1`` characters, left-aligned in ``width`` columns."""
    return f"{short_label(name, width - 1):<{width}}"


def text_table(
    rows: Iterable[Sequence[Any]], header: Sequence[str] | None = None, left: int = 1
) -> list[str]:
    """The lines of a plain-text table of ``rows`` (cells shown with ``str``) under
    ``header``: every column as wide as its widest cell, so that no name breaks it, the
    first ``left`` columns aligned left and the others right, two spaces apart."""
    cells = [[str(cell) for cell in row] for row in ([header] if header else []) + list(rows)]
    widths = [max(map(len, column)) for column in zip(*cells, strict=True)]
    align = [str.ljust if i < left else str.rjust for i in range(len(widths))]
    return [
        "  ".join(pad(c, w) for pad, c, w in zip(align, row, widths, strict=True)).rstrip()
        for row in cells
    ]


def with_interval(value: float, low: float, high: float) -> str:
    """A table cell: ``value [low, high]``, two decimals."""
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def incomplete_name(path: str | Path) -> Path:
    """Where the output ``path`` of a run that stopped early goes: ``games.csv`` ->
    ``games.incomplete.csv`` (so partial results are marked, and never replace the
    complete results of an earlier run)."""
    path = Path(path)
    return path.with_name(f"{path.stem}.incomplete{path.suffix}")


def tournament_table(result: Any) -> str:
    """Pairings (win rate with its Wilson 95% CI, draw and loss rates, mean scores) and
    standings (totals, Elo with its 95% bootstrap interval), at most :data:`TABLE_WIDTH`
    columns wide."""
    w = min(NAME_WIDTH, max(10, *(len(a) + 2 for a in result.agents)))
    title = f"{result.game}, {result.num_players} players"
    if result.num_players > 2:
        title += f" (other seats: {result.filler})"
    if result.random_opening:
        title += f", every game opened by {result.random_opening} random actions"
    if result.incomplete:
        title = f"INCOMPLETE ({result.incomplete}): {title}"
    lines = [
        title,
        "",
        f"{'agent':<{w}}{'opponent':<{w}}{'games':>6}  {'win [95% CI]':<18}"
        f"{'draw':>6}{'loss':>6}{'score':>7}{'opp':>7}",
    ]
    for p in result.pairings():
        lo, hi = p.interval("wins")
        win = f"{p.rate('wins'):.2f} [{lo:.2f},{hi:.2f}]"
        lines.append(
            f"{_fit(p.agent, w)}{_fit(p.opponent, w)}{p.games:>6}  {win:<18}"
            f"{p.rate('draws'):>6.2f}{p.rate('losses'):>6.2f}"
            f"{p.mean_score:>7.2f}{p.opponent_mean_score:>7.2f}"
        )
    lines += [
        "",
        f"{'agent':<{w}}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'win%':>7}"
        f"{'score':>7}{'elo':>7} [95% CI]",
    ]
    for s in result.standings():
        rate = s.wins / s.games if s.games else 0.0
        lines.append(
            f"{_fit(s.agent, w)}{s.games:>6}{s.wins:>6}{s.draws:>6}{s.losses:>7}"
            f"{rate:>7.1%}{s.mean_score:>7.2f}{s.elo:>7.0f} [{s.elo_low:.0f},{s.elo_high:.0f}]"
        )
    return "\n".join(lines)


def write_rows(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
    """Write the CSV file ``path`` (atomically): ``header``, then ``rows``; return its path."""
    with atomic_write(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return Path(path)


def write_tournament_csv(result: Any, out_dir: str | Path) -> tuple[Path, Path, Path]:
    """Write ``pairings.csv``, ``standings.csv`` (with each agent's spec) and ``games.csv``
    (one row per game, with the number of random opening actions), each atomically; a
    result marked ``incomplete`` writes ``pairings.incomplete.csv`` etc. instead."""
    paths = [Path(out_dir) / f"{name}.csv" for name in ("pairings", "standings", "games")]
    if result.incomplete:
        paths = [incomplete_name(p) for p in paths]
    header = ["game", "num_players", "agent", "opponent", "games"]
    for outcome, count in (("win", "wins"), ("draw", "draws"), ("loss", "losses")):
        header += [count, f"{outcome}_rate", f"{outcome}_ci_low", f"{outcome}_ci_high"]
    rows = []
    for p in result.pairings():
        row = [result.game, result.num_players, p.agent, p.opponent, p.games]
        for count in ("wins", "draws", "losses"):
            lo, hi = p.interval(count)
            row += [getattr(p, count), round(p.rate(count), 6), round(lo, 6), round(hi, 6)]
        rows.append(row + [round(p.mean_score, 4), round(p.opponent_mean_score, 4)])
    write_rows(paths[0], header + ["mean_score", "opponent_mean_score"], rows)
    spec_of = dict(zip(result.agents, result.specs or result.agents, strict=True))
    header = ["agent", "spec", "games", "wins", "draws", "losses", "mean_score", "elo"]
    rows = [
        [s.agent, spec_of[s.agent], s.games, s.wins, s.draws, s.losses, round(s.mean_score, 4)]
        + [round(s.elo, 1), round(s.elo_low, 1), round(s.elo_high, 1)]
        for s in result.standings()
    ]
    write_rows(paths[1], header + ["elo_ci_low", "elo_ci_high"], rows)
    header = ["agent_a", "agent_b", "seats", "returns", "scores", "score_a", "num_steps"]
    rows = []
    for g in result.games:
        pair = result.head_to_head(g)
        row = [result.agents[pair.agent_a], result.agents[pair.agent_b], "|".join(g.seats)]
        row += ["|".join(f"{r:g}" for r in g.returns), "|".join(map(str, g.scores))]
        rows.append(row + [pair.score_a, g.steps, result.random_opening])
    write_rows(paths[2], header + ["random_opening"], rows)
    return paths[0], paths[1], paths[2]


def elo_axis_limits(elos: Sequence[float], baseline: float = ELO_INITIAL) -> tuple[float, float]:
    """x-range of the Elo panel: the baseline and every rating, with room for the labels."""
    low, high = min(*elos, baseline), max(*elos, baseline)
    margin = max(40.0, 0.3 * (high - low))  # room for the value labels beyond the bars
    return low - margin, high + margin


def pyplot(what: str) -> Any:
    """``matplotlib.pyplot`` on the Agg backend; ``MissingExtraError`` naming ``what``
    without the ``train`` extra."""
    from tabletop_zoo.envs.extras import require_extra

    require_extra("train", what, ("matplotlib",))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path) -> Path:
    """Lay out ``fig``, save it as a PNG at ``path`` (100 dpi, folders made as needed,
    atomically: a failed save keeps the previous file) and close it; return the path."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = Path(path)
    try:
        with atomic_path(path) as temporary:
            fig.savefig(temporary, dpi=100, format=path.suffix.lstrip(".").lower() or "png")
    finally:
        plt.close(fig)
    return path


def curve_figure(what: str) -> tuple[Any, Any]:
    """A 7 x 4 inch figure and its axes for a learning curve (matplotlib on the Agg
    backend; ``MissingExtraError`` naming ``what`` without the ``train`` extra)."""
    return pyplot(what).subplots(figsize=(7, 4))


def save_curve(
    fig: Any,
    ax: Any,
    png_path: str | Path,
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    unit_range: bool = True,
    legend_size: str | None = None,
) -> Path:
    """Finish a :func:`curve_figure`: labels, title, grid, legend and (for rates) the 0-1
    range; write the PNG at 100 dpi (creating its folder), close the figure, return the path."""
    if unit_range:
        ax.set_ylim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend_size)
    return save_figure(fig, png_path)


def tournament_figure(result: Any) -> Any:
    """A matplotlib figure: stacked win/draw/loss bars per pairing (win CI whiskers) and an
    Elo panel whose bars start at the average rating (1500) and carry their values."""
    plt = pyplot("the tournament chart")
    from matplotlib.ticker import MaxNLocator

    pairings = result.pairings()
    standings = result.standings()
    height = 2.0 + 0.5 * max(len(pairings), len(standings))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, height), gridspec_kw={"width_ratios": [2, 1]})
    whiskers = {"fmt": "none", "ecolor": "black", "capsize": 3}
    y = np.arange(len(pairings))
    left = np.zeros(len(pairings))
    for outcome, colour in (("wins", "tab:green"), ("draws", "tab:gray"), ("losses", "tab:red")):
        rates = np.array([p.rate(outcome) for p in pairings])
        ax1.barh(y, rates, left=left, color=colour, label=outcome)
        left += rates
    wins = np.array([p.rate("wins") for p in pairings])
    cis = np.array([p.interval("wins") for p in pairings]).reshape(-1, 2)
    ax1.errorbar(wins, y, xerr=[wins - cis[:, 0], cis[:, 1] - wins], label="win 95% CI", **whiskers)
    ax1.set_yticks(y, [f"{short_label(p.agent)} vs {short_label(p.opponent)}" for p in pairings])
    ax1.invert_yaxis()
    ax1.set_xlim(0, 1)
    ax1.set_xlabel("rate (first agent's view)")
    ax1.legend(
        loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize="small", frameon=False
    )
    fig.suptitle(f"{result.game}, {result.num_players} players")
    elos = [s.elo for s in standings]
    ys = np.arange(len(standings))
    colours = ["tab:blue" if e >= ELO_INITIAL else "tab:orange" for e in elos]
    ax2.barh(ys, [e - ELO_INITIAL for e in elos], left=ELO_INITIAL, color=colours)
    lows = np.array([s.elo_low for s in standings])
    highs = np.array([s.elo_high for s in standings])
    ends_low, ends_high = np.array(elos), np.array(elos)
    if np.isfinite(lows).all() and np.isfinite(highs).all():
        below, above = np.maximum(np.array(elos) - lows, 0), np.maximum(highs - np.array(elos), 0)
        ax2.errorbar(elos, ys, xerr=[below, above], **whiskers)
        ends_low, ends_high = np.minimum(lows, elos), np.maximum(highs, elos)
    # each value beyond the outer end of its bar and error bar, so no line crosses it
    for y, elo, low, high in zip(ys, elos, ends_low, ends_high, strict=True):
        up = elo >= ELO_INITIAL
        ax2.annotate(
            f"{elo:.0f}",
            (high if up else low, y),
            xytext=(4 if up else -4, 0),
            textcoords="offset points",
            ha="left" if up else "right",
            va="center",
            fontsize="small",
        )
    elos = [*elos, *ends_low, *ends_high]  # the axis shows the whole intervals
    ax2.axvline(ELO_INITIAL, color="black", linewidth=0.8)
    ax2.set_yticks(ys, [short_label(s.agent) for s in standings])
    ax2.invert_yaxis()
    ax2.set_xlim(*elo_axis_limits(elos))
    ax2.set_xlabel(f"Elo (average {ELO_INITIAL:.0f})")
    ax2.xaxis.set_major_locator(MaxNLocator(4))
    fig.tight_layout()
    return fig
