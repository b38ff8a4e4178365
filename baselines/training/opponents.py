"""The self-play opponent pool: fixed baselines plus frozen snapshots of the learner.

At every reset the single-agent env calls the pool, which picks an agent for each other
seat: a fixed baseline (``random``, ``greedy``) or, with probability ``self_play_prob`` once
some exist, a frozen snapshot of the learner. Snapshots are the files
``snapshot_dir/step_N.zip`` written by the snapshot callback; the pool loads new ones and
keeps the newest ``max_snapshots``. A snapshot plays its policy's actor exported to NumPy
(:func:`~tabletop_zoo.baselines.training.export.export_ppo_actor`, kept in float32 in
memory), sampling from it like a stochastic MaskablePPO policy: the same distribution as
``PPOAgent(deterministic=False)`` at a fraction of the cost of SB3's ``predict`` for one
observation (``docs/results.md``). It is a separate copy, so it never changes while the
learner trains. With ``DummyVecEnv`` all envs
share one pool object in-process (:func:`shared_pool`); with ``SubprocVecEnv`` each worker
process has its own pool reading the same folder, so no state crosses processes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents import make_agent

__all__ = ["SNAPSHOT_PATTERN", "OpponentPool", "shared_pool"]

SNAPSHOT_PATTERN = re.compile(r"^step_(\d+)\.zip$")


class OpponentPool:
    """Opponents for self-play: fixed baselines plus frozen snapshots read from a folder.

    Call it with a ``np.random.Generator`` (as ``SingleAgentEnv`` does at each reset) to
    get one agent per other seat. Each seat independently gets a snapshot with
    probability ``self_play_prob`` (when any exist), else a uniformly chosen baseline.
    ``trust``: baseline model files may be loaded by unpickling (``make_agent``'s
    ``trust``); snapshots are always read without unpickling.
    """

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
        self.num_opponents = num_opponents
        seeds = np.random.SeedSequence(seed).generate_state(len(baselines))
        self._snapshot_seeds = np.random.SeedSequence(seed).spawn(1)[0]
        self.baselines = [
            make_agent(s, seed=int(x), trust=trust) for s, x in zip(baselines, seeds, strict=True)
        ]
        self.baseline_names = list(baselines)
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir is not None else None
        self.self_play_prob = self_play_prob
        self.max_snapshots = max_snapshots
        self.snapshots: dict[int, Any] = {}  # step -> frozen PPOAgent
        self.counts: dict[str, int] = {}  # opponent name -> seats played

    def refresh(self) -> None:
        """Load snapshots that appeared in ``snapshot_dir``; keep the newest ones."""
        if self.snapshot_dir is None or not self.snapshot_dir.is_dir():
            return
        steps = sorted(
            int(m.group(1))
            for m in map(SNAPSHOT_PATTERN.match, os.listdir(self.snapshot_dir))
            if m is not None
        )[-self.max_snapshots :]
        for step in list(self.snapshots):
            if step not in steps:
                del self.snapshots[step]
        for step in steps:
            if step not in self.snapshots:
                self.snapshots[step] = self._load_snapshot(step)

    def _load_snapshot(self, step: int) -> Any:
        """The snapshot ``step_<step>.zip`` as a sampling NumPy policy agent."""
        from tabletop_zoo.baselines.agents.reference import PolicyNetAgent
        from tabletop_zoo.baselines.training.export import export_ppo_actor

        net = export_ppo_actor(self.snapshot_dir / f"step_{step}.zip", {"snapshot_step": step})
        seed = int(self._snapshot_seeds.generate_state(1)[0]) ^ step
        return PolicyNetAgent(net, name=f"snapshot_{step}", deterministic=False, seed=seed)

    def sample(self, rng: np.random.Generator) -> list[Any]:
        """One agent per other seat."""
        self.refresh()
        snapshot_steps = sorted(self.snapshots)
        chosen = []
        for _ in range(self.num_opponents):
            if snapshot_steps and rng.random() < self.self_play_prob:
                step = snapshot_steps[int(rng.integers(len(snapshot_steps)))]
                agent, name = self.snapshots[step], f"snapshot_{step}"
            else:
                i = int(rng.integers(len(self.baselines)))
                agent, name = self.baselines[i], self.baseline_names[i]
            self.counts[name] = self.counts.get(name, 0) + 1
            chosen.append(agent)
        return chosen

    __call__ = sample


_POOLS: dict[str | None, OpponentPool] = {}


def shared_pool(cfg: Any, rank: int) -> OpponentPool:
    """One pool per run (``cfg.name``) per process, so DummyVecEnv envs share it."""
    if cfg.name not in _POOLS:
        _POOLS[cfg.name] = OpponentPool(
            num_opponents=cfg.num_players - 1,
            baselines=cfg.baselines,
            snapshot_dir=cfg.run_dir / "snapshots",
            self_play_prob=cfg.self_play_prob,
            max_snapshots=cfg.max_snapshots,
            seed=cfg.seed + 7919 * rank,
            trust=getattr(cfg, "trust_models", False),
        )
    return _POOLS[cfg.name]
