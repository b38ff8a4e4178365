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


def test_out_under_a_file_fails_before_playing(script, tmp_path, capsys) -> None:
    evaluate = script("evaluate")
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as exc:
        evaluate.main(["--games", "2", "--no-progress", "--out", str(blocker / "results")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file, not a folder" in err
