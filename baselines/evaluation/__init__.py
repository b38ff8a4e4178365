"""The evaluation layer: the arena (:func:`play_game`), the match model (schedules of
seatings played into :class:`MatchRecord`, :func:`play_seatings`), its views (seat-rotated
tournaments, :func:`round_robin`; seated matches, :func:`play_lineups`; single-agent
evaluations, :func:`evaluate_agent`), the record of a run's games for ``--resume``
(:mod:`.game_log`), the rating ladder (:mod:`.ladder`), match statistics and reports
(tables, CSV files, charts). It may import the agents layer and the wrappers."""

from __future__ import annotations

from tabletop_zoo.baselines.evaluation.arena import GameResult, make_env, play_game
from tabletop_zoo.baselines.evaluation.matches import MatchRecord, Seating, play_seatings
from tabletop_zoo.baselines.evaluation.seating import SeatedResult, play_lineups, seated_view
from tabletop_zoo.baselines.evaluation.stats import PairingStats, Standing, wilson_interval
from tabletop_zoo.baselines.evaluation.tournament import (
    TournamentResult,
    evaluate_agent,
    round_robin,
    tournament_view,
)

__all__ = [
    "GameResult",
    "MatchRecord",
    "PairingStats",
    "Seating",
    "SeatedResult",
    "Standing",
    "TournamentResult",
    "evaluate_agent",
    "make_env",
    "play_game",
    "play_lineups",
    "play_seatings",
    "round_robin",
    "seated_view",
    "tournament_view",
    "wilson_interval",
]
