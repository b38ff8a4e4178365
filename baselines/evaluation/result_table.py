"""The ``result.json`` files of trainings outside our commands (each tutorial of
``docs/tutorials/`` writes one): read and checked against their schema
(``docs/tutorials/README.md``), and rendered as rows of a Markdown table.
``scripts/lab/tutorial_table.py`` writes the tutorials' table from them; a table across
libraries reuses :func:`result_row`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabletop_zoo.envs.errors import InvalidOptionError

RATE_FIELDS = ("wins", "draws", "games", "rate", "low", "high")
"""The fields of a win rate (``chance``, ``before``, ``after``, ``greedy``)."""
REQUIRED = {
    str: "tutorial library algorithm game command metric policy model cpu date".split(),
    dict: "versions budget cpu_seconds chance before after".split(),
    int: ["num_players", "seed"],
    float: ["env_share"],
}
"""The fields every result has, by type (``greedy`` and ``rating`` are optional)."""
HEADER = (
    "| tutorial | library | algorithm | budget | training CPU-s | env share | chance | before "
    "| after |\n|---|---|---|---|---:|---:|---|---|---|"
)


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
        rate = data.get(field, {})
        missing = [key for key in RATE_FIELDS if field in data and key not in rate]
        if missing:
            raise InvalidOptionError(f"{where}: {field!r} has no {', '.join(missing)}")
    if "training" not in data["cpu_seconds"]:
        raise InvalidOptionError(f"{where}: 'cpu_seconds' has no 'training'")
    return data


def read_result(path: str | Path) -> dict[str, Any]:
    """The checked contents of a ``result.json`` (one-line errors for a missing, unreadable
    or malformed file)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InvalidOptionError(f"{path}: cannot read a result: {exc}") from None
    return check_result(data, str(path))


def rate_cell(rate: Mapping[str, Any]) -> str:
    """``0.95 [0.91, 0.97]`` for a win rate with its interval."""
    return f"{rate['rate']:.2f} [{rate['low']:.2f}, {rate['high']:.2f}]"


def result_row(result: Mapping[str, Any], link: str = "") -> str:
    """One table row (:data:`HEADER`'s columns) of a checked result; ``link``: the folder
    the tutorial's name links into."""
    name = result["tutorial"]
    versions = ", ".join(f"{lib} {ver}" for lib, ver in result["versions"].items())
    budget = ", ".join(
        f"{value:,} {key.replace('_', ' ')}" for key, value in result["budget"].items()
    )
    cpu = f"{result['cpu_seconds']['training']:.0f}"
    rates = [rate_cell(result[key]) for key in ("chance", "before", "after")]
    cells = [f"[{name}]({link}{name})", versions, result["algorithm"], budget, cpu]
    cells += [f"{result['env_share']:.2f}", *rates]
    return "| " + " | ".join(cells) + " |"


def result_table(results: Sequence[Mapping[str, Any]], link: str = "") -> str:
    """:data:`HEADER` and a row per result, by tutorial name."""
    rows = [result_row(r, link) for r in sorted(results, key=lambda r: r["tutorial"])]
    return "\n".join([HEADER, *rows])


def between_markers(text: str, begin: str, end: str, body: str, where: str = "page") -> str:
    """``text`` with what lies between the lines ``begin`` and ``end`` replaced by ``body``."""
    start, stop = text.find(begin + "\n"), text.find("\n" + end)
    if start < 0 or stop < start:
        raise InvalidOptionError(f"{where} has no {begin} ... {end} markers to write between")
    return text[: start + len(begin) + 1] + body + text[stop:]
