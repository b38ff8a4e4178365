"""scripts/benchmark.py --quick: table, JSON report, ratios to connect_four_v3."""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.envs.registry import GAMES

OUR_ROWS = [spec.label(n) for spec in GAMES.values() for n in spec.benchmark_players]


@pytest.mark.slow
def test_quick_benchmark_writes_json(script, tmp_path, capsys) -> None:
    benchmark = script("benchmark")
    out = tmp_path / "bench.json"
    assert benchmark.main(["--quick", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    rows = {r["name"]: r for r in report["results"]}
    c4 = rows["connect_four_v3"]
    assert c4["ratio_connect_four_v3"] == pytest.approx(1.0)
    assert rows["go_v5 (9x9)"]["ratio_go_v5"] == pytest.approx(1.0)
    for row in rows.values():
        assert row["games"] >= 1 and row["steps"] >= row["games"]
        assert row["steps_per_s"] == pytest.approx(row["steps"] / row["seconds"], rel=1e-3)
    measured = set(rows)
    assert OUR_ROWS  # every game of the registry, at each of its benchmark player counts
    for name in OUR_ROWS:
        # every env of ours is either measured (env and engine rows) or skipped with a note
        engine = f"{name} engine"
        assert ({name, engine} <= measured) or any(name in n for n in report["notes"])
        if name in measured:
            assert (rows[name]["kind"], rows[engine]["kind"]) == ("env", "engine")
    printed = capsys.readouterr().out
    assert "vs connect_four_v3" in printed and "vs go_v5" in printed


def test_aec_loop_counts_every_step_call(script) -> None:
    import numpy as np
    import pettingzoo

    benchmark = script("benchmark")
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    calls = {"step": 0, "moves": 0}
    real_step = env.step

    def counting_step(action):
        calls["step"] += 1
        calls["moves"] += action is not None
        return real_step(action)

    env.step = counting_step
    steps = benchmark.play_aec_game(env, np.random.default_rng(0), seed=0)
    assert steps == calls["step"]
    # a finished game retires both agents with step(None): two calls beyond the moves
    assert steps == calls["moves"] + 2
    assert 5 <= calls["moves"] <= 9


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "nan"], "--seconds: must be a number > 0"),  # would never stop
        (["--seconds", "0"], "--seconds: must be a number > 0"),
        (["--seed", "-1"], "--seed: must be an integer"),
        (["--only", "chess"], f"matches no env; names: {OUR_ROWS[0]}, "),
        (["--out", ""], "--out: the output file name is empty"),
        (["--out", "/dev/null/b.json"], "is a file, not a folder"),
    ],
)
def test_bad_flags_are_usage_errors(script, capsys, argv, message) -> None:
    benchmark = script("benchmark")
    with pytest.raises(SystemExit) as exc:
        benchmark.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
