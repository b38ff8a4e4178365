"""One-file HTML replays: every position's SVG picture in a page that steps through the game.

The page (the template ``replay.html`` beside this module, package data) needs no network,
no external script and no font: a scrub bar, previous / next buttons and the arrow keys,
the move list in the game's notation (click to jump), the status lines (round or phase,
scores) of every position and the result. With the agents' analysis it also shades the
cells the next move's search visited (or its policy chose) by their share, lists the top
moves with their numbers and draws the value estimates as a small curve.

A frame is a dict: ``svg``, ``move`` (notation; ``None`` at the start and at the start of
a round after a finished board), ``label`` (who played it, in its role then), ``lines``
(status lines), ``scores`` and ``analysis`` (:func:`analysis_entry` of the move, or
``None``). The frames are those of :func:`~tabletop_zoo.envs._display.move_frames`.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from tabletop_zoo.envs._display import LastMove
from tabletop_zoo.envs._files import write_bytes_atomic
from tabletop_zoo.envs._svg import svg_module
from tabletop_zoo.envs.errors import InvalidOptionError

_ELEMENTS = re.compile(r"(?<=>)(?=<)")  # between two tags: an SVG text in its elements


def analysis_entry(state: Any, agent: str, raw: dict[str, Any]) -> dict[str, Any] | None:
    """What the page shows of one move's analysis, from ``raw`` (an agent's
    ``last_analysis``: ``actions`` with ``visits`` (and ``priors``) of a search, or ``probs``
    of a policy; ``value``), read on ``state``, the position the move was chosen in."""
    actions = [int(a) for a in raw["actions"]]
    if not actions:
        return None
    cell = svg_module(state).action_cell
    if "visits" in raw:
        numbers = [float(v) for v in raw["visits"]]
        total = sum(numbers) or 1.0
        share, unit, what = [v / total for v in numbers], "", f"{total:g} root visits"
    else:
        share = [float(p) for p in raw["probs"]]
        numbers, unit, what = [round(100 * p, 1) for p in share], "%", "policy"
    value = raw.get("value")
    return {
        "agent": agent,
        "what": what,
        "unit": unit,
        "moves": [state.action_to_string(a) for a in actions],
        "cells": [cell(state.game, a) for a in actions],
        "numbers": numbers,
        "share": share,
        "priors": raw.get("priors"),
        "value": None if value is None else round(float(value), 4),
    }


def frame(state: Any, svg: str, lines: list[str], last: LastMove | None) -> dict:
    """One position of the page (see the module docstring)."""
    move, label = (None, "") if last is None else (last.notation, last.label)
    scores = list(state.scores())
    return dict(svg=svg, move=move, label=label, lines=lines, scores=scores, analysis=None)


def replay_html(frames: list[dict[str, Any]], title: str) -> str:
    """The page of ``frames`` (its result: the last frame's second status line)."""
    if not frames:
        raise InvalidOptionError("no positions to save: reset() and play at least the start")
    parts: dict[str, int] = {}  # every distinct element once: positions share most of them
    frames = [
        {**f, "svg": [parts.setdefault(p, len(parts)) for p in _ELEMENTS.split(f["svg"])]}
        for f in frames
    ]
    data = {"title": title, "result": frames[-1]["lines"][1], "parts": list(parts)}
    data["frames"] = frames
    text = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")  # no early </script>
    template = resources.files("tabletop_zoo.wrappers").joinpath("replay.html").read_text()
    safe_title = title.replace("&", "&amp;").replace("<", "&lt;")
    return template.replace("__TITLE__", safe_title).replace("__REPLAY_DATA__", text)


def save_replay(frames: list[dict[str, Any]], path: str | Path, title: str) -> Path:
    """Write the page of ``frames`` to ``path`` (``.html``), atomically."""
    path = Path(path)
    if path.suffix.lower() != ".html":
        raise InvalidOptionError(f"cannot write a replay to {path.name!r}: use a .html file name")
    return write_bytes_atomic(path, replay_html(frames, title).encode())
