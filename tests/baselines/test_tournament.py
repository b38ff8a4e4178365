"""Tournament statistics (hand-computed values) and a tiny real round robin."""

from __future__ import annotations

import csv

import pytest

from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tabletop_zoo.baselines.evaluation.report import display_names
from tabletop_zoo.baselines.evaluation.stats import (
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
from tabletop_zoo.envs.errors import InvalidOptionError


def _record(a, b, seats, seat_a, seat_b, returns, scores, steps, filler=99) -> MatchRecord:
    """A tournament game of agents ``a`` (seat ``seat_a``) and ``b``; other seats filler."""
    agents = [filler] * len(seats)
    agents[seat_a], agents[seat_b] = a, b
    return MatchRecord(
        "mole_hill", len(seats), tuple(agents), tuple(seats), tuple(returns), tuple(scores),
        steps, seed=0,
    )  # fmt: skip


# ------------------------------------------------------------------ Wilson interval
@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # z = 1.96, n = 10: denominator 1 + 3.8416/10 = 1.38416.
        # 5/10: centre 0.5, half-width 1.96/1.38416 * sqrt(0.025 + 0.009604) = 0.2634
        (5, 10, 0.2366, 0.7634),
        # 0/10: centre 0.19208/1.38416 = 0.13877, half-width 1.41602 * 0.098 = 0.13877
        (0, 10, 0.0, 0.2775),
        # 10/10 mirrors 0/10
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_known_values(successes: int, trials: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(successes, trials)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_with_z_one() -> None:
    # 1/2, z = 1: denominator 1.5, centre (0.5 + 0.25)/1.5 = 0.5,
    # half-width (1/1.5) * sqrt(0.125 + 0.0625) = 0.288675
    lo, hi = wilson_interval(1, 2, z=1.0)
    assert lo == pytest.approx(0.5 - 0.288675, abs=1e-6)
    assert hi == pytest.approx(0.5 + 0.288675, abs=1e-6)


def test_wilson_interval_no_trials_and_bad_input() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes <= trials"):
        wilson_interval(3, 2)


# ------------------------------------------------------------------ Elo
def test_elo_expected_known_values() -> None:
    assert elo_expected(1500, 1500) == pytest.approx(0.5)
    # 400 points ahead: 1 / (1 + 10**-1) = 10/11
    assert elo_expected(1900, 1500) == pytest.approx(10 / 11)


def test_elo_update_equal_ratings_win_moves_k_over_two() -> None:
    assert elo_update(1500, 1500, 1.0, k=32) == pytest.approx((1516, 1484))
    assert elo_update(1500, 1500, 0.5, k=32) == pytest.approx((1500, 1500))
    assert elo_update(1500, 1500, 0.0, k=32) == pytest.approx((1484, 1516))


def test_elo_update_underdog_win_gains_more() -> None:
    # expected score of 1400 vs 1600: 1 / (1 + 10**0.5) = 0.240253
    a, b = elo_update(1400, 1600, 1.0, k=32)
    assert a == pytest.approx(1400 + 32 * (1 - 0.240253), abs=1e-3)
    assert a + b == pytest.approx(3000)  # zero-sum
    favourite_gain = elo_update(1600, 1400, 1.0, k=32)[0] - 1600
    assert a - 1400 > favourite_gain > 0


def test_elo_update_rejects_bad_score() -> None:
    with pytest.raises(ValueError, match="score_a"):
        elo_update(1500, 1500, 2.0)


def test_elo_ratings_order_winner_first_and_draws_stay_level() -> None:
    # agent 0 beats 1 always, 1 beats 2 always, 0 beats 2 always
    results = [(0, 1, 1.0)] * 10 + [(1, 2, 1.0)] * 10 + [(0, 2, 1.0)] * 10
    r = elo_ratings(results, 3)
    assert r[0] > r[1] > r[2]
    assert sum(r) == pytest.approx(4500)
    draws = elo_ratings([(0, 1, 0.5)] * 6, 2)
    assert draws == pytest.approx([1500, 1500])


# ------------------------------------------------------------------ seating and outcomes
def test_seating_two_players_alternates() -> None:
    assert [seating(2, g) for g in range(4)] == [[0, 1], [1, 0], [1, 0], [0, 1]]


@pytest.mark.parametrize("num_players", [3, 4])
def test_seating_many_players_balanced(num_players: int) -> None:
    games = [seating(num_players, g) for g in range(2 * num_players)]
    for seats in games:
        assert sorted(seats) == sorted([0, 1] + [-1] * (num_players - 2))
    for agent in (0, 1):  # each of A and B sits in every seat exactly twice
        assert sorted(s.index(agent) for s in games) == sorted(list(range(num_players)) * 2)


def test_head_to_head_returns_then_scores() -> None:
    assert head_to_head([1, -1], [5, 3], 0, 1) == 1.0
    assert head_to_head([1, -1], [5, 3], 1, 0) == 0.0
    assert head_to_head([0, 0], [4, 4], 0, 1) == 0.5
    # 3 players, a third seat won: A and B both -1, A scored more -> A wins head-to-head
    assert head_to_head([-1, -1, 1], [4, 2, 9], 0, 1) == 1.0
    assert head_to_head([-1, -1, 1], [3, 3, 9], 1, 0) == 0.5


def test_display_names_repeats() -> None:
    assert display_names(["random", "greedy", "random"]) == ["random", "greedy", "random#2"]


# ------------------------------------------------------------------ aggregation and files
def _hand_result() -> TournamentResult:
    """A beats B 2-1 with one draw; B v C all draws; A v C: A wins once."""
    r = TournamentResult("mole_hill", 2, ["A", "B", "C"])
    r.games = [
        _record(0, 1, ["A", "B"], 0, 1, [1.0, -1.0], [7, 3], 40),
        _record(0, 1, ["B", "A"], 1, 0, [1.0, -1.0], [6, 2], 40),  # B (seat 0) wins
        _record(0, 1, ["A", "B"], 0, 1, [0.0, 0.0], [4, 4], 40),
        _record(0, 1, ["B", "A"], 1, 0, [-1.0, 1.0], [1, 5], 40),  # A (seat 1) wins
        _record(1, 2, ["B", "C"], 0, 1, [0.0, 0.0], [2, 2], 40),
        _record(0, 2, ["A", "C"], 0, 1, [1.0, -1.0], [3, 0], 40),
    ]
    return r


def test_pairing_stats_from_hand_built_games() -> None:
    ab, ac, bc = _hand_result().pairings()
    assert (ab.agent, ab.opponent) == ("A", "B")
    assert (ab.games, ab.wins, ab.draws, ab.losses) == (4, 2, 1, 1)
    assert ab.mean_score == pytest.approx((7 + 2 + 4 + 5) / 4)
    assert ab.opponent_mean_score == pytest.approx((3 + 6 + 4 + 1) / 4)
    assert (ac.wins, ac.draws, ac.losses) == (1, 0, 0)
    assert (bc.wins, bc.draws, bc.losses) == (0, 1, 0)
    assert sum(ab.rate(o) for o in ("wins", "draws", "losses")) == pytest.approx(1.0)


def test_standings_and_files(tmp_path) -> None:
    result = _hand_result()
    standings = {s.agent: s for s in result.standings()}
    assert (standings["A"].wins, standings["A"].draws, standings["A"].losses) == (3, 1, 1)
    assert (standings["B"].wins, standings["B"].draws, standings["B"].losses) == (1, 2, 2)
    assert standings["A"].elo > standings["C"].elo
    assert [s.agent for s in result.standings()][0] == "A"
    pairings, standings_csv, games_csv = result.write_csv(tmp_path)
    rows = list(csv.DictReader(pairings.open()))
    assert [r["agent"] + r["opponent"] for r in rows] == ["AB", "AC", "BC"]
    assert float(rows[0]["win_rate"]) == 0.5
    assert (rows[0]["wins"], rows[0]["draws"], rows[0]["losses"]) == ("2", "1", "1")
    assert len(list(csv.DictReader(games_csv.open()))) == 6
    assert standings_csv.exists()
    png = result.plot(tmp_path / "chart.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "A" in result.table() and "elo" in result.table()
    rows = {r["agent"]: r for r in csv.DictReader(standings_csv.open())}
    assert float(rows["A"]["elo_ci_low"]) <= float(rows["A"]["elo_ci_high"])


def test_two_player_elo_has_a_bootstrap_interval() -> None:
    """A won 18 of 20 games against B: its Elo interval lies above the average (1500), B's
    below; with a third agent C that drew every game, C's interval holds 1500."""
    result = _hand_result()
    result.agents = ["A", "B", "C"]
    result.games = [
        _record(0, 1, ["A", "B"], 0, 1, [1.0, -1.0] if k < 18 else [-1.0, 1.0], [2, 1], 9)
        for k in range(20)
    ] + [_record(0, 2, ["A", "C"], 0, 1, [0.0, 0.0], [1, 1], 9) for _ in range(10)]
    result.games += [_record(1, 2, ["B", "C"], 0, 1, [0.0, 0.0], [1, 1], 9) for _ in range(10)]
    standings = {s.agent: s for s in result.standings()}
    assert 1500 < standings["A"].elo_low < standings["A"].elo < standings["A"].elo_high
    assert standings["B"].elo_low < standings["B"].elo < standings["B"].elo_high < 1500
    assert standings["C"].elo_low < 1500 < standings["C"].elo_high
    assert result.elo_intervals() == result.elo_intervals()  # seeded: the same table twice
    line = next(r for r in result.table().splitlines() if r.startswith("A ") and "%" in r)
    low, high = round(standings["A"].elo_low), round(standings["A"].elo_high)
    assert line.endswith(f"[{low},{high}]")


# ------------------------------------------------------------------ real tournament
def test_round_robin_random_vs_greedy_two_games_each_way(tmp_path) -> None:
    result = round_robin("mole_hill", ["random", "greedy"], games=4, seed=3)
    assert len(result.games) == 4
    assert [result.head_to_head(g).seat_a for g in result.games] == [0, 1, 1, 0]  # 2 games each way
    (p,) = result.pairings()
    assert p.games == 4
    assert p.rate("wins") + p.rate("draws") + p.rate("losses") == pytest.approx(1.0)
    for g in result.games:
        assert sorted(g.returns) in ([-1.0, 1.0], [0.0, 0.0])
    paths = result.write_csv(tmp_path)
    assert all(path.stat().st_size > 0 for path in paths)
    assert result.plot(tmp_path / "t.png").stat().st_size > 0
    again = round_robin("mole_hill", ["random", "greedy"], games=4, seed=3)
    assert [g.scores for g in again.games] == [g.scores for g in result.games]  # seeded


def test_round_robin_bad_input() -> None:
    with pytest.raises(ValueError, match="allowed"):
        round_robin("mole_hill", ["random", "bogus"], games=2)
    with pytest.raises(ValueError, match="at least 2 agents"):
        round_robin("mole_hill", ["random"], games=2)
    with pytest.raises(ValueError, match="allowed"):
        round_robin("chess", ["random", "greedy"], games=2)


@pytest.mark.slow
def test_round_robin_workers_give_the_same_games() -> None:
    serial = round_robin("mole_hill", ["random", "greedy", "random"], games=2, seed=9)
    parallel = round_robin("mole_hill", ["random", "greedy", "random"], games=2, seed=9, workers=2)
    assert serial.agents == ["random", "greedy", "random#2"]
    assert [(g.seats, g.scores) for g in parallel.games] == [
        (g.seats, g.scores) for g in serial.games
    ]


def test_round_robin_three_players_fills_the_third_seat() -> None:
    result = round_robin("arktia", ["greedy", "random"], games=2, num_players=3, seed=0)
    assert [g.seats for g in result.games] == [
        ("greedy", "random", "random"),  # A, B, filler
        ("random", "greedy", "random"),  # B, A, filler
    ]
    pairs = [result.head_to_head(g) for g in result.games]
    assert [(p.seat_a, p.seat_b) for p in pairs] == [(0, 1), (1, 0)]
    assert [g.agents for g in result.games] == [(0, 1, 2), (1, 0, 2)]  # 2: the filler
    assert all(len(g.scores) == 3 for g in result.games)
    assert "other seats: random" in result.table()


@pytest.mark.slow
def test_round_robin_random_opening_varies_games_of_deterministic_agents(tmp_path) -> None:
    """Two copies of the shipped deterministic Mole Hill PPO: without an opening every game
    of one seating is the same game; with 2 random actions first the games differ, and
    the same seed gives the same games again (serial or in worker processes)."""
    specs = ["ref:mole_hill-2p-ppo", "ref:mole_hill-2p-ppo"]
    plain = round_robin("mole_hill", specs, games=6, seed=1)
    seat_a = plain.head_to_head
    assert len({(seat_a(g).seat_a, g.scores, g.steps) for g in plain.games}) == 2
    opened = round_robin("mole_hill", specs, games=6, seed=1, random_opening=2)
    assert len({(seat_a(g).seat_a, g.scores, g.steps) for g in opened.games}) > 2
    assert "opened by 2 random actions" in opened.table()
    _pairings, _standings, games_csv = opened.write_csv(tmp_path)
    assert {row["random_opening"] for row in csv.DictReader(games_csv.open())} == {"2"}
    again = round_robin("mole_hill", specs, games=6, seed=1, random_opening=2, workers=2)
    assert again.games == opened.games
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidOptionError, match="random_opening must be an integer >= 0"):
            round_robin("mole_hill", ["random", "greedy"], games=2, random_opening=bad)


class _FakeModelAgent:
    """An agent holding a 'model' made for a (7, 9, 16) / 173-action game (Mole Hill)."""

    def __init__(self) -> None:
        from gymnasium import spaces

        self.model = type("Model", (), {})()
        self.model.observation_space = spaces.Box(0, 1, (7, 9, 16))
        self.model.action_space = spaces.Discrete(173)


def test_check_agent_fits_rejects_a_model_of_another_game() -> None:
    from tabletop_zoo.baselines import RandomAgent
    from tabletop_zoo.baselines.agents.checks import check_agent_fits
    from tabletop_zoo.baselines.evaluation.arena import make_env

    check_agent_fits(_FakeModelAgent(), make_env("mole_hill"), "ppo:mh.zip")  # fits
    check_agent_fits(RandomAgent(), make_env("arktia"), "random")  # no model: nothing to check
    with pytest.raises(ValueError, match="trained on observations of shape .7, 9, 16."):
        check_agent_fits(_FakeModelAgent(), make_env("arktia"), "ppo:mh.zip")


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True])
def test_round_robin_rejects_bad_seeds(seed) -> None:
    with pytest.raises(ValueError, match="seed must be an integer in 0.."):
        round_robin("mole_hill", ["random", "greedy"], games=1, seed=seed)


def test_make_agent_turns_a_broken_model_file_into_a_value_error(tmp_path) -> None:
    import zipfile

    from tabletop_zoo.baselines import make_agent

    path = tmp_path / "not_a_model.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.txt", "x")
    with pytest.raises(ValueError, match="cannot load a MaskablePPO model from"):
        make_agent(f"ppo:{path}")


def test_round_robin_refuses_a_human_agent() -> None:
    with pytest.raises(ValueError, match="waits for a person at the terminal"):
        round_robin("mole_hill", ["random", "human"], games=2)
