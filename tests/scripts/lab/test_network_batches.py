"""scripts/lab/network_batches.py: network outputs alone and in batches."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import reference
from tabletop_zoo.envs.registry import fast_path_available


def test_the_fixed_order_product_is_the_same_for_every_call_size(script) -> None:
    tool = script("network_batches")
    rng = np.random.default_rng(3)
    x = np.where(rng.random((9, 40)) < 0.5, rng.random((9, 40)), 0).astype(np.float32)
    weight = rng.standard_normal((40, 7)).astype(np.float32)
    whole = tool.fixed_order_numpy(x, weight)
    for row in range(9):  # alone, and at other places of other calls
        assert np.array_equal(tool.fixed_order_numpy(x[row : row + 1], weight)[0], whole[row])
        assert np.array_equal(tool.fixed_order_numpy(x[row:], weight)[0], whole[row])
    assert np.allclose(whole, x @ weight, atol=1e-5)
    if fast_path_available():
        assert np.array_equal(tool.fixed_order_numba()(x, weight), whole)


def test_network_batches_reports_every_way(script, capsys) -> None:
    assert script("network_batches").main(["--game", "mole_hill", "--rows", "16"]) == 0
    out = capsys.readouterr().out
    assert "mole_hill-2p-alphazero.npz: 16 positions" in out and "of the inputs are 0" in out
    assert "BLAS, calls of 1 rows: " in out and "rows shuffled between calls" in out
    assert "fixed order (NumPy), calls of 1, 3, 8, 64 rows: [0, 0, 0, 0] rows differ" in out
    if fast_path_available():
        assert "fixed order, NumPy and numba give the same bits: True" in out


@pytest.mark.slow
@pytest.mark.skipif(not fast_path_available(), reason="the fixed-order search needs numba")
def test_network_batches_searches_positions_both_ways(script, capsys) -> None:
    argv = ["--game", "mole_hill", "--rows", "16", "--positions", "2"]
    assert script("network_batches").main(argv) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    simulations = reference.reference_entry("mole_hill-2p-alphazero")["simulations"]
    assert last.startswith(f"2 positions searched with {simulations} simulations: BLAS ")
    assert last.endswith(" moves differ")
