"""Ratings from finishing orders (openskill Plackett-Luce) and anchored 2-player Elo."""

from __future__ import annotations

import math

import pytest
from openskill.models import PlackettLuce

from tabletop_zoo.baselines.evaluation.stats import (
    Z_95,
    PlacedGame,
    anchored_elo,
    elo_bootstrap_intervals,
    elo_ratings,
    finishing_ranks,
    plackett_luce_ratings,
)


def test_finishing_ranks_order_by_result_then_score_and_share_ties() -> None:
    assert finishing_ranks([-1, 1, -1], [5, 9, 5]) == (2, 1, 2)
    assert finishing_ranks([-1, 1, -1, -1], [7, 9, 3, 8]) == (3, 1, 4, 2)
    # two tied winners share first place; the result outranks a higher score
    assert finishing_ranks([0, 0, -1], [6, 6, 6]) == (1, 1, 3)
    assert finishing_ranks([1, -1], [3, 8]) == (1, 2)
    with pytest.raises(ValueError):
        finishing_ranks([1, -1], [3])


def test_plackett_luce_in_game_order_is_openskill_itself() -> None:
    games = [
        PlacedGame((0, 1, 2), (1, 2, 3)),
        PlacedGame((2, 0, 1), (1, 3, 2)),
        PlacedGame((1, 2, 0), (1, 1, 3)),
    ]
    ours = plackett_luce_ratings(games, 3, orderings=1, seed=None)
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(3)]
    for game in games:
        updated = model.rate([[ratings[a]] for a in game.seats], ranks=list(game.ranks))
        for agent, (rating,) in zip(game.seats, updated, strict=True):
            ratings[agent] = rating
    for mine, theirs in zip(ours, ratings, strict=True):
        assert mine.value == pytest.approx(theirs.mu)
        assert mine.sigma == pytest.approx(theirs.sigma)
        assert mine.low == pytest.approx(theirs.mu - Z_95 * theirs.sigma)


def test_always_first_rates_highest_and_fixed_agents_keep_their_rating() -> None:
    # agent 0 always first, 1 second, 2 third, over every seating of a 3-player table
    seatings = [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)]
    rank_of = {0: 1, 1: 2, 2: 3}
    games = [PlacedGame(s, tuple(rank_of[a] for a in s)) for s in seatings * 3]
    free = plackett_luce_ratings(games, 3)
    assert free[0].value > free[1].value > free[2].value
    fixed = plackett_luce_ratings(games, 3, fixed={1: (30.0, 2.0), 2: (20.0, 2.0)})
    assert (fixed[1].value, fixed[1].sigma) == (30.0, 2.0)
    assert (fixed[2].value, fixed[2].sigma) == (20.0, 2.0)
    assert fixed[0].value > 30.0  # beat the 30-rated member every time


def test_plackett_luce_refuses_bad_games() -> None:
    with pytest.raises(ValueError):
        plackett_luce_ratings([PlacedGame((0, 5), (1, 2))], 2)
    with pytest.raises(ValueError):
        plackett_luce_ratings([], 2, fixed={3: (25.0, 8.0)})


def test_anchored_elo_is_the_closed_form_maximum_likelihood() -> None:
    # 3 wins and 1 loss against a 1500 player: E = 3/4, so R = 1500 + 400 log10(3)
    rating = anchored_elo([(1500.0, 1.0)] * 3 + [(1500.0, 0.0)])
    assert rating.value == pytest.approx(1500 + 400 * math.log10(3), abs=1e-6)
    scale = math.log(10) / 400
    sigma = 1 / math.sqrt(4 * 0.75 * 0.25 * scale * scale)
    assert rating.sigma == pytest.approx(sigma)
    assert rating.low == pytest.approx(rating.value - Z_95 * sigma)
    # draws only against 1600 and 1400 players: exactly in between
    assert anchored_elo([(1600.0, 0.5), (1400.0, 0.5)]).value == pytest.approx(1500.0)


def test_anchored_elo_all_wins_is_open_above() -> None:
    rating = anchored_elo([(1500.0, 1.0), (1700.0, 1.0)])
    assert rating.value == 2100.0 and rating.high == math.inf and rating.low < 2100.0
    losing = anchored_elo([(1500.0, 0.0)])
    assert losing.value == 1100.0 and losing.low == -math.inf
    with pytest.raises(ValueError):
        anchored_elo([])
    with pytest.raises(ValueError):
        anchored_elo([(1500.0, 2.0)])


def test_elo_bootstrap_intervals_contain_the_ratings() -> None:
    results = [(0, 1, 1.0)] * 15 + [(0, 1, 0.0)] * 5 + [(1, 2, 1.0)] * 12 + [(1, 2, 0.0)] * 8
    ratings = elo_ratings(results, 3)
    intervals = elo_bootstrap_intervals(results, 3, resamples=40, orderings=5)
    for rating, (low, high) in zip(ratings, intervals, strict=True):
        assert low < rating < high
    assert intervals[0][0] > intervals[2][1] - 400  # loose sanity: ordered, finite
