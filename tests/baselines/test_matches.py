"""The match model: seatings played into records, and the views over the same records."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines.agents import RandomAgent
from tabletop_zoo.baselines.evaluation.matches import (
    MatchRecord,
    Seating,
    check_match,
    play_seatings,
)
from tabletop_zoo.baselines.evaluation.seating import play_lineups, seated_view
from tabletop_zoo.baselines.evaluation.tournament import (
    evaluation_view,
    head_to_head_of,
    round_robin_schedule,
    tournament_view,
)
from tabletop_zoo.envs.errors import InvalidOptionError


def test_records_say_who_sat_where_and_how_the_game_was_set_up() -> None:
    seen: list[MatchRecord] = []
    schedule = [Seating((0, 1), 11), Seating((1, 0), 12, random_opening=2)]
    records = play_seatings(
        "mole_hill", 2, ["greedy", "random"], schedule, names=["G", "R"], on_game=seen.append
    )
    assert seen == records
    assert [r.seats for r in records] == [("G", "R"), ("R", "G")]
    assert [(r.agents, r.seed, r.random_opening) for r in records] == [
        ((0, 1), 11, 0),
        ((1, 0), 12, 2),
    ]
    for record in records:
        assert (record.game, record.num_players) == ("mole_hill", 2)
        assert len(record.returns) == len(record.scores) == 2 and record.steps > 2
    # the same seating gives the same game, alone or in another schedule
    (again,) = play_seatings("mole_hill", 2, ["greedy", "random"], schedule[1:], ["G", "R"])
    assert again == records[1]


def test_one_set_of_records_two_views() -> None:
    """A 2-player round robin read as a tournament and as a seated match: a head-to-head
    win is a sole first place, and both views count every game of every agent."""
    schedule = round_robin_schedule(3, 2, games=4, seed=5)
    assert len(schedule) == 3 * 4 and {s.agents for s in schedule[:4]} == {(0, 1), (1, 0)}
    names = ["random", "greedy", "random#2"]
    records = play_seatings("mole_hill", 2, ["random", "greedy", "random", "random"], schedule,
                            names=[*names, "random"])  # fmt: skip
    tournament = tournament_view(records, names)
    seated = seated_view(records, names)
    assert (tournament.game, seated.num_players) == ("mole_hill", 2)
    wins = {s.agent: s.wins for s in tournament.standings()}
    placements = {p.agent: p for p in seated.placements()}
    for standing in tournament.standings():
        assert placements[standing.agent].games == standing.games == 8
        assert placements[standing.agent].firsts == wins[standing.agent]
    head = head_to_head_of(records[0], 3)
    assert (head.agent_a, head.agent_b) == (0, 1) and head.score_a in (0.0, 0.5, 1.0)


def test_the_tournament_view_needs_two_agents_per_game() -> None:
    record = MatchRecord("mole_hill", 2, (0, 0), ("a", "a"), (0.0, 0.0), (1, 1), 3, seed=0)
    with pytest.raises(ValueError, match="two different agents"):
        head_to_head_of(record, 2)
    with pytest.raises(ValueError, match="the game and player count"):
        tournament_view([], ["a", "b"])
    assert seated_view([], ["a"], game="mole_hill", num_players=2).placements()[0].games == 0


def test_evaluation_view_counts_agent_zero_in_any_seat() -> None:
    records = [
        MatchRecord("g", 2, (0, 1), ("me", "x"), (1.0, -1.0), (5, 1), 9, seed=0),
        MatchRecord("g", 2, (1, 0), ("x", "me"), (0.0, 0.0), (2, 2), 9, seed=1),
        MatchRecord("g", 2, (1, 0), ("x", "me"), (1.0, -1.0), (4, 0), 9, seed=2),
    ]
    row = evaluation_view(records, "me", "x")
    assert (row.games, row.wins, row.draws, row.losses) == (3, 1, 1, 1)
    assert row.mean_score == pytest.approx(7 / 3) and row.opponent_mean_score == 7 / 3


def test_agent_objects_play_in_this_process_only() -> None:
    agents = [RandomAgent(seed=1), "greedy"]
    (record,) = play_seatings("mole_hill", 2, agents, [Seating((0, 1), 3)], ["me", "greedy"])
    assert record.seats == ("me", "greedy")
    with pytest.raises(InvalidOptionError, match="agent objects play in this process only"):
        play_seatings("mole_hill", 2, agents, [Seating((0, 1), 3)], workers=2)


def test_a_seating_must_fit_the_table() -> None:
    for bad in (Seating((0, 1, 1), 0), Seating((0, 2), 0)):
        with pytest.raises(InvalidOptionError, match="needs 2 agent indices in 0..1"):
            play_seatings("mole_hill", 2, ["random", "greedy"], [bad])
    with pytest.raises(InvalidOptionError, match="needs 2 agent indices in 0..1"):
        play_lineups("mole_hill", ["random", "greedy"], [(0, 2)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"workers": 0}, "workers must be >= 1, got 0"),
        ({"workers": 1.5}, "workers must be an integer >= 1, got 1.5"),
        ({"counts": {"rounds": True}}, "rounds must be an integer >= 1, got True"),
        ({"seed": -1}, "seed must be an integer in 0.."),
        ({"random_opening": -2}, "random_opening must be an integer >= 0"),
        ({"backend": "cluster"}, "backend must be one of"),
        ({"num_players": 3}, "2-player"),
        ({"agents": ["random", "wizard"]}, "allowed"),
        ({"agents": ["human"]}, "waits for a person"),
    ],
)
def test_check_match_refuses_bad_input(kwargs, message) -> None:
    arguments = {"game": "mole_hill", "num_players": None, "agents": ["random"], **kwargs}
    with pytest.raises(InvalidOptionError, match=message):
        check_match(**arguments)


def test_check_match_gives_the_player_count() -> None:
    assert check_match("mole_hill", None, ["random", RandomAgent()], counts={"games": 2}) == 2
