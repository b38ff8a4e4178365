"""The training layer: MaskablePPO self-play (config, opponent pool, callbacks, ``train``).
It may import the agents and evaluation layers and the wrappers; importing it does not
import torch, :func:`train` does (``train`` extra)."""

from __future__ import annotations

from tabletop_zoo.baselines.training.config import (
    ENGINES,
    GENERIC_DEFAULTS,
    TrainConfig,
    defaults_for,
)
from tabletop_zoo.baselines.training.eval_log import (
    EvalRow,
    append_eval_csv,
    format_eval_table,
    plot_learning_curve,
)
from tabletop_zoo.baselines.training.opponents import OpponentPool
from tabletop_zoo.baselines.training.train import TrainResult, silent_logger, train

__all__ = [
    "ENGINES",
    "GENERIC_DEFAULTS",
    "EvalRow",
    "OpponentPool",
    "TrainConfig",
    "TrainResult",
    "append_eval_csv",
    "defaults_for",
    "format_eval_table",
    "plot_learning_curve",
    "silent_logger",
    "train",
]
