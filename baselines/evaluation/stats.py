"""Match statistics and ratings: Wilson score intervals, intervals across training seeds,
head-to-head results, the per-pairing / per-agent tallies that matches report, Elo ratings
(:func:`elo_bootstrap_intervals`: a round robin's Elo intervals; :func:`anchored_elo`: one
agent among opponents of known Elo) and ratings from full finishing orders of any player
count (:func:`plackett_luce_ratings`: ``openskill``'s Plackett-Luce model, ``train``
extra; ``fixed`` agents keep their ratings, so a ladder's newcomer lands on its scale)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_zoo.envs.extras import require_extra

Z_95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_INITIAL = 1500.0
ELO_K = 16.0
ELO_ORDERINGS = 100  # random game orders averaged by ``elo_ratings``


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` of ``successes / trials`` (no trials: 0, 1)."""
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # the interval contains p; clamping to p removes rounding (10/10 gave 0.9999999999999999,
    # a negative error bar that matplotlib refuses)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


_T_95 = {  # two-sided 95% quantiles of Student's t by degrees of freedom
    1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646,
    8: 2.3060, 9: 2.2622, 10: 2.2281, 11: 2.2010, 12: 2.1788, 13: 2.1604, 14: 2.1448,
    15: 2.1314, 16: 2.1199, 17: 2.1098, 18: 2.1009, 19: 2.0930, 20: 2.0860, 21: 2.0796,
    22: 2.0739, 23: 2.0687, 24: 2.0639, 25: 2.0595, 26: 2.0555, 27: 2.0518, 28: 2.0484,
    29: 2.0452, 30: 2.0423,
}  # fmt: skip


def t_quantile_95(degrees_of_freedom: int) -> float:
    """Two-sided 95% quantile of Student's t (table up to 30 degrees of freedom, then the
    Cornish-Fisher expansion, within 0.001 of the exact value)."""
    if degrees_of_freedom < 1:
        raise ValueError(f"need at least 1 degree of freedom, got {degrees_of_freedom}")
    if degrees_of_freedom in _T_95:
        return _T_95[degrees_of_freedom]
    z, df = Z_95, degrees_of_freedom
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


@dataclass(frozen=True)
class SeedSummary:
    """One result over several training seeds: the per-seed values, their mean and a 95%
    Student-t interval of the mean (``low``/``high``; ``nan`` with a single seed)."""

    values: tuple[float, ...]
    mean: float
    low: float
    high: float

    def format(self, digits: int = 2) -> str:
        """``0.80 [0.65, 0.95] (seeds 0.75, 0.80, 0.85)``."""
        mean, low, high, *seeds = (
            f"{v:.{digits}f}" for v in (self.mean, self.low, self.high, *self.values)
        )
        return f"{mean} [{low}, {high}] (seeds {', '.join(seeds)})"


def across_seeds(values: Sequence[float], bounds: tuple[float, float] | None = None) -> SeedSummary:
    """Mean of a result over training seeds with a 95% interval across seeds.

    The interval is the Student-t interval of the mean (``mean +- t * sd / sqrt(n)``, the
    sample standard deviation over the seeds): with 3 seeds it is wide, as it should be.
    ``bounds`` clips it (e.g. ``(0, 1)`` for win rates).
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("need at least one value")
    mean = float(data.mean())
    if data.size == 1:
        low = high = float("nan")
    else:
        half = t_quantile_95(data.size - 1) * float(data.std(ddof=1)) / math.sqrt(data.size)
        low, high = mean - half, mean + half
        if bounds is not None:
            low, high = max(bounds[0], low), min(bounds[1], high)
    return SeedSummary(tuple(float(v) for v in data), mean, low, high)


def elo_expected(rating_a: float, rating_b: float) -> float:
    """Expected score of A against B (probability of a win, draws counting half)."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def elo_update(
    rating_a: float, rating_b: float, score_a: float, k: float = ELO_K
) -> tuple[float, float]:
    """One Elo update after a game; ``score_a`` is 1 (A won), 0.5 (draw) or 0 (B won)."""
    if not 0.0 <= score_a <= 1.0:
        raise ValueError(f"score_a must be in [0, 1] (1 win, 0.5 draw, 0 loss), got {score_a}")
    delta = k * (score_a - elo_expected(rating_a, rating_b))
    return rating_a + delta, rating_b - delta


def elo_ratings(
    results: Sequence[tuple[int, int, float]],
    num_agents: int,
    k: float = ELO_K,
    initial: float = ELO_INITIAL,
    orderings: int = ELO_ORDERINGS,
    seed: int | None = 0,
) -> list[float]:
    """Elo ratings from head-to-head results ``(agent_a, agent_b, score_a)``: sequential Elo
    updates over the results in ``orderings`` random orders (fixed ``seed``), averaged, so
    that the ratings do not depend on the order the games were played in."""
    ratings_sum = np.zeros(num_agents)
    rng = np.random.default_rng(seed)
    results = list(results)
    for _ in range(max(1, orderings)):
        ratings = [initial] * num_agents
        for idx in rng.permutation(len(results)):
            a, b, score_a = results[idx]
            ratings[a], ratings[b] = elo_update(ratings[a], ratings[b], score_a, k)
        ratings_sum += ratings
    return list(ratings_sum / max(1, orderings))


def head_to_head(
    returns: Sequence[float], scores: Sequence[int], seat_a: int, seat_b: int
) -> float:
    """Score of A against B in one game: 1 win, 0.5 draw, 0 loss (returns, then scores)."""
    key_a = (returns[seat_a], scores[seat_a])
    key_b = (returns[seat_b], scores[seat_b])
    return 1.0 if key_a > key_b else 0.0 if key_a < key_b else 0.5


def game_result(game_return: float) -> float:
    """A seat's own result from its return: 1 win (+1), 0.5 draw (0), 0 loss (-1)."""
    return 1.0 if game_return > 0 else 0.5 if game_return == 0 else 0.0


@dataclass
class PairingStats:
    """Head-to-head statistics of ``agent`` against ``opponent``."""

    agent: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    opponent_mean_score: float

    @classmethod
    def tally(
        cls,
        agent: str,
        opponent: str,
        outcomes: Sequence[float],
        scores: Sequence[float],
        opponent_scores: Sequence[float],
    ) -> PairingStats:
        """Count per-game ``outcomes`` of ``agent`` (1 win, 0.5 draw, 0 loss) and average the
        per-game scores of the agent and of its opponent(s)."""
        wins, draws, losses = (sum(o == value for o in outcomes) for value in (1.0, 0.5, 0.0))
        means = [float(np.mean(s)) if outcomes else 0.0 for s in (scores, opponent_scores)]
        return cls(agent, opponent, len(outcomes), wins, draws, losses, *means)

    def rate(self, outcome: str) -> float:
        """Rate of ``"wins"``, ``"draws"`` or ``"losses"``."""
        return getattr(self, outcome) / self.games if self.games else 0.0

    def interval(self, outcome: str) -> tuple[float, float]:
        """Wilson 95% CI of the rate of ``"wins"``, ``"draws"`` or ``"losses"``."""
        return wilson_interval(getattr(self, outcome), self.games)


@dataclass
class Standing:
    """One agent's totals over all its pairings."""

    agent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    elo: float
    elo_low: float = math.nan  # 95% bootstrap interval of the Elo rating (nan: not computed)
    elo_high: float = math.nan


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
    require_extra("train", "n-player ratings (openskill)", ("openskill",))
    from openskill.models import PlackettLuce

    model = PlackettLuce()
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
