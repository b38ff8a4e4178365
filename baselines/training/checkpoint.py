"""Resumable checkpoints of ``train``, ``train-alphazero`` and ``ppo-vector``: one file per
run, rewritten at the trainer's next clean point every ``every`` seconds: one ``torch.save``
of containers, numbers, strings and tensors (NumPy arrays as tensors), written atomically
(:func:`save_tensors`: a killed or failed write keeps the last one), read with
``weights_only=True`` (nothing in it runs).
"""

from __future__ import annotations

import io
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.envs._files import atomic_path
from tabletop_zoo.envs.errors import InvalidOptionError

FORMAT = "tabletop-zoo checkpoint 1"
DEFAULT_EVERY = 300.0  # wall seconds: at most about this much work is lost to a kill


def checkpoint_file(run: str | Path) -> Path:
    """``RUN/checkpoint.pt`` of a run folder (``train``), else beside the output file:
    ``runs/az.npz`` -> ``runs/az.checkpoint.pt``."""
    run = Path(run)
    return run / "checkpoint.pt" if run.is_dir() else run.with_suffix(".checkpoint.pt")


class Checkpoints:
    """The checkpoints of a run (None: none; see :func:`checkpoint_file`): :meth:`due`
    every ``every`` seconds (0: always; at once unless ``resumed``), :meth:`save`."""

    def __init__(self, run: str | Path | None, command: str, every: float, resumed: bool) -> None:
        self.path = None if run is None else checkpoint_file(run)
        self.command, self.every = command, every
        self.last = time.monotonic() if resumed else -math.inf

    def due(self) -> bool:
        """True when ``every`` seconds have passed since the last save (or none was made)."""
        return self.path is not None and time.monotonic() - self.last >= self.every

    def save(self, config: dict[str, Any], state: dict[str, Any]) -> None:
        """Write ``config`` (the settings) and ``state`` as the run's checkpoint."""
        payload = {"format": FORMAT, "command": self.command, "config": config}
        save_tensors(payload | {"state": _tensors(state)}, self.path)
        self.last = time.monotonic()

    def remove(self) -> None:
        """Delete the checkpoint (the run finished) and temporaries of killed writes."""
        for path in [self.path, *self.path.parent.glob(f".{self.path.stem}.tmp-*")]:
            path.unlink(missing_ok=True)


def save_tensors(data: Any, path: str | Path) -> None:
    """``torch.save`` of ``data`` to ``path``, atomically; serialized in memory first, so
    that a failed write is the file system's one-line ``OSError`` (torch's own writer
    raises ``RuntimeError: [enforce fail at inline_container.cc] unexpected pos``)."""
    import torch

    buffer = io.BytesIO()
    torch.save(data, buffer)
    with atomic_path(path) as temporary:
        temporary.write_bytes(buffer.getbuffer())


def load_checkpoint(run: str | Path, command: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(config, state)`` of ``command``'s run ``run``, else a one-line InvalidOptionError."""
    from tabletop_zoo.baselines.agents.ppo_file import load_tensors_only

    path, problem = checkpoint_file(run), "not a checkpoint of ours"
    if not path.is_file():
        problem = f"not a resumable run of {command} (no {path}; a finished run has none)"
    try:
        payload = load_tensors_only(path) if path.is_file() else {}
    except Exception as exc:
        why = "it holds more than data" if "weights_only" in str(exc) else type(exc).__name__
        payload, problem = {}, f"{path} is not a checkpoint ({why})"
    if isinstance(payload, dict) and payload.get("format") == FORMAT:
        if payload["command"] == command:
            return payload["config"], _tensors(payload["state"], back=True)
        problem = f"a run of tabletop-zoo {payload['command']}, not of {command}"
    raise InvalidOptionError(f"--resume {run}: {problem}")


def _tensors(value: Any, back: bool = False) -> Any:
    """``value`` with NumPy arrays as ``{"ndarray": tensor}``, or (``back``) the reverse."""
    import torch

    if isinstance(value, np.ndarray):
        return {"ndarray": torch.from_numpy(np.ascontiguousarray(value))}
    if isinstance(value, dict):
        if back and set(value) == {"ndarray"}:
            return value["ndarray"].numpy()
        return {k: _tensors(v, back) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_tensors(v, back) for v in value)
    return value


def capture(objects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """``extra``, the ``state_dict()`` of ``objects`` and the generators of Python, NumPy, torch."""
    import torch

    generators = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    return {name: o.state_dict() for name, o in objects.items()} | extra | {"rng": generators}


def restore(state: dict[str, Any], objects: dict[str, Any]) -> dict[str, Any]:
    """Put a :func:`capture` back into ``objects`` and the generators; return the rest."""
    import torch

    for name, o in objects.items():
        o.load_state_dict(state.pop(name))
    setters = (random.setstate, np.random.set_state, torch.set_rng_state)
    for put_back, generator in zip(setters, state.pop("rng"), strict=True):
        put_back(generator)
    return state


def check_finite(where: str, *values: Any) -> None:
    """``InvalidOptionError`` once training diverged: a loss, logit or weight (floats or
    tensors in ``values``) of nan or inf, as a learning rate far too large gives. The run
    stops before it writes a model of nan; its last checkpoint is kept."""
    for value in values:
        if not (value.isfinite().all() if hasattr(value, "isfinite") else math.isfinite(value)):
            raise diverged(where, "nan or inf in the network")


def diverged(where: str, why: str) -> InvalidOptionError:
    """The error of a run whose training diverged at ``where``: ``why`` and the remedy."""
    return InvalidOptionError(
        f"training diverged at {where}: {why} (a smaller --learning-rate may help)"
    )
