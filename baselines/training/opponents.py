"""The self-play opponent pool: fixed baselines plus frozen snapshots of the learner.

At every reset the single-agent env asks the pool for an agent per other seat: a baseline
or, with probability ``self_play_prob`` once some exist, one of the newest ``max_snapshots``
snapshots (``snapshot_dir/step_N.zip``). A snapshot samples from its actor exported to
NumPy (:func:`~.export.export_ppo_actor`): the distribution of
``PPOAgent(deterministic=False)`` at a fraction of the cost, and a copy that never changes
while the learner trains. ``DummyVecEnv`` envs share one pool per process
(:func:`shared_pool`); ``SubprocVecEnv`` workers each read the same folder.
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

__all__ = [
    "COMPILED_BASELINES",
    "SNAPSHOT_PATTERN",
    "BatchedOpponentPool",
    "OpponentPool",
    "forget_shared_pool",
    "shared_pool",
    "shared_pool_of",
]

COMPILED_BASELINES = ("random", "greedy")
"""The baselines a compiled engine plays inside the batch."""

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


def forget_shared_pool(name: str | None) -> None:
    """Drop this process's pool of the run ``name`` (a new run of that name starts afresh)."""
    _POOLS.pop(name, None)


def shared_pool_of(name: str | None) -> OpponentPool | None:
    """This process's pool of the run ``name``, if :func:`shared_pool` made one."""
    return _POOLS.get(name)


class BatchedOpponentPool:
    """Opponents for self-play in batch on a compiled engine: compiled baselines plus frozen
    snapshots (``tabletop_zoo.wrappers.sb3.BatchedOpponents``).

    The batched twin of :class:`OpponentPool`, drawing by its rules at the start of each
    episode, per other seat.

    Args:
        baselines: ``"random"`` and/or ``"greedy"`` (the compiled players).
        snapshot_dir: folder of snapshots, or ``None`` for baselines only.
        self_play_prob: chance that a seat gets a snapshot (once any exist).
        max_snapshots: how many of the newest snapshots take part.
        seed: seed of the snapshots' sampling.
    """

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
        self.baselines = baselines
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir is not None else None
        self.self_play_prob = self_play_prob
        self.max_snapshots = max_snapshots
        self.rng = np.random.default_rng(seed)
        self.nets: dict[int, Any] = {}  # step -> DenseNet (loaded snapshots)
        self.newest: list[int] = []  # the steps new episodes draw from
        self.counts: dict[str, int] = {}  # opponent name -> seats played

    def refresh(self, in_use: np.ndarray | None = None) -> None:
        """Load snapshots that appeared; drop those neither newest nor in ``in_use``."""
        if self.snapshot_dir is None or not self.snapshot_dir.is_dir():
            return
        names = map(SNAPSHOT_PATTERN.match, os.listdir(self.snapshot_dir))
        steps = sorted(int(m.group(1)) for m in names if m is not None)
        self.newest = steps[-self.max_snapshots :]
        keep = set(self.newest) | set(() if in_use is None else np.unique(in_use).tolist())
        for step in [s for s in self.nets if s not in keep]:
            del self.nets[step]
        for step in self.newest:
            if step not in self.nets:
                self.nets[step] = self._load(step)

    def _load(self, step: int) -> Any:
        assert self.snapshot_dir is not None
        return export_ppo_actor(self.snapshot_dir / f"step_{step}.zip", {"snapshot_step": step})

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
        logits = self.nets[step].forward(observations)["policy"].astype(np.float64)
        noise = -np.log(-np.log(self.rng.random(logits.shape) + 1e-300) + 1e-300)
        return np.where(masks, logits + noise, -np.inf).argmax(axis=1)
