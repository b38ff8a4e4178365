"""The rating ladder as a library: fit from records, rate a newcomer, refit."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines.evaluation import ladder
from tabletop_zoo.envs.errors import InvalidOptionError

pytest.importorskip("openskill")


@pytest.fixture(scope="module")
def fitted() -> tuple:
    """A tiny Mole Hill ladder: random and greedy, every seating twice."""
    members = ["random", "greedy"]
    result = ladder.play_ladder("mole_hill", 2, members, rounds=2, seed=1, random_opening=1)
    return result, ladder.fit_ladder(result, members, command="test")


def test_fit_ladder_from_records(fitted) -> None:
    result, entry = fitted
    assert len(result.games) == 4 and {g.random_opening for g in result.games} == {1}
    assert entry["games"] == 4 and entry["random_opening"] == 1 and entry["command"] == "test"
    assert (entry["game"], entry["num_players"]) == ("mole_hill", 2)
    assert list(entry["members"]) == ["random", "greedy"]
    ratings = result.ratings()
    for i, values in enumerate(entry["members"].values()):
        assert values["mu"] == round(ratings[i].value, 3) and "elo" in values
    assert ladder.fixed_ratings(entry) == {
        1: (entry["members"]["random"]["mu"], entry["members"]["random"]["sigma"]),
        2: (entry["members"]["greedy"]["mu"], entry["members"]["greedy"]["sigma"]),
    }


def test_record_ladder_rates_the_reference_members() -> None:
    manifest = {"models": {"m": {"rating": None}}, "ladders": {}}
    members = {"ref:m": {"mu": 30.0, "sigma": 2.0, "elo": 1600.0}, "random": {"mu": 20.0}}
    entry = {"game": "g", "num_players": 2, "members": members}
    assert ladder.record_ladder(manifest, entry) == "g-2p"
    assert manifest["ladders"]["g-2p"] == entry
    assert manifest["models"]["m"]["rating"] == {
        "ladder": "g-2p", "mu": 30.0, "sigma": 2.0, "elo": 1600.0,
    }  # fmt: skip


def test_rate_a_newcomer_on_a_fitted_ladder(fitted) -> None:
    _result, entry = fitted
    rated = ladder.rate_newcomer("mole_hill", 2, "mcts:4", ladder=entry, rounds=1, seed=2)
    assert rated.specs == ["mcts:4", "random", "greedy"]
    assert rated.designs == ((0, 1), (0, 2))
    assert len(rated.result.games) == 4
    assert {g.random_opening for g in rated.result.games} == {1}  # the ladder's K
    assert rated.rating.low < rated.rating.value < rated.rating.high
    assert rated.elo is not None and rated.elo.low < rated.elo.value < rated.elo.high
    # the members keep their published ratings: only the newcomer's rating moves
    moved = rated.result.ratings(fixed=ladder.fixed_ratings(entry))
    assert moved[1].value == pytest.approx(entry["members"]["random"]["mu"])
    assert moved[0] == rated.rating
    lines = ladder.newcomer_lines(rated)
    assert lines[-1] == f"rating of mcts:4: {rated.rating}  (4 games)"
    assert f"Elo on the ladder: {rated.elo}" in lines
    assert any(line.startswith("  mcts:4  <- rated now") for line in lines)
    plain = ladder.rate_newcomer("mole_hill", 2, "mcts:4", entry, 1, seed=2, random_opening=0)
    assert {g.random_opening for g in plain.result.games} == {0}


def test_rate_against_one_opponent_in_every_other_seat() -> None:
    place = ladder.rate_against("mole_hill", 2, "greedy", "random", rounds=2, seed=0)
    assert place.agent == "greedy" and place.games == 4


def test_refit_ladder_adds_a_member(fitted) -> None:
    _result, entry = fitted
    result, refitted = ladder.refit_ladder("mole_hill", 2, "mcts:4", ladder=entry, rounds=1)
    assert list(refitted["members"]) == ["random", "greedy", "mcts:4"]
    assert refitted["games"] == len(result.games) == 6  # 3 tables, 2 seatings each
    assert refitted["random_opening"] == 1
    with pytest.raises(InvalidOptionError, match="already a member"):
        ladder.refit_ladder("mole_hill", 2, "greedy", ladder=entry)
