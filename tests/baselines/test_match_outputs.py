"""Pinned outputs of small matches: a tournament, a seated match and an evaluation of one
agent print and write exactly the tables in ``match_outputs/`` (recorded before the match
code was reorganised, so the same seeds keep giving the same games and tables).

To re-record after an intended change of the games or tables::

    python tests/baselines/test_match_outputs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tabletop_zoo.baselines.agents import RandomAgent
from tabletop_zoo.baselines.evaluation import evaluate_agent, round_robin
from tabletop_zoo.baselines.evaluation.seating import lineups, play_lineups

OUTPUTS = Path(__file__).resolve().parent / "match_outputs"


def _tournament_two_players(folder: Path) -> str:
    result = round_robin(
        "mole_hill", ["random", "greedy", "random"], games=4, seed=3, random_opening=1
    )
    paths = result.write_csv(folder)
    return "\n\n".join([result.table(), *(p.read_text() for p in paths)])


def _tournament_three_players(folder: Path) -> str:
    result = round_robin("arktia", ["greedy", "random"], games=2, num_players=3, seed=0)
    paths = result.write_csv(folder)
    return "\n\n".join([result.table(), *(p.read_text() for p in paths)])


def _seated_table_round(folder: Path) -> str:
    result = play_lineups(
        "arktia", ["random", "greedy", "random"], lineups(3, 3), num_players=3, seed=5
    )
    path = result.write_csv(folder / "games.csv")
    return "\n\n".join([result.table(), path.read_text()])


def _seated_focus(folder: Path) -> str:
    specs = ["greedy", "random", "mcts:4"]
    designs = lineups(3, 2, focus=0)
    result = play_lineups(
        "mole_hill", specs, designs, rounds=2, num_players=2, seed=7, random_opening=2
    )
    lines = [result.table(fixed={1: (20.0, 2.0), 2: (30.0, 3.0)})]
    for lineup in [*designs, None]:
        for place in result.placements(lineup):
            lines.append(
                f"{lineup} {place.agent} {place.games} {place.firsts} {place.mean_rank!r} "
                f"{place.score!r} {place.score_interval()!r} {place.interval()!r}"
            )
    path = result.write_csv(folder / "games.csv")
    return "\n".join([*lines, "", path.read_text()])


def _evaluation(folder: Path) -> str:
    rows = evaluate_agent(
        RandomAgent(seed=0), "mole_hill", 2, ("random", "greedy"), games_per_seat=2, seed=4
    )
    return "\n".join(repr(row) for row in rows) + "\n"


CASES = {
    "tournament_two_players": _tournament_two_players,
    "tournament_three_players": _tournament_three_players,
    "seated_table_round": _seated_table_round,
    "seated_focus": _seated_focus,
    "evaluation": _evaluation,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_match_output_is_unchanged(name: str, tmp_path) -> None:
    expected = (OUTPUTS / f"{name}.txt").read_text()
    assert CASES[name](tmp_path) == expected


if __name__ == "__main__":  # re-record
    import tempfile

    OUTPUTS.mkdir(exist_ok=True)
    for case, make in CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            (OUTPUTS / f"{case}.txt").write_text(make(Path(tmp)))
    sys.exit(0)
