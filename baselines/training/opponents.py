"""The self-play opponent pool: fixed baselines plus frozen snapshots of the learner.

A snapshot samples from its actor exported to NumPy (:func:`~.export.export_ppo_actor`):
the distribution of ``PPOAgent(deterministic=False)`` at a fraction of the cost, and a copy
that never changes while the learner trains. ``DummyVecEnv`` envs share one pool per
process (:func:`shared_pool`); ``SubprocVecEnv`` workers each read the same folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.training.export import export_ppo_actor
from tabletop_zoo.envs.errors import InvalidOptionError

COMPILED_BASELINES = ("random", "greedy")
"""The baselines a compiled engine plays inside the batch."""

SNAPSHOT_PATTERN = re.compile(r"^step_(\d+)\.zip$")


class _SnapshotPool:
    """Both pools: the newest ``max_snapshots`` snapshots of ``snapshot_dir`` (``step_N.zip``)
    loaded as they appear; ``counts``: seats played by each opponent's name."""

    def __init__(
        self, snapshot_dir: str | Path | None, self_play_prob: float, max_snapshots: int
    ) -> None:
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir is not None else None
        self.self_play_prob = self_play_prob
        self.max_snapshots = max_snapshots
        self.loaded: dict[int, Any] = {}  # step -> the loaded snapshot
        self.newest: list[int] = []  # the steps new draws take from
        self.counts: dict[str, int] = {}

    def refresh(self, in_use: np.ndarray | None = None) -> None:
        """Load snapshots that appeared; drop those neither newest nor in ``in_use``."""
        if self.snapshot_dir is None or not self.snapshot_dir.is_dir():
            return
        names = map(SNAPSHOT_PATTERN.match, os.listdir(self.snapshot_dir))
        self.newest = sorted(int(m.group(1)) for m in names if m is not None)
        self.newest = self.newest[-self.max_snapshots :]
        keep = set(self.newest) | set(() if in_use is None else np.unique(in_use).tolist())
        for step in [s for s in self.loaded if s not in keep]:
            del self.loaded[step]
        for step in (s for s in self.newest if s not in self.loaded):
            net = export_ppo_actor(self.snapshot_dir / f"step_{step}.zip", {"snapshot_step": step})
            self.loaded[step] = self._snapshot(net, step)

    def _snapshot(self, net: Any, step: int) -> Any:
        """What the pool keeps of snapshot ``step``'s NumPy actor ``net``: the net itself."""
        return net


class OpponentPool(_SnapshotPool):
    """Called with a ``np.random.Generator`` (as ``SingleAgentEnv`` does at each reset): one
    agent per other seat, a snapshot with probability ``self_play_prob`` (once any exist),
    else a uniformly chosen baseline. ``trust``: baseline model files may be unpickled
    (``make_agent``'s ``trust``); snapshots never are."""

    def __init__(
        self,
        num_opponents: int,
        baselines: Sequence[str] = ("random", "greedy"),
        snapshot_dir: str | Path | None = None,
        self_play_prob: float = 0.5,
        max_snapshots: int = 5,
        seed: int | None = None,
        trust: bool = False,
    ) -> None:
        super().__init__(snapshot_dir, self_play_prob, max_snapshots)
        self.num_opponents = num_opponents
        seeds = np.random.SeedSequence(seed).generate_state(len(baselines))
        self._snapshot_seeds = np.random.SeedSequence(seed).spawn(1)[0]
        self.baselines = [
            make_agent(s, seed=int(x), trust=trust) for s, x in zip(baselines, seeds, strict=True)
        ]
        self.baseline_names = list(baselines)

    def _snapshot(self, net: Any, step: int) -> Any:
        """The snapshot as a sampling NumPy policy agent."""
        from tabletop_zoo.baselines.agents.reference import PolicyNetAgent

        seed = int(self._snapshot_seeds.generate_state(1)[0]) ^ step
        return PolicyNetAgent(net, name=f"snapshot_{step}", deterministic=False, seed=seed)

    def sample(self, rng: np.random.Generator) -> list[Any]:
        """One agent per other seat."""
        self.refresh()
        chosen = []
        for _ in range(self.num_opponents):
            if self.newest and rng.random() < self.self_play_prob:
                step = self.newest[int(rng.integers(len(self.newest)))]
                agent, name = self.loaded[step], f"snapshot_{step}"
            else:
                i = int(rng.integers(len(self.baselines)))
                agent, name = self.baselines[i], self.baseline_names[i]
            self.counts[name] = self.counts.get(name, 0) + 1
            chosen.append(agent)
        return chosen

    __call__ = sample


