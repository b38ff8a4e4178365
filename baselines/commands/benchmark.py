"""Speed of random legal play: our envs (every game at each of its ``benchmark_players``
counts) against the PettingZoo games named as their anchors (``GameSpec.benchmark_anchor``).

Every env is the wrapped ``env()`` driven through the full AEC loop by one seeded policy;
*steps* counts every ``step`` call (``step(None)`` too), timed from the first ``reset`` to
the first game that ends after ``--seconds``, after an untimed game. ``engine`` rows play
the bare rules engine; ratios divide by each anchor's steps/s in the same run. The fast
path rows (docs/fast.md) are :mod:`._benchmark_fast`'s.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.commands._benchmark_fast import (
    FAST_ROW_NAMES,
    fast_rows,
    measure,
    play_engine_game,
)
from tabletop_zoo.envs._files import write_text_atomic
from tabletop_zoo.envs.extras import install_command
from tabletop_zoo.envs.registry import GAMES, make_env, new_game

# How an anchor module is built and shown; anchors not listed use env() and their module name.
ANCHOR_SETTINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "pettingzoo.classic.go_v5": ("go_v5 (9x9)", {"board_size": 9}),
}


def _anchor_env(module: str, **kwargs: Any) -> Any:
    """The env of the PettingZoo env ``module``."""
    with warnings.catch_warnings():  # PettingZoo asks to use its registry instead
        warnings.simplefilter("ignore")
        return importlib.import_module(module).env(**kwargs)


def env_rows() -> dict[str, tuple[Callable[[], Any], tuple[str, int] | None]]:
    """Name -> (factory, ``(game, num_players)`` for our envs, ``None`` for anchors)."""
    rows: dict[str, tuple[Callable[[], Any], tuple[str, int] | None]] = {
        spec.label(n): (functools.partial(make_env, name, n), (name, n))
        for name, spec in GAMES.items()
        for n in spec.benchmark_players
    }
    for module in dict.fromkeys(s.benchmark_anchor for s in GAMES.values() if s.benchmark_anchor):
        name, kwargs = ANCHOR_SETTINGS.get(module, (module.rsplit(".", 1)[-1], {}))
        rows[name] = (functools.partial(_anchor_env, module, **kwargs), None)
    return rows


ENVS = env_rows()
REFERENCES = tuple(name for name, (_factory, ours) in ENVS.items() if ours is None)


def play_aec_game(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game through the AEC loop; returns the number of ``step`` calls."""
    steps = 0
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


def ratio_key(reference: str) -> str:
    """JSON key of the ratio to ``reference``, e.g. ``ratio_go_v5``."""
    return "ratio_" + reference.split()[0]


def run(seconds: float, seed: int, only: list[str] | None = None) -> dict:
    """Measure every env (and our engines); returns the JSON-ready report."""
    rows: list[dict] = []
    notes: list[str] = []
    for name, (factory, ours) in ENVS.items():
        if only and not any(o in name for o in only) or only == ["batched"]:
            continue
        try:
            env = factory()
        except Exception as exc:
            hint = f" (install the 'bench' extra: {install_command('bench')})"
            notes.append(
                f"skipped {name}: {type(exc).__name__}: {exc}"
                + (hint if isinstance(exc, ImportError) else "")
            )
            continue
        result = measure(lambda rng, s, env=env: play_aec_game(env, rng, s), seconds, seed)
        rows.append({"name": name, "kind": "env", **result})
        env.close()
        if ours is not None:
            game = new_game(*ours)
            result = measure(lambda rng, s, g=game: play_engine_game(g, rng, s), seconds, seed)
            rows.append({"name": f"{name} engine", "kind": "engine", **result})
    if only is None or "batched" in only or any(o in name for o in only for name in FAST_ROW_NAMES):
        more, more_notes = fast_rows(seconds, seed, only)
        rows += more
        notes += more_notes
    by_name = {r["name"]: r for r in rows}
    for row in rows:
        for ref in REFERENCES:
            row[ratio_key(ref)] = (
                row["steps_per_s"] / by_name[ref]["steps_per_s"] if ref in by_name else None
            )
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "cpus": os.cpu_count(),
        },
        "seconds_per_measurement": seconds,
        "seed": seed,
        "results": rows,
        "notes": notes,
    }


def format_table(report: dict) -> str:
    """The report as a plain-text table (one ratio column per anchor)."""
    width = max([24] + [len(r["name"]) + 2 for r in report["results"]])
    lines = [
        f"{'name':<{width}}{'steps/s':>11}{'games/s':>10}{'steps/game':>11}"
        + "".join(f"{'vs ' + ref.split()[0]:>19}" for ref in REFERENCES)
        + f"{'steps/cpu-s':>14}"
    ]
    for r in report["results"]:
        if r["kind"] == "mcts":
            continue
        ratios = [r.get(ratio_key(ref)) for ref in REFERENCES]
        lines.append(
            f"{r['name']:<{width}}{r['steps_per_s']:>11,.0f}{r['games_per_s']:>10,.1f}"
            f"{r['steps_per_game']:>11.1f}"
            + "".join(f"{'' if x is None else f'{x:.2f}x':>19}" for x in ratios)
            + (f"{r['steps_per_cpu_s']:>14,.0f}" if r.get("steps_per_cpu_s") else "")
        )
    for r in report["results"]:
        if r["kind"] == "mcts":
            lines.append(
                f"{r['name']:<{width}}{r['seconds_per_move']:>11.4f} s/move"
                f"{r['cpu_seconds_per_move']:>11.4f} cpu-s/move"
            )
    load = report["machine"].get("load_average")
    if load:
        lines.append(
            f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in load)}"
        )
    lines += report["notes"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(description="Random-play speed of the AEC envs and engines.")
    p.add_argument(
        "--seconds",
        type=cli.number(0, low_open=True),
        default=5.0,
        help="per measurement (default 5)",
    )
    p.add_argument("--seed", type=cli.SEED, default=0, help="seed of the random play (default 0)")
    p.add_argument(
        "--out", type=cli.output_file(), help="also write the report as JSON to this file"
    )
    p.add_argument("--quick", action="store_true", help="0.2 s per measurement (tests)")
    p.add_argument(
        "--only",
        help="comma separated substrings of row names to measure, e.g. engine,go; "
        "'batched' alone: every fast-path row (default all)",
    )
    args = p.parse_args(argv)
    seconds = 0.2 if args.quick else args.seconds
    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    if only and not any(o in name for o in only for name in [*ENVS, *FAST_ROW_NAMES]):
        p.error(f"--only {args.only!r} matches no env; names: {', '.join(ENVS)}")
    try:
        report = run(seconds, args.seed, only)
    except KeyboardInterrupt:
        raise cli.Interrupted("no report written") from None
    print(format_table(report))
    if args.out is not None:
        write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0
