"""Former home of the tournament, kept so code written for it keeps working: import from
:mod:`tabletop_zoo.baselines.evaluation` (``round_robin``, ``TournamentResult``, statistics)."""

from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tabletop_zoo.baselines.evaluation.stats import (
    PairingStats,
    Standing,
    elo_expected,
    elo_ratings,
    elo_update,
    head_to_head,
    wilson_interval,
)
from tabletop_zoo.baselines.evaluation.tournament import (
    TournamentResult,
    round_robin,
    seating,
)

__all__ = [
    "MatchRecord",
    "PairingStats",
    "Standing",
    "TournamentResult",
    "elo_expected",
    "elo_ratings",
    "elo_update",
    "head_to_head",
    "round_robin",
    "seating",
    "wilson_interval",
]
