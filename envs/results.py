"""Game results from scores: the one place that turns a score line into rewards.

Used by the engines' ``returns()`` conventions, the AEC envs (end of game and
truncation), the search agents (rollout cut-offs) and the arenas (a game's final result).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def win_returns(scores: Sequence[float]) -> list[float]:
    """+1 for a sole top scorer, 0 for players tied for the top score, -1 for the others."""
    best = max(scores)
    tied = sum(1 for s in scores if s == best)
    return [(1.0 if tied == 1 else 0.0) if s == best else -1.0 for s in scores]


def final_result(state: Any) -> tuple[list[float], list[int]]:
    """Returns and scores of a game as it ended or was cut: the rules' ``returns()`` of a
    finished game, else :func:`win_returns` of the scores as they stand (a truncated game).
    ``state``: a rules-engine state or a compiled one-row state."""
    scores = [int(s) for s in state.scores()]
    returns = list(state.returns()) if state.is_terminal() else win_returns(scores)
    return [float(r) for r in returns], scores


def score_margins(scores: Sequence[float]) -> list[float]:
    """Each player's score minus the best score among the other players."""
    return [float(s - max(x for j, x in enumerate(scores) if j != i)) for i, s in enumerate(scores)]
