"""Small fully connected networks run with NumPy alone: the saved form of learned agents
(AlphaZero: heads ``policy`` and ``value``; exported MaskablePPO actors: head ``policy``).

A network file (``.npz``) holds a trunk of dense layers with one activation, linear heads on
top, and a JSON ``meta`` record (game, player count, observation shape, number of actions,
how it was trained). Weights are stored as float16 (computed in float32), so the shipped
reference models stay small and play without torch.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.dense_rows import flat_columns, network_rows
from tabletop_zoo.envs._files import write_bytes_atomic
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError

ACTIVATIONS = {"relu": lambda x: np.maximum(x, 0.0), "tanh": np.tanh}


def flush_subnormals(array: np.ndarray) -> np.ndarray:
    """``array`` as float32 with its subnormal entries (``0 < |x| < 1.2e-38``) set to 0:
    weights that training never pushes decay into subnormals, which the CPU multiplies
    many times slower (NumPy has no flush-to-zero mode); an output moves by under 1e-36."""
    out = np.array(array, dtype=np.float32)
    out[np.abs(out) < np.finfo(np.float32).tiny] = 0.0
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax of a 1-d array of logits (e.g. those of the legal actions)."""
    return segment_softmax(logits, np.array([0, len(logits)]))


def legal_action(
    logits: np.ndarray, legal: np.ndarray, rng: np.random.Generator | None = None
) -> int:
    """The action a policy plays from its ``logits`` at the ``legal`` actions: the one with
    the largest logit (the first of equal ones) without ``rng``, else one drawn from the
    softmax over them with ``rng``."""
    if rng is None:
        return int(legal[np.argmax(logits)])
    return int(legal[rng.choice(len(legal), p=softmax(np.asarray(logits, np.float64)))])


