"""SB3 callbacks of a training run: self-play snapshots, evaluations (and the best model),
checkpoints, the progress bar, the updates' CPU-seconds. Imports stable-baselines3 (and so
torch): only ``train`` imports it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from tabletop_zoo.baselines.training.checkpoint import (
    Checkpoints,
    capture,
    check_finite,
    diverged,
    restore,
)
from tabletop_zoo.baselines.training.eval_log import run_evaluation
from tabletop_zoo.baselines.training.opponents import OpponentPool
from tabletop_zoo.envs._files import atomic_path

CHECKED_POSITIONS = 512  # of the last rollout, played by a model before it is saved


def save_model(model: Any, path: Path) -> Path:
    """Save ``model`` to ``path`` (atomically) once it plays: finite weights and, on the
    positions of its last rollout, a legal action picked (the evaluations refuse a model
    whose outputs are out of range); else ``InvalidOptionError`` and nothing is written."""
    check_finite(f"step {model.num_timesteps}", *model.policy.parameters())
    buffer = model.rollout_buffer
    positions = buffer.observations.reshape(-1, *model.observation_space.shape)
    masks = buffer.action_masks.reshape(len(positions), -1)[:CHECKED_POSITIONS] > 0
    picked, _ = model.predict(positions[:CHECKED_POSITIONS], deterministic=True, action_masks=masks)
    if not masks[np.arange(len(masks)), picked].all():
        raise diverged(f"step {model.num_timesteps}", "its policy picks illegal actions")
    with atomic_path(path) as temporary:
        model.save(temporary)
    return path


class SnapshotCallback(BaseCallback):
    """Every ``every`` steps save the model as ``snapshot_dir/step_N.zip`` (atomically) and
    log how often each opponent played (``pool.counts`` of either engine's pool)."""

    def __init__(self, snapshot_dir: Path, every: int, pool: OpponentPool | Any = None) -> None:
        super().__init__()
        self.snapshot_dir, self.every, self.pool, self.last = snapshot_dir, every, pool, 0

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            self.snapshot_dir.mkdir(parents=True, exist_ok=True)
            save_model(self.model, self.snapshot_dir / f"step_{self.num_timesteps}.zip")
            for name, n in sorted(getattr(self.pool, "counts", {}).items()):
                self.logger.record(f"pool/{name}", n)
        return True


class EvalCallback(BaseCallback):
    """Every ``every`` steps evaluate against random and greedy (the evaluation layer's
    seat-rotated matches); append to ``eval.csv``, the SB3 logger, the curve, best_model.zip."""

    def __init__(self, cfg: Any, every: int) -> None:
        super().__init__()
        self.cfg, self.every, self.last, self.best = cfg, every, 0, -1.0

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            # the final evaluation (more games) comes right after the end: skip this one
            # (_total_timesteps: the learn() target, set by SB3's _setup_learn)
            if self.num_timesteps + self.every // 2 >= self.model._total_timesteps:
                return True
            rows = run_evaluation(self.model, self.cfg, self.num_timesteps, self.cfg.eval_games)
            for row in rows:
                self.logger.record(f"eval/win_rate_{row.opponent}", row.win_rate)
            if (mean := sum(row.win_rate for row in rows) / len(rows)) > self.best:
                self.best = mean
                save_model(self.model, self.cfg.run_dir / "best_model.zip")
        return True


class CheckpointCallback(BaseCallback):
    """Between rollouts when ``checkpoints`` are due, and at the end, save the weights, Adam,
    the counters (the model's, the callbacks ``others``') and the generators; not the games
    in progress (a resumed run starts new ones)."""

    def __init__(self, checkpoints: Checkpoints, config: dict, *others: Any) -> None:
        super().__init__()
        self.checkpoints, self.config, self.others = checkpoints, config, others

    def _on_rollout_start(self) -> None:
        if self.checkpoints.due():
            self._on_training_end()

    def _on_training_end(self) -> None:
        parts, counters = self._parts(self.model)
        values = [getattr(owner, name) for owner, name in counters]
        self.checkpoints.save(self.config, capture(parts, counters=values))

    def restore(self, model: Any, state: dict[str, Any]) -> None:
        """Put a checkpoint's ``state`` into ``model``, the callbacks and the generators."""
        parts, counters = self._parts(model)
        for (owner, name), value in zip(counters, restore(state, parts)["counters"], strict=True):
            setattr(owner, name, value)

    def _parts(self, model: Any) -> tuple[dict[str, Any], list[tuple[Any, str]]]:
        """What is saved: the policy and its optimizer, the counters (owner, attribute)."""
        names = [(model, name) for name in ("num_timesteps", "_n_updates", "_episode_num")]
        names += [(c, n) for c in self.others for n in ("last", "best") if hasattr(c, n)]
        return {"policy": model.policy, "optimizer": model.policy.optimizer}, names

    def _on_step(self) -> bool:
        return True


class ProgressCallback(BaseCallback):
    """A tqdm bar over the learner's steps (the one progress-bar library of the scripts)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total, self.bar = total, None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, desc="steps", unit="step")

    def _on_step(self) -> bool:
        self.bar.update(self.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class UpdateTimer(BaseCallback):
    """Add up the CPU-seconds between the end of each rollout and the start of the next
    (or the end of training) in ``cpu_seconds``: what ``learn()`` does there is the
    gradient updates (``train()``) and its log line, the same on either engine."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu_seconds = 0.0
        self._since: float | None = None

    def _on_rollout_end(self) -> None:
        self._since = time.process_time()

    def _on_rollout_start(self) -> None:
        if self._since is not None:
            self.cpu_seconds += time.process_time() - self._since
            self._since = None

    _on_training_end = _on_rollout_start

    def _on_step(self) -> bool:
        return True
