"""scripts/evaluate.py: a tiny tournament writes its table, CSVs and chart."""

from __future__ import annotations

import csv

import pytest


def test_tiny_tournament_random_vs_greedy(script, tmp_path, capsys) -> None:
    evaluate = script("evaluate")
    out = tmp_path / "t"
    argv = ["--agents", "random,greedy", "--games", "4", "--out", str(out), "--no-progress"]
    assert evaluate.main(argv) == 0
    printed = capsys.readouterr().out
    assert "win [95% CI]" in printed and "elo" in printed
    (row,) = list(csv.DictReader((out / "pairings.csv").open()))
    assert (row["agent"], row["opponent"], row["games"]) == ("random", "greedy", "4")
    rates = sum(float(row[f"{o}_rate"]) for o in ("win", "draw", "loss"))
    assert rates == pytest.approx(1.0)
    assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == 4
    standings = list(csv.DictReader((out / "standings.csv").open()))
    assert {s["agent"] for s in standings} == {"random", "greedy"}
    assert (out / "tournament.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,wizard"], "allowed"),
        (["--agents", "random"], "at least 2 agents"),
        (["--num-players", "3"], "is played by 2 players"),
        (["--seed", "-1"], "--seed: must be an integer in 0.."),
        (["--games", "0"], "--games: must be an integer >= 1"),
        (["--random-opening", "-1"], "--random-opening: must be an integer >= 0"),
        (["--agents", "random,ppo:no/such/model.zip"], "no saved MaskablePPO model"),
    ],
)
def test_bad_input_is_a_usage_error(script, tmp_path, capsys, argv, message) -> None:
    evaluate = script("evaluate")
    with pytest.raises(SystemExit) as exc:
        evaluate.main(["--games", "2", "--no-progress", "--out", str(tmp_path / "o"), *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # nothing written


def test_out_under_a_file_fails_before_playing(script, tmp_path, capsys) -> None:
    evaluate = script("evaluate")
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as exc:
        evaluate.main(["--games", "2", "--no-progress", "--out", str(blocker / "results")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file, not a folder" in err
