"""Balanced n-player seatings and the games played with them."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tabletop_zoo.baselines.evaluation.seating import (
    SeatedResult,
    lineups,
    pairwise_score,
    play_lineups,
    record_ranks,
    seat_permutations,
    seated_view,
)
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import extended
from tests.envs.nim_game import NIM_SPEC


@pytest.mark.parametrize("lineup", [(0, 1), (0, 1, 1), (0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 3)])
def test_seat_permutations_put_every_agent_in_every_seat_equally_often(lineup) -> None:
    seatings = seat_permutations(lineup)
    assert len(seatings) == len(set(seatings))
    counts = Counter(lineup)
    for seat in range(len(lineup)):
        held = Counter(s[seat] for s in seatings)
        # each agent holds each seat in proportion to its copies in the line-up
        for agent, copies in counts.items():
            assert held[agent] * len(lineup) == copies * len(seatings)


def test_permutation_counts() -> None:
    assert len(seat_permutations((0, 1, 1))) == 3
    assert len(seat_permutations((0, 1, 2, 3))) == 24
    assert len(seat_permutations((0, 0, 0))) == 1


def test_lineups_focus_meets_every_mix_of_the_others_once() -> None:
    designs = lineups(4, 3, focus=0)
    assert designs == [(0, 1, 1), (0, 1, 2), (0, 1, 3), (0, 2, 2), (0, 2, 3), (0, 3, 3)]
    assert lineups(4, 3) == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    assert lineups(2, 3) == [(0, 0, 0), (0, 0, 1), (0, 1, 1), (1, 1, 1)]
    with pytest.raises(InvalidOptionError):
        lineups(3, 3, focus=5)


def test_play_lineups_balances_seats_and_tallies_placements() -> None:
    with extended(NIM_SPEC):
        result = play_lineups(
            "nim", ["greedy", "random"], [(0, 1, 1)], rounds=2, num_players=3, seed=1
        )
    assert len(result.games) == 6
    assert Counter(g.agents.index(0) for g in result.games) == {0: 2, 1: 2, 2: 2}
    greedy, random_ = result.placements()
    assert greedy.games == 6 and random_.games == 12
    # every Nim game has exactly one sole winner (the last mover)
    assert greedy.firsts + random_.firsts == 6
    for game in result.games:
        ranks = record_ranks(game)
        assert sorted(ranks)[0] == 1 and ranks.count(1) == 1
    ratings = result.ratings()
    assert len(ratings) == 2 and all(r.low < r.value < r.high for r in ratings)
    assert "greedy" in result.table()


def test_play_lineups_csv_has_a_row_per_game_and_its_random_opening(tmp_path) -> None:
    with extended(NIM_SPEC):
        opened = play_lineups(
            "nim", ["greedy", "random"], [(0, 1)], num_players=2, seed=1, random_opening=1
        )
        plain = play_lineups("nim", ["greedy", "random"], [(0, 1)], num_players=2, seed=1)
    rows = list(csv.DictReader(opened.write_csv(tmp_path / "opened.csv").open()))
    assert [r["seats"] for r in rows] == ["greedy random", "random greedy"]
    assert [r["random_opening"] for r in rows] == ["1", "1"]
    rows = list(csv.DictReader(plain.write_csv(tmp_path / "plain.csv").open()))
    assert [r["random_opening"] for r in rows] == ["0", "0"]


def test_play_lineups_refuses_bad_line_ups() -> None:
    with extended(NIM_SPEC), pytest.raises(InvalidOptionError):
        play_lineups("nim", ["random"], [(0, 1)], num_players=2)
    with extended(NIM_SPEC), pytest.raises(InvalidOptionError):
        play_lineups("nim", ["random", "random"], [(0, 1)], num_players=2, rounds=0)


def test_pairwise_score_counts_the_seats_finished_ahead_of_ties_half() -> None:
    assert pairwise_score((1, 2, 2), 0) == 1.0  # sole first: ahead of both
    assert pairwise_score((1, 2, 2), 1) == 0.25  # behind seat 0, level with seat 2
    assert pairwise_score((1, 1), 0) == pairwise_score((1, 1), 1) == 0.5  # a draw
    assert pairwise_score((1, 1, 3), 2) == 0.0
    assert pairwise_score((2, 1, 3, 4), 0) == 2 / 3


def test_placement_score_is_wins_plus_half_the_draws_with_two_players() -> None:
    def game(agents, returns, scores) -> MatchRecord:
        names = tuple("ab"[a] for a in agents)
        return MatchRecord("nim", 2, agents, names, returns, scores, steps=5, seed=0)

    result = seated_view(
        [
            game((0, 1), (1.0, -1.0), (3, 1)),  # a wins
            game((1, 0), (0.0, 0.0), (2, 2)),  # draw
            game((0, 1), (-1.0, 1.0), (0, 4)),  # a loses
            game((1, 0), (-1.0, 1.0), (1, 5)),  # a wins from seat 1
        ],
        ["a", "b"],
    )
    assert (result.game, result.num_players) == ("nim", 2)
    a, b = result.placements()
    assert a.firsts == 2 and a.first_share == 0.5
    assert a.score == (1 + 0.5 + 0 + 1) / 4 and b.score == 1 - a.score
    low, high = a.score_interval()
    assert 0.0 <= low < a.score < high <= 1.0
    assert SeatedResult("nim", 2, ["a", "b"]).placements()[0].score_interval() == (0.0, 1.0)


@pytest.mark.slow
def test_play_lineups_workers_give_the_same_games() -> None:
    specs = ["greedy", "random", "mcts:4"]
    serial = play_lineups("arktia", specs, [(0, 1, 2)], rounds=1, num_players=3, seed=4)
    parallel = play_lineups(
        "arktia", specs, [(0, 1, 2)], rounds=1, num_players=3, seed=4, workers=2
    )
    assert len(serial.games) == 6 and serial.games == parallel.games
    for bad in (0, True, 1.5):
        with pytest.raises(InvalidOptionError, match="workers must be"):
            play_lineups("arktia", specs, [(0, 1, 2)], num_players=3, workers=bad)
