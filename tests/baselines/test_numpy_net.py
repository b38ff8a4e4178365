"""The NumPy network format: subnormal weights are flushed to zero; layers that do not fit
the header are named."""

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet, flush_subnormals

TINY = np.finfo(np.float32).tiny  # smallest normal float32, about 1.2e-38


def test_flush_subnormals_zeroes_only_subnormal_entries() -> None:
    values = np.array([1e-40, -3e-39, TINY, -TINY, 0.0, 0.5, -2.0], dtype=np.float32)
    flushed = flush_subnormals(values)
    assert flushed.dtype == np.float32
    assert flushed.tolist() == [0.0, 0.0, float(TINY), -float(TINY), 0.0, 0.5, -2.0]
    assert values[0] != 0.0, "the input is not changed"


def test_dense_net_keeps_no_subnormal_weight_and_computes_the_same_outputs() -> None:
    # Weights that weight decay has shrunk towards 0 (never-legal actions, inputs that are
    # always 0) end up subnormal; NumPy would multiply them in the CPU's slow path.
    rng = np.random.default_rng(0)
    trunk_weight = rng.normal(size=(6, 4)).astype(np.float32)
    trunk_weight[0] = 1e-40
    policy_weight = rng.normal(size=(4, 5)).astype(np.float32)
    policy_weight[:, 3:] = -5e-39
    policy_bias = np.array([0.1, 0.2, 0.3, 1e-41, 2e-39], dtype=np.float32)
    net = DenseNet(
        [(trunk_weight, np.zeros(4, np.float32))],
        {"policy": (policy_weight, policy_bias)},
        "relu",
        {},
    )
    arrays = [a for pair in net.trunk + list(net.heads.values()) for a in pair]
    assert not any(((a != 0) & (np.abs(a) < TINY)).any() for a in arrays)
    assert (net.trunk[0][0][0] == 0).all() and (net.heads["policy"][0][:, 3:] == 0).all()
    x = rng.random((3, 6)).astype(np.float32)
    expected = np.maximum(x @ trunk_weight, 0) @ policy_weight + policy_bias
    np.testing.assert_allclose(net.forward(x)["policy"], expected, rtol=1e-6, atol=1e-30)


def test_layer_mismatch_names_the_widths_that_do_not_fit_the_header() -> None:
    meta = {"observation_shape": [2, 3], "num_actions": 5}
    trunk = [(np.zeros((6, 4), np.float32), np.zeros(4, np.float32))]
    fits = DenseNet(trunk, {"policy": (np.zeros((4, 5)), np.zeros(5))}, "relu", meta)
    assert fits.layer_mismatch() is None
    narrow = DenseNet(trunk, {"policy": (np.zeros((4, 2)), np.zeros(2))}, "relu", meta)
    assert narrow.layer_mismatch() == (
        "its input and policy widths (6, 2) do not match its header (6 inputs, 5 actions)"
    )
    wide_input = DenseNet(
        [(np.zeros((7, 4)), np.zeros(4))], {"policy": (np.zeros((4, 5)), np.zeros(5))}, "relu", meta
    )
    assert "widths (7, 5)" in wide_input.layer_mismatch()
