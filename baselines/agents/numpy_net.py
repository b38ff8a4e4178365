"""Small fully connected networks run with NumPy alone: the saved form of learned agents.

A network file (``.npz``) holds a trunk of dense layers with one activation, some linear
heads on top of the trunk, and a JSON ``meta`` record (what the network is for: game,
player count, observation shape, number of actions, how it was trained). Weights are
stored as float16 (half the size; computed in float32), so the reference models shipped
with the package stay small and play without torch.

Both the AlphaZero-style agent (heads ``policy`` and ``value``) and the exported actors of
MaskablePPO models (head ``policy``; SB3's ``MlpPolicy`` uses tanh) use this format.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.envs._files import write_bytes_atomic
from tabletop_zoo.envs.errors import InvalidOptionError

__all__ = ["ACTIVATIONS", "DenseNet", "flush_subnormals", "masked_softmax"]

ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
}


def flush_subnormals(array: np.ndarray) -> np.ndarray:
    """``array`` as float32 with its subnormal entries (``0 < |x| < 1.2e-38``) set to 0.

    Weights that training never pushes (inputs that are always 0, actions that are never
    legal) decay towards 0 under weight decay and end up subnormal. NumPy has no
    flush-to-zero mode, and the CPU handles a matrix product with subnormal operands in
    microcode: 11-16x slower on our machine. Setting them to 0 changes each output by less
    than 1e-36.
    """
    out = np.array(array, dtype=np.float32)
    out[np.abs(out) < np.finfo(np.float32).tiny] = 0.0
    return out


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of ``logits`` over the entries where ``mask`` is true (others get 0)."""
    masked = np.where(mask, logits, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    weights = np.where(mask, np.exp(masked - top), 0.0)
    return weights / weights.sum(axis=-1, keepdims=True)


class DenseNet:
    """A trunk of dense layers plus linear heads, evaluated in float32 with NumPy.

    Args:
        trunk: ``(weight, bias)`` per layer, weight of shape ``(inputs, outputs)``.
        heads: head name -> ``(weight, bias)`` applied to the trunk's output.
        activation: ``"relu"`` or ``"tanh"`` after every trunk layer.
        meta: JSON-serialisable description (game, players, shapes, training command ...).

    The weights are copied as float32 with subnormal entries set to 0
    (:func:`flush_subnormals`).
    """

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

    def forward(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        """Head outputs for a batch ``(batch, ...)`` of observations (flattened here)."""
        x = np.asarray(inputs, np.float32).reshape(len(inputs), -1)
        if x.shape[1] != self.input_size:
            raise InvalidOptionError(
                f"network expects {self.input_size} inputs per observation, got {x.shape[1]}"
            )
        act = ACTIVATIONS[self.activation]
        for weight, bias in self.trunk:
            x = act(x @ weight + bias)
        return {name: x @ weight + bias for name, (weight, bias) in self.heads.items()}

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
        path = Path(path)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        return write_bytes_atomic(path, buffer.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> DenseNet:
        """Read a network written by :meth:`save`; ``InvalidOptionError`` if it is not one."""
        path = Path(path)
        if not path.is_file():
            raise InvalidOptionError(f"no network file at {str(path)!r}")
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(bytes(data["header"]).decode())
                count = sum(1 for k in data.files if k.startswith("trunk.") and k.endswith("bias"))
                trunk = [(data[f"trunk.{i}.weight"], data[f"trunk.{i}.bias"]) for i in range(count)]
                heads = {
                    n: (data[f"head.{n}.weight"], data[f"head.{n}.bias"]) for n in header["heads"]
                }
        except (OSError, KeyError, ValueError) as exc:
            raise InvalidOptionError(
                f"{str(path)!r} is not a network file of ours ({type(exc).__name__}: {exc})"
            ) from None
        return cls(trunk, heads, header["activation"], header["meta"])
