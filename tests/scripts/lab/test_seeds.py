"""scripts/lab/seeds.py and stats.across_seeds: results over several training seeds."""

from __future__ import annotations

import math

import pytest

from tabletop_zoo.baselines.evaluation.stats import across_seeds, t_quantile_95

HEADER = "timesteps,opponent,games,wins,draws,losses,win_rate,mean_score\n"


def test_across_seeds_is_the_student_t_interval_of_the_mean() -> None:
    # 0.8, 0.9, 1.0: mean 0.9, sample sd 0.1, t(2 df) = 4.3027 -> half width 0.2484
    summary = across_seeds([0.8, 0.9, 1.0])
    assert summary.mean == pytest.approx(0.9)
    assert summary.low == pytest.approx(0.9 - 4.3027 * 0.1 / math.sqrt(3), abs=1e-4)
    assert summary.high == pytest.approx(1.1484, abs=1e-4)
    assert across_seeds([0.8, 0.9, 1.0], bounds=(0, 1)).high == 1.0
    single = across_seeds([0.7])
    assert single.mean == 0.7 and math.isnan(single.low) and math.isnan(single.high)
    assert t_quantile_95(1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile_95(200) == pytest.approx(1.972, abs=1e-3)  # expansion beyond the table
    with pytest.raises(ValueError):
        across_seeds([])


def _run(folder, rows: list[str]):
    folder.mkdir()
    (folder / "eval.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    return str(folder)


def test_seeds_reads_the_final_evaluation_of_each_run(script, tmp_path, capsys) -> None:
    seeds = script("seeds")
    runs = [
        _run(tmp_path / "s0", ["100,greedy,10,1,0,9,0.1,3", "200,greedy,10,5,0,5,0.5,10"]),
        _run(tmp_path / "s1", ["100,greedy,10,9,0,1,0.9,3", "200,greedy,10,7,0,3,0.7,14"]),
    ]
    assert seeds.main(runs) == 0
    line = [r for r in capsys.readouterr().out.splitlines() if "greedy" in r][0]
    # final rows only (step 200): 0.5 and 0.7 -> mean 0.6, t(1 df) interval clipped to [0, 1]
    assert line.split()[1:] == ["0.60", "[0.00,", "1.00]", "(seeds", "0.50,", "0.70)"]
    assert seeds.main([*runs, "--column", "mean_score"]) == 0
    # scores 10 and 14: mean 12, sd 2.83, t(1) 12.706 * 2 = 25.41, not clipped
    assert "12.00 [-13.41, 37.41]" in capsys.readouterr().out
    assert seeds.main([*runs, "--plot", str(tmp_path / "curves.png")]) == 0
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
    assert seeds.curves(tmp_path / "s1", "win_rate") == {"greedy": {100: 0.9, 200: 0.7}}
    early = _run(tmp_path / "s2", ["100,greedy,10,1,0,9,0.1,3"])  # a run still training
    assert seeds.main([*runs, early]) == 0
    assert "last evaluations are at different steps (s0 200, s1 200, s2 100)" in (
        capsys.readouterr().out
    )


def test_seeds_values_and_bad_input(script, tmp_path, capsys) -> None:
    seeds = script("seeds")
    assert seeds.main(["--values", "0.8,0.9,1.0"]) == 0
    assert capsys.readouterr().out.startswith("0.90 [0.65, 1.00]")  # a rate: clipped
    for argv in ([], ["--values", "a,b"], [str(tmp_path)], ["--values", "1", str(tmp_path)]):
        with pytest.raises(SystemExit):
            seeds.main(argv)
    err = capsys.readouterr().err
    assert "no eval.csv" in err and "give run folders or --values" in err
