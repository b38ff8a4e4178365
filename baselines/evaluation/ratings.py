"""Ratings from full finishing orders (any player count) and 2-player Elo intervals.

:func:`plackett_luce_ratings` fits ``openskill``'s Plackett-Luce model (``train`` extra) to
finishing orders (:func:`finishing_ranks`); ``fixed`` agents keep their ratings, so a
ladder's newcomer lands on the ladder's scale. :func:`anchored_elo` places one agent among
opponents of known Elo; :func:`elo_bootstrap_intervals` gives a round robin's Elo intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_zoo.baselines.evaluation.stats import Z_95, elo_ratings
from tabletop_zoo.envs.extras import require_extra

__all__ = [
    "DEFAULT_ORDERINGS",
    "PlacedGame",
    "Rating",
    "anchored_elo",
    "elo_bootstrap_intervals",
    "finishing_ranks",
    "plackett_luce_ratings",
]

DEFAULT_ORDERINGS = 20
"""Random orders of the games averaged by :func:`plackett_luce_ratings`."""


@dataclass(frozen=True)
class PlacedGame:
    """One finished game: the agent index in every seat and each seat's rank (1 = first)."""

    seats: tuple[int, ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class Rating:
    """A rating with its 95% interval (``low``, ``high``)."""

    value: float
    low: float
    high: float
    sigma: float

    def __str__(self) -> str:
        return f"{self.value:.1f} [{self.low:.1f}, {self.high:.1f}]"


def finishing_ranks(returns: Sequence[float], scores: Sequence[float]) -> tuple[int, ...]:
    """Rank of every seat (1 = first): by result, then score; equal keys share the best rank.

    ``returns`` are the engine's results (+1 sole winner, 0 tied winners, -1 others) and
    ``scores`` its final scores, so e.g. results ``(-1, 1, -1)`` with scores ``(5, 9, 5)``
    give ranks ``(2, 1, 2)``.
    """
    if len(returns) != len(scores):
        raise ValueError(f"returns and scores differ in length: {len(returns)} vs {len(scores)}")
    keys = [(float(r), float(s)) for r, s in zip(returns, scores, strict=True)]
    return tuple(1 + sum(other > key for other in keys) for key in keys)


def _model(mu: float | None = None, sigma: float | None = None):
    """The openskill Plackett-Luce model (``train`` extra)."""
    require_extra("train", "n-player ratings (openskill)", ("openskill",))
    from openskill.models import PlackettLuce

    kwargs = {} if mu is None else {"mu": mu, "sigma": sigma}
    return PlackettLuce(**kwargs)


def plackett_luce_ratings(
    games: Sequence[PlacedGame],
    num_agents: int,
    fixed: Mapping[int, tuple[float, float]] | None = None,
    orderings: int = DEFAULT_ORDERINGS,
    seed: int | None = 0,
) -> list[Rating]:
    """Plackett-Luce ratings (``openskill``; 95%: ``mu +- 1.96 sigma``) of agents
    ``0..num_agents-1`` from ``games``; ``fixed`` maps agent index -> ``(mu, sigma)`` held.

    Online updates depend on the order, so ``mu`` and ``sigma`` are averaged over
    ``orderings`` random orders (fixed ``seed``); ``orderings=1`` and ``seed=None`` rate
    the games in the given order (exactly openskill's sequential ``rate`` calls).
    """
    fixed = dict(fixed or {})
    for index in fixed:
        if not 0 <= index < num_agents:
            raise ValueError(f"fixed agent {index} is not in 0..{num_agents - 1}")
    for game in games:
        if len(game.seats) != len(game.ranks) or not all(0 <= s < num_agents for s in game.seats):
            raise ValueError(f"bad game {game}: one agent index in 0..{num_agents - 1} per rank")
    model = _model()
    rng = np.random.default_rng(seed)
    totals = np.zeros((num_agents, 2))
    runs = max(1, orderings)
    for run in range(runs):
        ratings = [
            model.rating(mu=fixed[i][0], sigma=fixed[i][1]) if i in fixed else model.rating()
            for i in range(num_agents)
        ]
        order = range(len(games)) if (seed is None and run == 0) else rng.permutation(len(games))
        for index in order:
            game = games[index]
            teams = [[ratings[agent]] for agent in game.seats]
            updated = model.rate(teams, ranks=list(game.ranks))
            # an agent may hold several seats of one game: its seats' updates are averaged
            new: dict[int, list[tuple[float, float]]] = {}
            for agent, (rating,) in zip(game.seats, updated, strict=True):
                new.setdefault(agent, []).append((rating.mu, rating.sigma))
            for agent, values in new.items():
                if agent not in fixed:
                    mu = float(np.mean([v[0] for v in values]))
                    sigma = float(np.mean([v[1] for v in values]))
                    ratings[agent] = model.rating(mu=mu, sigma=sigma)
        totals += [(r.mu, r.sigma) for r in ratings]
    means = totals / runs
    return [
        Rating(float(mu), float(mu - Z_95 * sigma), float(mu + Z_95 * sigma), float(sigma))
        for mu, sigma in means
    ]


def anchored_elo(
    results: Sequence[tuple[float, float]], initial: float = 1500.0, iterations: int = 100
) -> Rating:
    """Maximum-likelihood Elo of one agent from ``(opponent_elo, score)`` results.

    ``score`` is 1 (win), 0.5 (draw) or 0 (loss). The opponents' ratings are held fixed, so
    the answer is on their scale. The 95% interval is ``+- 1.96 / sqrt(Fisher information)``.
    With only wins (or only losses) the maximum is at infinity: the rating is then capped
    400 points beyond the strongest (weakest) opponent, and the interval stays open on that
    side.
    """
    if not results:
        raise ValueError("anchored_elo needs at least one game")
    for _, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"scores must be in [0, 1], got {score}")
    opponents = np.array([r for r, _ in results], dtype=float)
    scores = np.array([s for _, s in results], dtype=float)
    scale = math.log(10) / 400.0
    if scores.min() == 1.0 or scores.max() == 0.0:
        all_won = scores.min() == 1.0
        value = opponents.max() + 400.0 if all_won else opponents.min() - 400.0
        expected = 1.0 / (1.0 + 10.0 ** ((opponents - value) / 400.0))
        info = scale * scale * float(np.sum(expected * (1 - expected)))
        half = Z_95 / math.sqrt(info)
        low, high = (value - half, math.inf) if all_won else (-math.inf, value + half)
        return Rating(value, low, high, 1.0 / math.sqrt(info))
    rating = initial
    for _ in range(iterations):  # Newton's method on the log-likelihood (concave)
        expected = 1.0 / (1.0 + 10.0 ** ((opponents - rating) / 400.0))
        gradient = scale * float(np.sum(scores - expected))
        info = scale * scale * float(np.sum(expected * (1 - expected)))
        step = gradient / info
        rating += max(-400.0, min(400.0, step))
        if abs(step) < 1e-9:
            break
    expected = 1.0 / (1.0 + 10.0 ** ((opponents - rating) / 400.0))
    info = scale * scale * float(np.sum(expected * (1 - expected)))
    sigma = 1.0 / math.sqrt(info)
    return Rating(rating, rating - Z_95 * sigma, rating + Z_95 * sigma, sigma)


def elo_bootstrap_intervals(
    results: Sequence[tuple[int, int, float]],
    num_agents: int,
    resamples: int = 100,
    orderings: int = 10,
    seed: int | None = 0,
) -> list[tuple[float, float]]:
    """95% percentile-bootstrap intervals of :func:`~.stats.elo_ratings` (games resampled)."""
    results = list(results)
    if not results:
        return [(-math.inf, math.inf)] * num_agents
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(resamples):
        picked = [results[i] for i in rng.integers(len(results), size=len(results))]
        seed_k = int(rng.integers(2**31))
        samples.append(elo_ratings(picked, num_agents, orderings=orderings, seed=seed_k))
    array = np.array(samples)
    low, high = np.percentile(array, [2.5, 97.5], axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]
