"""The ``result.json`` of a training done with another library (each tutorial of
``docs/tutorials/`` writes one; its fields in ``docs/tutorials/README.md``): the fields that
record the run (:func:`run_record`), the whole result written and shown (:func:`report`), the
rating of its policy (:func:`rate_on_ladder`),
reading one back (:func:`read_result`), and its row of the tutorials' table
(:func:`result_row`; ``scripts/lab/leaderboard.py`` writes the table and the leaderboard,
with :func:`win_cell`)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.outside import write_result
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import get_spec

METRIC = "win rate against uniformly random players, seats rotating; a win is a sole first place"
RATES = ("chance", "before", "after")
FIELDS = (
    *"tutorial library versions algorithm game num_players command seed budget".split(),
    *"cpu_seconds env_share metric policy model cpu date".split(),
    *RATES,
)
HEADER = (
    "| tutorial | versions | game | algorithm | budget | training CPU-s | env share | chance "
    "| before | after |\n|---|---|---|---|---|---:|---:|---|---|---|"
)


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what the platform calls it."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.is_file() else []
    names = [line.partition(":")[2].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor() or platform.machine()


def run_record(script: str | Path, packages: Sequence[str]) -> dict[str, Any]:
    """The fields of a tutorial's result that describe its run: the tutorial (``script``, a
    file of ``docs/tutorials/``), the versions of ``packages``, torch and tabletop-zoo, the
    command as run, the metric, the ``py:`` spec of its policy, the CPU and the date."""
    name = Path(script).name
    return {
        "tutorial": name,
        "versions": {p: metadata.version(p) for p in [*packages, "torch", "tabletop-zoo"]},
        "command": shlex.join(["python", f"docs/tutorials/{name}", *sys.argv[1:]]),
        "metric": METRIC,
        "policy": f"py:docs/tutorials/{name}:policy",
        "cpu": cpu_name(),
        "date": datetime.date.today().isoformat(),
    }


def report(
    script: str | Path,
    packages: Sequence[str],
    training: Any,
    rates: Mapping[str, Any],
    **fields: Any,
) -> dict[str, Any]:
    """A tutorial's result: :func:`run_record`, then ``fields`` (``library``, ``algorithm``,
    ``game``, ``num_players``, ``seed``, ``budget``, ``model``; a ``metric`` of its own), the
    CPU-seconds and env share of ``training`` (an ``outside.CpuShare``) and the ``rates``
    (``chance``, ``before``, ``after``, ``greedy`` when measured); written as ``result.json``
    beside ``model``, and its three lines printed."""
    cost = {"training": training.cpu_seconds, "total": cpu_seconds()}
    result = {**run_record(script, packages), **fields, "cpu_seconds": cost}
    result.update(env_share=training.env_share, **rates, model=str(fields["model"]))
    write_result(Path(fields["model"]).parent / "result.json", result)
    greedy = f"; against greedy {rates['greedy']}" if "greedy" in rates else ""
    print(f"win rate against random players, seats rotating (Wilson 95%), chance {rates['chance']}")
    print(f"  before {rates['before']}\n  after  {rates['after']}{greedy}")
    print(f"training: {training.cpu_seconds:.1f} CPU-s, {training.env_share:.0%} of it in our env")
    return result


def rate_on_ladder(script: str | Path, result: Mapping[str, Any], against: str | None) -> None:
    """Rate the trained model of a tutorial's ``result`` (:func:`report`) on the shipped
    ladder of its game and player count through its ``py:`` spec (the clone's
    ``scripts/rate.py``, ``TUTORIAL_MODEL`` naming the model), the games in ``rating/``
    beside it; ``against`` a spec: against that one player, one round."""
    model = Path(result["model"])
    rate = ["--game", result["game"], "--num-players", str(result["num_players"])]
    rate += ["--agent", f"py:{script}:policy", "--no-progress", "--out", f"{model.parent}/rating"]
    rate += ["--against", against, "--rounds", "1"] if against else []
    command = [sys.executable, str(Path(script).resolve().parents[2] / "scripts" / "rate.py")]
    subprocess.run([*command, *rate], env={**os.environ, "TUTORIAL_MODEL": str(model)}, check=True)


def read_result(path: str | Path) -> dict[str, Any]:
    """A tutorial's ``result.json`` with every field of :data:`FIELDS` and the win rates and
    numbers its row shows; else :class:`InvalidOptionError` in one line."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InvalidOptionError(f"{path}: cannot read a result: {exc}") from None
    missing = [f for f in FIELDS if f not in data] if isinstance(data, dict) else ["object"]
    if missing:
        raise InvalidOptionError(f"{path}: not a tutorial's result.json (no {', '.join(missing)})")
    try:
        result_row(data)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise InvalidOptionError(f"{path}: a field of the wrong kind ({exc!r})") from None
    return data


def win_cell(rate: Mapping[str, Any] | None, counts: bool = True) -> str:
    """A win rate as ``0.97 [0.94, 0.99] (194/200)`` (``counts=False``: without the
    counts); ``-`` for none."""
    if rate is None:
        return "-"
    cell = f"{rate['rate']:.2f} [{rate['low']:.2f}, {rate['high']:.2f}]"
    return f"{cell} ({rate['wins']}/{rate['games']})" if counts else cell


def budget_cell(budget: Mapping[str, Any]) -> str:
    """``80,000 env steps``: a result's budget."""
    return ", ".join(f"{n:,} {key.replace('_', ' ')}" for key, n in budget.items())


def result_row(result: Mapping[str, Any], link: str = "") -> str:
    """The row (:data:`HEADER`'s columns) of a tutorial's result; ``link``: the folder its
    name links into."""
    name = result["tutorial"]
    versions = ", ".join(f"{lib} {ver}" for lib, ver in result["versions"].items())
    cells = [
        f"[{name}]({link}{name})",
        versions,
        f"{get_spec(result['game']).title}, {result['num_players']} players",
        result["algorithm"],
        budget_cell(result["budget"]),
    ]
    cells += [f"{result['cpu_seconds']['training']:.0f}", f"{result['env_share']:.2f}"]
    return "| " + " | ".join(cells + [win_cell(result[key], False) for key in RATES]) + " |"
