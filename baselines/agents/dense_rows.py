"""Dense layers computed row by row in one fixed order: the outputs of a row do not depend
on the other rows of the call, nor on whether numba is installed.

A BLAS matrix product rounds a row's outputs differently with the size of the call, so the
agents that play from a network use these layers: a position gets the same numbers searched
alone, with other leaves, or beside other games.

The order: output ``j`` of row ``i`` is ``0``, plus ``x[i, k] * weight[k, j]`` for every
input ``k`` with ``x[i, k] != 0`` in ascending ``k``, each product and sum rounded to
float32, plus ``bias[j]`` last (skipping zeros, most of our inputs, changes no number). A
numba kernel (no ``fastmath``) and NumPy row by row do exactly this, bit for bit.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_zoo.envs.registry import fast_path_available


def _layer_kernel(x, weight, bias, out):
    """``out[i] = x[i] @ weight + bias`` in the module's order."""
    rows, inputs = x.shape
    width = weight.shape[1]
    for i in range(rows):
        for j in range(width):
            out[i, j] = 0.0
        for k in range(inputs):
            v = x[i, k]
            if v != 0.0:
                for j in range(width):
                    out[i, j] += v * weight[k, j]
        for j in range(width):
            out[i, j] += bias[j]


def _columns_kernel(x, weight, bias, columns, starts, out):
    """``out[starts[i]:starts[i + 1]]`` = row ``i``'s outputs at ``columns`` of that range."""
    rows, inputs = x.shape
    for i in range(rows):
        first, last = starts[i], starts[i + 1]
        for c in range(first, last):
            out[c] = 0.0
        for k in range(inputs):
            v = x[i, k]
            if v != 0.0:
                for c in range(first, last):
                    out[c] += v * weight[k, columns[c]]
        for c in range(first, last):
            out[c] += bias[columns[c]]


def _relu_network_kernel(
    x, trunk_weights, trunk_biases, heads, columns, starts, value_out, policy_out
):
    """A ReLU trunk with a ``value`` head and the ``policy`` head at ``columns`` (as
    :func:`_columns_kernel`), row by row, in the module's order; ``heads``: the value
    weight and bias, then the policy's."""
    value_weight, value_bias, policy_weight, policy_bias = heads
    rows, inputs = x.shape
    size = inputs
    for layer in range(len(trunk_weights)):
        size = max(size, trunk_weights[layer].shape[1])
    current = np.zeros(size, np.float32)
    following = np.zeros(size, np.float32)
    actions = policy_weight.shape[1]
    every = np.zeros(actions, np.float32)

    def sums(source, count, weight, target):
        """``target[j]`` = the sum over ``k < count`` of ``source[k] * weight[k, j]`` in
        the module's order (no bias)."""
        for j in range(weight.shape[1]):
            target[j] = 0.0
        for k in range(count):
            v = source[k]
            if v != 0.0:
                for j in range(weight.shape[1]):
                    target[j] += v * weight[k, j]

    for i in range(rows):
        width_in = inputs
        for k in range(inputs):
            current[k] = x[i, k]
        for layer in range(len(trunk_weights)):
            weight, bias = trunk_weights[layer], trunk_biases[layer]
            sums(current, width_in, weight, following)
            for j in range(weight.shape[1]):
                following[j] += bias[j]
                if following[j] < 0.0:  # ReLU (a zero's sign does not matter: skipped)
                    following[j] = 0.0
            current, following, width_in = following, current, weight.shape[1]
        sums(current, width_in, value_weight, value_out[i])
        for j in range(value_weight.shape[1]):
            value_out[i, j] += value_bias[j]
        first, last = starts[i], starts[i + 1]
        if 8 * (last - first) >= actions:  # many legal actions: every sum (vectorised)
            sums(current, width_in, policy_weight, every)
            for c in range(first, last):
                policy_out[c] = every[columns[c]]
        else:  # few: only theirs (the same sums)
            for c in range(first, last):
                policy_out[c] = 0.0
            for k in range(width_in):
                v = current[k]
                if v != 0.0:
                    for c in range(first, last):
                        policy_out[c] += v * policy_weight[k, columns[c]]
        for c in range(first, last):
            policy_out[c] += policy_bias[columns[c]]


@functools.cache
def _kernels() -> tuple:
    """The numba-compiled kernels (imports numba on first use)."""
    from tabletop_zoo.envs.compiled.common import jit

    return jit(_layer_kernel), jit(_columns_kernel), jit(_relu_network_kernel)


def _row_sum(row: np.ndarray, weight: np.ndarray, columns: np.ndarray | None) -> np.ndarray:
    """One row's sums (bias not added) in the module's order, with NumPy."""
    nonzero = np.flatnonzero(row)
    width = weight.shape[1] if columns is None else len(columns)
    if nonzero.size == 0 or width == 0:
        return np.zeros(width, np.float32)
    block = weight[nonzero] if columns is None else weight[np.ix_(nonzero, columns)]
    terms = row[nonzero, None] * block
    terms[0] += np.float32(0.0)  # the sum starts at +0, as the kernel's does
    if width > 1:  # down the rows NumPy adds one after the other (pairwise: the fast axis)
        return np.add.reduce(terms, axis=0)
    return np.cumsum(terms, axis=0, dtype=np.float32)[-1]  # one column: the fast axis