def segment_softmax(logits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of each segment ``logits[starts[i]:starts[i + 1]]`` (none empty), end to
    end. A segment's numbers depend on its logits alone, not on the others."""
    counts = np.diff(starts)
    if counts.size and counts.min() < 1:
        raise ValueError("segment_softmax: every segment needs at least one logit")
    top = np.maximum.reduceat(logits, starts[:-1])
    weights = np.exp(logits - np.repeat(top, counts))
    return weights / np.repeat(np.add.reduceat(weights, starts[:-1]), counts)


class DenseNet:
    """A trunk of dense layers (``(weight, bias)`` each, weight ``(inputs, outputs)``,
    ``activation`` ``"relu"`` or ``"tanh"`` after each) plus linear ``heads`` by name,
    evaluated in float32 with NumPy; ``meta`` is a JSON-serialisable description. The
    weights are copied through :func:`flush_subnormals`."""

    def __init__(
        self,
        trunk: Sequence[tuple[np.ndarray, np.ndarray]],
        heads: Mapping[str, tuple[np.ndarray, np.ndarray]],
        activation: str,
        meta: Mapping[str, Any],
    ) -> None:
        if activation not in ACTIVATIONS:
            raise InvalidOptionError(
                f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}"
            )
        self.trunk = [(flush_subnormals(w), flush_subnormals(b)) for w, b in trunk]
        self.heads = {k: (flush_subnormals(w), flush_subnormals(b)) for k, (w, b) in heads.items()}
        self.activation = activation
        self.meta = dict(meta)

    @property
    def input_size(self) -> int:
        """Number of inputs (the flattened observation)."""
        first = self.trunk[0][0] if self.trunk else next(iter(self.heads.values()))[0]
        return int(first.shape[0])

    def layer_mismatch(self) -> str | None:
        """Why the layers do not fit the header, or None when they do: the input width
        against ``meta["observation_shape"]`` and the ``policy`` head's width against
        ``meta["num_actions"]`` (both fields are the caller's to check first)."""
        inputs = int(np.prod(self.meta["observation_shape"]))
        actions = int(self.meta["num_actions"])
        outputs = int(self.heads["policy"][0].shape[1])
        if (self.input_size, outputs) == (inputs, actions):
            return None
        return (
            f"its input and policy widths ({self.input_size}, {outputs}) do not match its "
            f"header ({inputs} inputs, {actions} actions)"
        )

    def _rows(self, inputs: np.ndarray) -> np.ndarray:
        """A batch of observations as float32 rows, their width checked."""
        x = np.asarray(inputs, np.float32).reshape(len(inputs), -1)
        if x.shape[1] != self.input_size:
            raise InvalidOptionError(
                f"network expects {self.input_size} inputs per observation, got {x.shape[1]}"
            )
        return x

    def forward(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        """Head outputs for a batch ``(batch, ...)`` of observations (flattened here)."""
        x = self._rows(inputs)
        act = ACTIVATIONS[self.activation]
        for weight, bias in self.trunk:
            x = act(x @ weight + bias)
        return {name: x @ weight + bias for name, (weight, bias) in self.heads.items()}

    def forward_rows(
        self, inputs: np.ndarray, legal: Sequence[Sequence[int]]
    ) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
        """The outputs agents play from: ``(policy, heads)``, the ``policy`` head's logits
        at each row's ``legal`` actions and the other heads' outputs, every row computed
        alone in one fixed order (:mod:`.dense_rows`), unlike :meth:`forward` (BLAS)."""
        flat, starts = flat_columns(legal)
        policy, heads = self.forward_flat(inputs, flat, starts)
        return [policy[starts[i] : starts[i + 1]] for i in range(len(legal))], heads

    def forward_flat(
        self, inputs: np.ndarray, actions: np.ndarray, starts: np.ndarray
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """:meth:`forward_rows` with the legal actions and the logits end to end
        (``starts``: where each row's begin, ``rows + 1`` offsets)."""
        x = self._rows(inputs)
        return network_rows(
            x,
            self.trunk,
            ACTIVATIONS[self.activation],
            self.heads,
            actions,
            starts,
            relu=self.activation == "relu",
        )

    def save(self, path: str | Path) -> Path:
        """Write the network as a compressed ``.npz`` (float16 weights), atomically: a
        failed save leaves the previous file at ``path`` as it was."""
        arrays: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.trunk):
            arrays[f"trunk.{i}.weight"], arrays[f"trunk.{i}.bias"] = w, b
        for name, (w, b) in self.heads.items():
            arrays[f"head.{name}.weight"], arrays[f"head.{name}.bias"] = w, b
        arrays = {k: v.astype(np.float16) for k, v in arrays.items()}
        header = {"activation": self.activation, "heads": list(self.heads), "meta": self.meta}
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        return write_bytes_atomic(Path(path), buffer.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> DenseNet:
        """Read a network written by :meth:`save`; anything else (missing, truncated or
        malformed, non-finite values) raises :class:`ModelFileError` naming the file.
        Nothing is unpickled (``allow_pickle=False``)."""
        path = Path(path)
        if not path.is_file():
            raise ModelFileError(f"no network file at {str(path)!r}")
        try:
            trunk, heads, header = _read_network_file(path)
        except _Malformed as exc:
            raise ModelFileError(f"{str(path)!r} is not a network file of ours: {exc}") from None
        except MemoryError:
            raise ModelFileError(f"{str(path)!r}: its arrays do not fit in memory") from None
        except (
            OSError,
            EOFError,
            ValueError,
            KeyError,
            TypeError,
            zipfile.BadZipFile,
            zlib.error,
            struct.error,
            NotImplementedError,
        ) as exc:
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
            raise ModelFileError(
                f"{str(path)!r} is not a network file of ours (truncated or damaged? {reason})"
            ) from None
        return cls(trunk, heads, header["activation"], header["meta"])


MAX_NETWORK_BYTES = 1 << 30
"""Largest total of uncompressed arrays a network file may declare (a damaged or hostile
zip cannot make :meth:`DenseNet.load` allocate more)."""


class _Malformed(Exception):
    """A network file whose content is not what :meth:`DenseNet.save` writes."""


def _read_network_file(path: Path) -> tuple[list, dict, dict]:
    """``(trunk, heads, header)`` of a network file, every array and field checked."""
    if path.stat().st_size == 0:
        raise _Malformed("the file is empty")
    if not zipfile.is_zipfile(path):
        raise _Malformed("not a zip archive (.npz), or a truncated one")
    with zipfile.ZipFile(path) as archive:
        declared = sum(info.file_size for info in archive.infolist())
    if declared > MAX_NETWORK_BYTES:
        raise _Malformed(f"its arrays declare {declared} bytes (limit {MAX_NETWORK_BYTES})")
    with np.load(path, allow_pickle=False) as data:
        files = set(data.files)
        if "header" not in files:
            raise _Malformed("no 'header' array")
        header = _header(data["header"])
        count = sum(1 for k in files if k.startswith("trunk.") and k.endswith(".bias"))
        layers = [(f"trunk.{i}.weight", f"trunk.{i}.bias") for i in range(count)]
        layers += [(f"head.{n}.weight", f"head.{n}.bias") for n in header["heads"]]
        missing = [k for pair in layers for k in pair if k not in files]
        if missing:
            raise _Malformed(f"missing arrays {', '.join(missing[:4])}")
        arrays = {k: data[k] for pair in layers for k in pair}
    width = None  # outputs of the trunk so far
    for index, (weight_key, bias_key) in enumerate(layers):
        weight, bias = arrays[weight_key], arrays[bias_key]
        for key, array, ndim in ((weight_key, weight, 2), (bias_key, bias, 1)):
            if array.dtype.kind != "f" or array.ndim != ndim or 0 in array.shape:
                raise _Malformed(
                    f"{key} must be a non-empty {ndim}-d float array, got {array.dtype} "
                    f"of shape {array.shape}"
                )
            if not np.isfinite(array).all():
                raise _Malformed(f"{key} holds non-finite values (nan or inf)")
        if bias.shape[0] != weight.shape[1]:
            raise _Malformed(
                f"{bias_key} has {bias.shape[0]} entries for {weight.shape[1]} outputs"
            )
        if width is not None and weight.shape[0] != width:
            raise _Malformed(
                f"{weight_key} takes {weight.shape[0]} inputs, the trunk gives {width}"
            )
        if index < count:
            width = weight.shape[1]
    if count == 0 and len({arrays[w].shape[0] for w, _ in layers}) > 1:
        raise _Malformed("the heads take different numbers of inputs")
    pairs = [(arrays[w], arrays[b]) for w, b in layers]
    return pairs[:count], dict(zip(header["heads"], pairs[count:], strict=True)), header


def _header(array: np.ndarray) -> dict[str, Any]:
    """The JSON header record of a network file, its fields checked."""
    if array.dtype != np.uint8 or array.ndim != 1:
        raise _Malformed(f"'header' must be 1-d uint8 bytes, got {array.dtype} {array.shape}")
    try:
        header = json.loads(array.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _Malformed(f"'header' is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise _Malformed("'header' is not a JSON object")
    if header.get("activation") not in ACTIVATIONS:
        raise _Malformed(f"activation must be one of {sorted(ACTIVATIONS)}")
    heads = header.get("heads")
    if (
        not isinstance(heads, list)
        or not heads
        or not all(isinstance(h, str) and h for h in heads)
        or len(set(heads)) != len(heads)
    ):
        raise _Malformed("'heads' must be a list of distinct names")
    if not isinstance(header.get("meta"), dict):
        raise _Malformed("'meta' must be a JSON object")
    return header