SHARED_POOLS: dict[str | None, OpponentPool] = {}
"""This process's pool of each run (by ``cfg.name``), made by :func:`shared_pool`."""


def shared_pool(cfg: Any, rank: int) -> OpponentPool:
    """One pool per run (``cfg.name``) per process, so DummyVecEnv envs share it."""
    if cfg.name not in SHARED_POOLS:
        SHARED_POOLS[cfg.name] = OpponentPool(
            num_opponents=cfg.num_players - 1,
            baselines=cfg.baselines,
            snapshot_dir=cfg.run_dir / "snapshots",
            self_play_prob=cfg.self_play_prob,
            max_snapshots=cfg.max_snapshots,
            seed=cfg.seed + 7919 * rank,
            trust=cfg.trust_models,
        )
    return SHARED_POOLS[cfg.name]


class BatchedOpponentPool(_SnapshotPool):
    """The batched twin of :class:`OpponentPool` on a compiled engine
    (``tabletop_zoo.wrappers.sb3.BatchedOpponents``), drawing by its rules per other seat
    at the start of each episode: the compiled ``baselines`` (``random``, ``greedy``) or
    snapshots; ``seed`` seeds the snapshots' sampling."""

    def __init__(
        self,
        baselines: tuple[str, ...] | list[str] = ("random", "greedy"),
        snapshot_dir: str | Path | None = None,
        self_play_prob: float = 0.5,
        max_snapshots: int = 5,
        seed: int | None = None,
    ) -> None:
        baselines = tuple(baselines)
        if not baselines or any(b not in COMPILED_BASELINES for b in baselines):
            raise InvalidOptionError(
                f"the compiled engine's opponents are {list(COMPILED_BASELINES)} (and "
                f"snapshots), got {list(baselines)}; other agents play only on the Python engine"
            )
        if not 0.0 <= self_play_prob <= 1.0:
            raise InvalidOptionError(f"self_play_prob must be in [0, 1], got {self_play_prob}")
        if max_snapshots < 1:
            raise InvalidOptionError(f"max_snapshots must be >= 1, got {max_snapshots}")
        super().__init__(snapshot_dir, self_play_prob, max_snapshots)
        self.baselines = baselines
        self.rng = np.random.default_rng(seed)

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Opponent codes of ``shape`` seats: a snapshot's step (>= 0), or ``-1 - k`` for
        baseline ``k``."""
        codes = -1 - rng.integers(len(self.baselines), size=shape)
        if self.newest:
            pick = rng.random(shape) < self.self_play_prob
            steps = np.asarray(self.newest)[rng.integers(len(self.newest), size=shape)]
            codes = np.where(pick, steps, codes)
        return codes

    def name(self, code: int) -> str:
        """The opponent's name of a code (``random``, ``greedy``, ``snapshot_N``)."""
        return self.baselines[-1 - code] if code < 0 else f"snapshot_{code}"

    def sample_actions(self, step: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Snapshot ``step``'s actions for a batch: one forward pass, then a sample from the
        softmax over the legal actions of each row (Gumbel-max)."""
        logits = self.loaded[step].forward(observations)["policy"].astype(np.float64)
        noise = -np.log(-np.log(self.rng.random(logits.shape) + 1e-300) + 1e-300)
        return np.where(masks, logits + noise, -np.inf).argmax(axis=1)