def _as_float32(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three arrays as C-contiguous float32 (no copy when they are), shapes checked."""
    x, weight, bias = (np.ascontiguousarray(a, dtype=np.float32) for a in (x, weight, bias))
    if weight.ndim != 2 or bias.shape != (weight.shape[1],):
        raise ValueError(
            f"a dense layer needs weight (in, out) and bias (out,), got "
            f"{weight.shape} and {bias.shape}"
        )
    if x.ndim != 2 or x.shape[1] != weight.shape[0]:
        raise ValueError(
            f"a dense layer of {weight.shape} takes rows of {weight.shape[0]} inputs, got {x.shape}"
        )
    return x, weight, bias


def dense_layer(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, compiled: bool | None = None
) -> np.ndarray:
    """``x @ weight + bias`` (float32), every row alone in the module's fixed order, by
    numba (``compiled``) or NumPy (default: the fast path when available; the same bits)."""
    x, weight, bias = _as_float32(x, weight, bias)
    compiled = fast_path_available() if compiled is None else compiled
    if compiled:
        out = np.empty((x.shape[0], weight.shape[1]), np.float32)
        _kernels()[0](x, weight, bias, out)
        return out
    if not len(x):
        return np.zeros((0, weight.shape[1]), np.float32)
    out = np.stack([_row_sum(row, weight, None) for row in x])
    out += bias
    return out


def dense_columns(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray,
    columns: np.ndarray,
    starts: np.ndarray,
    compiled: bool | None = None,
) -> np.ndarray:
    """Row ``i``'s outputs of :func:`dense_layer` at ``columns[starts[i]:starts[i + 1]]``
    only, end to end: ``columns`` every row's columns end to end (e.g. the legal actions),
    ``starts`` where each row's begin (``rows + 1`` entries, from :func:`flat_columns`)."""
    x, weight, bias = _as_float32(x, weight, bias)
    columns, starts = _check_columns(columns, starts, len(x), weight.shape[1])
    compiled = fast_path_available() if compiled is None else compiled
    if compiled:
        out = np.empty(len(columns), np.float32)
        _kernels()[1](x, weight, bias, columns, starts, out)
        return out
    parts = [
        _row_sum(x[i], weight, columns[starts[i] : starts[i + 1]])
        + bias[columns[starts[i] : starts[i + 1]]]
        for i in range(len(x))
    ]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def flat_columns(columns: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """``(flat, starts)``: per-row column lists end to end, and where each row's begin."""
    starts = np.zeros(len(columns) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in columns], out=starts[1:])
    if not len(columns):
        return np.zeros(0, np.int64), starts
    return np.concatenate([np.asarray(c, dtype=np.int64).ravel() for c in columns]), starts


def mask_columns(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, columns, starts)`` of a ``(rows, width)`` bool mask: the row and column of
    every true entry, row by row with each row's columns ascending, and where each row's
    begin (``rows + 1`` offsets, as :func:`flat_columns` gives them)."""
    rows, columns = np.nonzero(masks)
    starts = np.zeros(len(masks) + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(masks, axis=1), out=starts[1:])
    return rows, columns.astype(np.int64, copy=False), starts


def _check_columns(
    columns: np.ndarray, starts: np.ndarray, rows: int, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """``columns`` and ``starts`` as int64, checked against ``rows`` and ``width``."""
    columns = np.ascontiguousarray(columns, dtype=np.int64)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    if (
        columns.ndim != 1
        or starts.shape != (rows + 1,)
        or starts[0] != 0
        or starts[-1] != len(columns)
        or (rows and np.diff(starts).min() < 0)
    ):
        raise ValueError("columns must be 1-d and starts the rows + 1 offsets into them")
    if columns.size and (columns.min() < 0 or columns.max() >= width):
        raise ValueError(f"columns must be integers in [0, {width})")
    return columns, starts


def network_rows(
    x: np.ndarray,
    trunk: Sequence[tuple[np.ndarray, np.ndarray]],
    activation: Any,
    heads: dict[str, tuple[np.ndarray, np.ndarray]],
    columns: np.ndarray,
    starts: np.ndarray,
    relu: bool,
    compiled: bool | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A dense network row by row: ``(policy, outputs)``, the ``policy`` head at each
    row's columns, end to end (:func:`dense_columns`), and every other head's outputs.
    ``trunk``: ``(weight, bias)`` per layer (float32, C-contiguous), ``activation`` after
    each; a ``relu`` network with exactly the heads ``policy`` and ``value`` runs as one
    compiled call on the fast path (the same bits)."""
    compiled = fast_path_available() if compiled is None else compiled
    if compiled and relu and trunk and sorted(heads) == ["policy", "value"]:
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != trunk[0][0].shape[0]:
            raise ValueError(
                f"the network takes rows of {trunk[0][0].shape[0]} inputs, got {x.shape}"
            )
        columns, starts = _check_columns(columns, starts, len(x), heads["policy"][0].shape[1])
        value = np.empty((len(x), heads["value"][0].shape[1]), np.float32)
        policy = np.empty(len(columns), np.float32)
        trunk_weights, trunk_biases = tuple(w for w, _ in trunk), tuple(b for _, b in trunk)
        both = (*heads["value"], *heads["policy"])
        _kernels()[2](x, trunk_weights, trunk_biases, both, columns, starts, value, policy)
        return policy, {"value": value}
    for weight, bias in trunk:
        x = activation(dense_layer(x, weight, bias, compiled))
    outputs = {
        name: dense_layer(x, weight, bias, compiled)
        for name, (weight, bias) in heads.items()
        if name != "policy"
    }
    if "policy" not in heads:
        return np.zeros(0, np.float32), outputs
    return dense_columns(x, *heads["policy"], columns, starts, compiled), outputs
