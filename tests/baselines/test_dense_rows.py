"""Dense layers row by row in one fixed order (:mod:`tabletop_zoo.baselines.agents.dense_rows`):
the compiled kernels and NumPy give the same bits, a row's numbers do not depend on the
other rows of the call, and they are the network's function (close to the BLAS product)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.dense_rows import (
    dense_columns,
    dense_layer,
    flat_columns,
    network_rows,
)
from tabletop_zoo.baselines.agents.numpy_net import ACTIVATIONS, segment_softmax, softmax
from tabletop_zoo.envs.registry import fast_path_available

needs_numba = pytest.mark.skipif(not fast_path_available(), reason="needs the 'fast' extra")


def _layer(rng: np.random.Generator, inputs: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Weights with zeros and negative zeros (flushed subnormals), scales far apart."""
    weight = (rng.normal(size=(inputs, width)) * rng.choice([1e-3, 1.0, 1e3])).astype(np.float32)
    weight[rng.random(weight.shape) < 0.2] = 0.0
    weight[rng.random(weight.shape) < 0.05] = -0.0
    return weight, rng.normal(size=width).astype(np.float32)


def _rows(rng: np.random.Generator, rows: int, inputs: int) -> np.ndarray:
    """Mostly zero inputs, as board planes and ReLU outputs are."""
    x = rng.normal(size=(rows, inputs)).astype(np.float32)
    x[rng.random(x.shape) < 0.7] = 0.0
    return x


def _columns(rng: np.random.Generator, rows: int, width: int) -> list[np.ndarray]:
    return [
        np.sort(rng.choice(width, size=rng.integers(0, width + 1), replace=False))
        for _ in range(rows)
    ]


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_kernel_and_numpy_give_the_same_bits_whatever_the_other_rows(seed) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(25):
        inputs, width, rows = (int(v) for v in rng.integers(1, 200, size=3) % [200, 150, 9] + 1)
        weight, bias = _layer(rng, inputs, width)
        x = _rows(rng, rows, inputs)
        compiled, numpy = dense_layer(x, weight, bias, True), dense_layer(x, weight, bias, False)
        assert compiled.tobytes() == numpy.tobytes()
        alone = np.concatenate([dense_layer(x[i : i + 1], weight, bias, True) for i in range(rows)])
        assert alone.tobytes() == compiled.tobytes()
        np.testing.assert_allclose(
            compiled, x @ weight + bias, rtol=1e-3, atol=1e-2 * (1 + abs(weight).max())
        )
        flat, starts = flat_columns(_columns(rng, rows, width))
        picked = dense_columns(x, weight, bias, flat, starts, True)
        assert picked.tobytes() == dense_columns(x, weight, bias, flat, starts, False).tobytes()
        at_columns = np.concatenate(
            [compiled[i, flat[starts[i] : starts[i + 1]]] for i in range(rows)]
        )
        assert picked.tobytes() == at_columns.tobytes()


@needs_numba
@pytest.mark.parametrize("seed", range(3))
def test_a_whole_network_the_same_on_the_fused_and_the_layered_paths(seed) -> None:
    rng = np.random.default_rng(100 + seed)
    for _ in range(20):
        sizes = [int(v) for v in rng.integers(1, 120, size=int(rng.integers(2, 4)))]
        trunk = [_layer(rng, a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=False)]
        actions, players, rows = int(rng.integers(1, 200)), int(rng.integers(1, 5)), 5
        heads = {
            "policy": _layer(rng, sizes[-1], actions),
            "value": _layer(rng, sizes[-1], players),
        }
        x = _rows(rng, rows, sizes[0])
        flat, starts = flat_columns(_columns(rng, rows, actions))
        runs = [
            network_rows(x, trunk, ACTIVATIONS["relu"], heads, flat, starts, relu, compiled)
            for relu, compiled in ((True, True), (False, True), (False, False))
        ]
        for policy, outputs in runs[1:]:
            assert policy.tobytes() == runs[0][0].tobytes()
            assert outputs["value"].tobytes() == runs[0][1]["value"].tobytes()


def test_segment_softmax_is_each_segment_alone() -> None:
    rng = np.random.default_rng(7)
    logits = rng.normal(size=30).astype(np.float32)
    starts = np.array([0, 1, 9, 30])
    together = segment_softmax(logits, starts)
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        assert together[a:b].tobytes() == softmax(logits[a:b]).tobytes()
        assert abs(float(together[a:b].sum()) - 1.0) < 1e-5
    with pytest.raises(ValueError, match="at least one"):
        segment_softmax(logits, np.array([0, 0, 30]))


def test_bad_columns_are_refused() -> None:
    weight, bias = np.ones((3, 4), np.float32), np.zeros(4, np.float32)
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"in \[0, 4\)"):
        dense_columns(x, weight, bias, np.array([0, 4]), np.array([0, 1, 2]), False)
    with pytest.raises(ValueError, match="offsets"):
        dense_columns(x, weight, bias, np.array([0, 1]), np.array([0, 2]), False)
    with pytest.raises(ValueError, match="rows of 3 inputs"):
        dense_layer(np.ones((2, 5)), weight, bias, False)
