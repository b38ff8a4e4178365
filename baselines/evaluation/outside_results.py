"""The ``result.json`` of a training done with another library (each tutorial of
``docs/tutorials/`` writes one, its schema in ``docs/tutorials/README.md``): the fields that
record the run (:func:`run_record`), the check of a file against the schema, its summary
lines, and its row of a Markdown table (:func:`result_row`: ``scripts/lab/tutorial_table.py``
writes the tutorials' table with it)."""

from __future__ import annotations

import datetime
import json
import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from tabletop_zoo.envs.errors import InvalidOptionError

METRIC = "win rate against uniformly random players, seats rotating; a win is a sole first place"
RATE_FIELDS = ("wins", "draws", "games", "rate", "low", "high")
"""The fields of a win rate (``chance``, ``before``, ``after``, ``greedy``)."""
REQUIRED = {
    str: "tutorial library algorithm game command metric policy model cpu date".split(),
    dict: "versions budget cpu_seconds chance before after".split(),
    int: ["num_players", "seed"],
    float: ["env_share"],
}
"""The fields every result has, by type (``greedy`` is optional)."""
HEADER = (
    "| tutorial | versions | algorithm | budget | training CPU-s | env share | chance | before "
    "| after |\n|---|---|---|---|---:|---:|---|---|---|"
)


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what the platform calls it."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    names = [line.partition(":")[2].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor() or platform.machine()


def run_record(script: str | Path, packages: Sequence[str]) -> dict[str, Any]:
    """The fields of a tutorial's result that describe its run: the tutorial (``script``, a
    file of ``docs/tutorials/``), the versions of ``packages``, torch and tabletop-zoo, the
    command as run, the metric, the ``py:`` spec of its policy, the CPU and the date."""
    name = Path(script).name
    packages = [*packages, "torch", "tabletop-zoo"]
    return {
        "tutorial": name,
        "versions": {package: metadata.version(package) for package in packages},
        "command": shlex.join(["python", f"docs/tutorials/{name}", *sys.argv[1:]]),
        "metric": METRIC,
        "policy": f"py:docs/tutorials/{name}:policy",
        "cpu": cpu_name(),
        "date": datetime.date.today().isoformat(),
    }


def check_result(data: Any, where: str = "result") -> dict[str, Any]:
    """``data`` if it follows the schema, else :class:`InvalidOptionError` naming the field."""
    if not isinstance(data, dict):
        raise InvalidOptionError(f"{where}: not a JSON object")
    for kind, fields in REQUIRED.items():
        for field in fields:
            value = data.get(field)
            if not isinstance(value, (int, float) if kind is float else kind) or value is True:
                raise InvalidOptionError(f"{where}: {field!r} must be a {kind.__name__}")
    for field in ("chance", "before", "after", "greedy"):
        missing = [key for key in RATE_FIELDS if key not in data.get(field, RATE_FIELDS)]
        if missing:
            raise InvalidOptionError(f"{where}: {field!r} has no {', '.join(missing)}")
    if not isinstance(data["cpu_seconds"].get("training"), int | float):
        raise InvalidOptionError(f"{where}: 'cpu_seconds' has no 'training' number")
    return data


def read_result(path: str | Path) -> dict[str, Any]:
    """The checked contents of a ``result.json`` (one-line errors for a missing, unreadable
    or malformed file)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InvalidOptionError(f"{path}: cannot read a result: {exc}") from None
    return check_result(data, str(path))


def rate_cell(rate: Any) -> str:
    """``0.95 [0.91, 0.97]``: a win rate (a mapping or a ``WinRate``) with its interval."""
    rate = _fields(rate)
    return f"{rate['rate']:.2f} [{rate['low']:.2f}, {rate['high']:.2f}]"


def _fields(rate: Any) -> Mapping[str, Any]:
    """A win rate's fields, of a mapping (read from JSON) or a ``WinRate``."""
    return rate if isinstance(rate, Mapping) else vars(rate)


def summary(result: Mapping[str, Any]) -> str:
    """The lines a tutorial prints at its end (the win rates of ``result`` with their
    intervals and games, the training's CPU-seconds and the env's share)."""
    rates = [("chance", "chance (a random player in its place)"), ("before", "before training")]
    rates += [("after", "after training"), ("greedy", "after, against greedy")]
    lines = [f"{result['tutorial']}: {result['metric']}"]
    for key, label in rates:
        if key in result:
            rate = _fields(result[key])
            lines.append(f"  {label:<38}{rate_cell(rate)} ({rate['wins']}/{rate['games']})")
    share = f"{result['env_share']:.0%} of it in our env"
    return "\n".join([*lines, f"training: {result['cpu_seconds']['training']:.1f} CPU-s, {share}"])


def result_row(result: Mapping[str, Any], link: str = "") -> str:
    """One table row (:data:`HEADER`'s columns) of a checked result; ``link``: the folder
    the tutorial's name links into."""
    name = result["tutorial"]
    versions = ", ".join(f"{lib} {ver}" for lib, ver in result["versions"].items())
    budget = ", ".join(f"{n:,} {key.replace('_', ' ')}" for key, n in result["budget"].items())
    cpu = f"{result['cpu_seconds']['training']:.0f}"
    rates = [rate_cell(result[key]) for key in ("chance", "before", "after")]
    cells = [f"[{name}]({link}{name})", versions, result["algorithm"], budget, cpu]
    return "| " + " | ".join([*cells, f"{result['env_share']:.2f}", *rates]) + " |"


def result_table(results: Sequence[Mapping[str, Any]], link: str = "") -> str:
    """:data:`HEADER` and a row per result, by tutorial and algorithm."""
    ordered = sorted(results, key=lambda r: (r["tutorial"], r["algorithm"]))
    return "\n".join([HEADER, *(result_row(r, link) for r in ordered)])


def between_markers(text: str, begin: str, end: str, body: str, where: str = "page") -> str:
    """``text`` with what lies between the lines ``begin`` and ``end`` replaced by ``body``."""
    start, stop = text.find(begin + "\n"), text.find("\n" + end)
    if start < 0 or stop < start:
        raise InvalidOptionError(f"{where} has no {begin} ... {end} markers to write between")
    return text[: start + len(begin) + 1] + body + text[stop:]
