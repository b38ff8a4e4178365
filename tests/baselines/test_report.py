"""Tournament outputs: short display names, a table within 100 columns, the Elo panel; the
other tables' columns as wide as their names."""

from __future__ import annotations

import csv
import itertools

import pytest

from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tabletop_zoo.baselines.evaluation.report import (
    TABLE_WIDTH,
    display_name,
    display_names,
    elo_axis_limits,
    short_label,
    text_table,
    tournament_figure,
)
from tabletop_zoo.baselines.evaluation.stats import ELO_INITIAL
from tabletop_zoo.baselines.evaluation.tournament import TournamentResult

LONG = "ppo:runs/very_long_experiment_name_number_42/snapshots/step_100000.zip"


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("ppo:runs/x/final_model.zip", "ppo(x)"),  # the run folder names a final model
        ("ppo:runs/x/final_model", "ppo(x)"),
        ("ppo:models/best.zip", "ppo(best)"),
        ("ppo:mh.zip", "ppo(mh)"),
        ("ppo:runs/x/snapshots/step_500.zip", "ppo(x/step_500)"),
        ("random", "random"),
        ("mcts:50", "mcts:50"),
    ],
)
def test_display_name(spec: str, name: str) -> None:
    assert display_name(spec) == name


def _record(a, b, seats, seat_a, seat_b, returns, scores, steps, filler=99) -> MatchRecord:
    """A tournament game of agents ``a`` (seat ``seat_a``) and ``b``; other seats filler."""
    agents = [filler] * len(seats)
    agents[seat_a], agents[seat_b] = a, b
    return MatchRecord(
        "mole_hill", len(seats), tuple(agents), tuple(seats), tuple(returns), tuple(scores),
        steps, seed=0,
    )  # fmt: skip


def test_display_names_repeats_and_collisions() -> None:
    assert display_names(["ppo:a/final_model.zip", "random", "ppo:a/final_model.zip"]) == [
        "ppo(a)",
        "random",
        "ppo(a)#2",
    ]
    # two different models that would both be "ppo(x)" keep their full specs
    specs = ["ppo:one/x/final_model.zip", "ppo:two/x/final_model.zip"]
    assert display_names(specs) == specs


def test_short_label_keeps_start_and_end() -> None:
    assert short_label("ppo(mole_hill_2p_seed0)") == "ppo(mole_hill_2p_seed0)"  # 23 fit
    cut = short_label(display_name(LONG))
    assert cut == "ppo(~er_42/step_100000)" and len(cut) == 23


def _result() -> TournamentResult:
    specs = ["random", "mcts:50", "ppo:runs/mole_hill_2p_seed0/final_model.zip", LONG]
    names = display_names(specs)
    result = TournamentResult("some_game", 3, names, filler="random", specs=specs)
    for a, b in itertools.combinations(range(len(specs)), 2):
        # the later agent wins both games of every pairing: Elo rises with the index
        result.games.append(_record(a, b, [names[a], names[b], "random"], 0, 1,
                                       [-1.0, 1.0, -1.0], [3, 9, 1], 40))  # fmt: skip
        result.games.append(_record(a, b, [names[b], names[a], "random"], 1, 0,
                                       [1.0, -1.0, -1.0], [8, 2, 1], 40))  # fmt: skip
    return result


def test_text_table_fits_100_columns() -> None:
    table = _result().table()
    assert max(len(line) for line in table.splitlines()) <= TABLE_WIDTH
    assert "ppo(mole_hill_2p_seed0)" in table and "ppo(~er_42/step_100000)" in table
    assert "win [95% CI]" in table and "(other seats: random)" in table


def test_standings_csv_keeps_the_full_specs(tmp_path) -> None:
    result = _result()
    _pairings, standings, _games = result.write_csv(tmp_path)
    rows = {r["agent"]: r["spec"] for r in csv.DictReader(standings.open())}
    assert rows["ppo(mole_hill_2p_seed0)"] == "ppo:runs/mole_hill_2p_seed0/final_model.zip"
    assert rows[display_name(LONG)] == LONG


def test_elo_panel_starts_at_the_average_and_labels_its_bars() -> None:
    import matplotlib.pyplot as plt

    result = _result()
    fig = tournament_figure(result)
    try:
        elo_axis = fig.axes[1]
        bars = elo_axis.patches
        standings = result.standings()
        assert len(bars) == len(standings)
        for bar, standing in zip(bars, standings, strict=True):
            assert bar.get_x() == pytest.approx(ELO_INITIAL)  # every bar starts at 1500
            assert bar.get_x() + bar.get_width() == pytest.approx(standing.elo)
        labels = [t.get_text() for t in elo_axis.texts]
        assert labels == [f"{s.elo:.0f}" for s in standings]
        for text, standing in zip(elo_axis.texts, standings, strict=True):
            # beyond the outer end of the error bar, on the bar's side: no line crosses it
            if standing.elo >= ELO_INITIAL:
                assert text.xy[0] >= max(standing.elo, standing.elo_high)
                assert text.get_ha() == "left"
            else:
                assert text.xy[0] <= min(standing.elo, standing.elo_low)
                assert text.get_ha() == "right"
        low, high = elo_axis.get_xlim()
        assert low < min(s.elo for s in standings) and high > max(s.elo for s in standings)
        assert low < ELO_INITIAL < high
        ticks = [t.get_text() for t in elo_axis.get_yticklabels()]
        assert all(len(t) <= 23 for t in ticks)
    finally:
        plt.close(fig)


def test_elo_axis_limits_include_the_baseline_with_room() -> None:
    low, high = elo_axis_limits([1510.0, 1560.0])
    assert low < ELO_INITIAL and high > 1560.0
    assert elo_axis_limits([1500.0, 1500.0]) == (1460.0, 1540.0)


def test_a_text_table_s_columns_are_as_wide_as_their_longest_cell() -> None:
    rows = [(LONG, 3, "0.50"), ("random", 12, "1.00")]
    lines = text_table(rows, ("agent", "games", "win"))
    assert lines == [
        f"{'agent':<{len(LONG)}}  games   win",
        f"{LONG}      3  0.50",
        f"{'random':<{len(LONG)}}     12  1.00",
    ]
    assert text_table([("a", "b")], left=2) == ["a  b"] and text_table([]) == []
