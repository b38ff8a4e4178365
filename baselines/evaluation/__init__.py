"""The evaluation layer: the arena (:func:`play_game`), match statistics, seat-rotated
tournaments (:func:`round_robin`) and single-agent evaluations (:func:`evaluate_agent`), and
their reports (tables, CSV files, charts). It may import the agents layer and the wrappers."""

from __future__ import annotations

from tabletop_zoo.baselines.evaluation.arena import GameResult, make_env, play_game
from tabletop_zoo.baselines.evaluation.stats import PairingStats, Standing, wilson_interval
from tabletop_zoo.baselines.evaluation.tournament import (
    GameRecord,
    TournamentResult,
    evaluate_agent,
    round_robin,
)

__all__ = [
    "GameRecord",
    "GameResult",
    "PairingStats",
    "Standing",
    "TournamentResult",
    "evaluate_agent",
    "make_env",
    "play_game",
    "round_robin",
    "wilson_interval",
]
