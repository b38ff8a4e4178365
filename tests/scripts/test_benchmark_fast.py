"""scripts/benchmark.py: the fast-path rows (compiled, batched, vector, mcts)."""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.envs.registry import GAMES, fast_path_available

pytestmark = pytest.mark.skipif(not fast_path_available(), reason="needs the 'fast' extra")
SPEC = next(spec for spec in GAMES.values() if spec.fast_engine)
LABEL = SPEC.label(SPEC.benchmark_players[0])


@pytest.mark.slow
def test_fast_rows_have_their_names_and_kinds(script, tmp_path) -> None:
    benchmark = script("benchmark")
    out = tmp_path / "fast.json"
    only = f"{LABEL} compiled,{LABEL} batched B=64,{LABEL} vector B=64,{LABEL} mcts"
    assert benchmark.main(["--quick", "--only", only, "--out", str(out)]) == 0
    rows = {r["name"]: r for r in json.loads(out.read_text())["results"]}
    assert rows[f"{LABEL} compiled"]["kind"] == "compiled"
    batched = rows[f"{LABEL} batched B=64"]
    assert batched["kind"] == "batched" and batched["threads"] == 1
    assert batched["steps"] % 64 == 0 and batched["games"] >= 1
    assert rows[f"{LABEL} vector B=64"]["kind"] == "vector"
    python, compiled = rows[f"{LABEL} mcts(200) python"], rows[f"{LABEL} mcts(200) compiled"]
    assert python["kind"] == compiled["kind"] == "mcts"
    assert compiled["seconds_per_move"] > 0 and compiled["speedup"] > 0
    assert not any(name.endswith("engine") or name == LABEL for name in rows)  # only these
    for row in rows.values():
        assert row["steps_per_s"] == pytest.approx(row["steps"] / row["seconds"], rel=1e-3)


def test_every_fast_row_name_is_listed_without_numba() -> None:
    from tabletop_zoo.baselines.commands._benchmark_fast import FAST_ROW_NAMES as names

    for spec in GAMES.values():
        if spec.fast_engine:
            for n in spec.benchmark_players:
                label = spec.label(n)
                assert {f"{label} batched B={b}" for b in (1, 64, 1024, 4096)} <= set(names)
                assert f"{label} compiled" in names
