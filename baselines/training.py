"""MaskablePPO self-play training against a pool of opponents.

The learner plays one seat of a :class:`~tabletop_zoo.wrappers.single_agent.SingleAgentEnv`
(a random seat each episode); at every reset the env calls the shared
:class:`OpponentPool`, which picks an agent for each other seat: a fixed baseline
(``random``, ``greedy``) or, with probability ``self_play_prob`` once some exist, a
frozen snapshot of the learner.

Snapshots: every ``snapshot_every`` steps the :class:`SnapshotCallback` saves the model
to ``runs/<name>/snapshots/step_N.zip`` (written to a temporary name and renamed, so it
appears atomically). The pool watches that folder and loads new files as stochastic
``PPOAgent`` opponents (a separate model instance each, so they never change while the
learner trains); it keeps the newest ``max_snapshots``. With ``DummyVecEnv`` (default)
all envs share one pool object in-process; with ``SubprocVecEnv`` (``vec="subproc"``)
each worker process has its own pool that reads the same folder, so no state needs to
cross processes. The snapshots double as checkpoints.

Evaluation: every ``eval_every`` steps :class:`EvalCallback` plays the current policy
(deterministic, masks applied at prediction time) against ``random`` and ``greedy``
from every seat, appends the rates to ``runs/<name>/eval.csv`` and the SB3 logger, and
redraws ``runs/<name>/learning_curve.png``. SB3's own log goes to
``runs/<name>/progress.csv`` (and to tensorboard if it is installed).

Library use::

    from tabletop_zoo.baselines.training import TrainConfig, train
    result = train(TrainConfig(game="mole_hill", timesteps=20_000, name="demo"))
    print(format_eval_table(result.final_eval))
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.tournament import (
    PairingStats,
    check_agent_fits,
    check_seed,
)

EVAL_OPPONENTS = ("random", "greedy")
SNAPSHOT_PATTERN = re.compile(r"^step_(\d+)\.zip$")

# Per-game defaults. The mole_hill defaults are the README quick-start demo: a few
# minutes on 2 CPU cores. Pass --timesteps 300000 (etc.) for a real run.
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "mole_hill": {
        "timesteps": 100_000,
        "n_steps": 512,
        "batch_size": 256,
        "snapshot_every": 10_000,
        "eval_every": 10_000,
        "eval_games": 10,
        "final_eval_games": 100,
    },
    "arktia": {
        "timesteps": 30_000,
        "n_steps": 512,
        "batch_size": 256,
        "snapshot_every": 10_000,
        "eval_every": 10_000,
        "eval_games": 5,
        "final_eval_games": 20,
    },
}


@dataclass
class TrainConfig:
    """Everything a training run needs; ``None`` fields take the per-game defaults."""

    game: str = "mole_hill"
    num_players: int = 2
    name: str | None = None  # run folder name; default "<game>_<players>p_<seed>"
    runs_dir: str = "runs"
    seed: int = 0
    timesteps: int | None = None
    n_envs: int = 4
    vec: str = "dummy"  # "dummy" | "subproc"
    n_steps: int | None = None  # per env per rollout
    batch_size: int | None = None
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (128, 128)
    baselines: tuple[str, ...] = ("random", "greedy")  # fixed members of the opponent pool
    self_play_prob: float = 0.5  # chance a seat gets a snapshot (once any exist)
    max_snapshots: int = 5
    snapshot_every: int | None = None  # 0 = no self-play snapshots
    eval_every: int | None = None  # 0 = only the final evaluation
    eval_games: int | None = None  # per opponent per seat, periodic evaluations
    final_eval_games: int | None = None  # per opponent per seat, final evaluation
    torch_threads: int = 1
    device: str = "cpu"
    progress_bar: bool = True
    verbose: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    def resolved(self) -> TrainConfig:
        """A copy with per-game defaults filled in and values checked."""
        from tabletop_zoo.baselines.arena import GAMES

        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; allowed: {', '.join(GAMES)}")
        if self.vec not in ("dummy", "subproc"):
            raise ValueError(f"vec must be 'dummy' or 'subproc', got {self.vec!r}")
        if not 0.0 <= self.self_play_prob <= 1.0:
            raise ValueError(f"self_play_prob must be in [0, 1], got {self.self_play_prob}")
        if self.n_envs < 1:
            raise ValueError(f"n_envs must be >= 1, got {self.n_envs}")
        if not self.baselines:
            raise ValueError("the opponent pool needs at least one baseline agent")
        check_seed(self.seed)
        checks = [
            ("net_arch", all(isinstance(n, int) and n >= 1 for n in self.net_arch), ">= 1 each"),
            ("learning_rate", self.learning_rate > 0, "> 0"),
            ("gamma", 0 < self.gamma <= 1, "in (0, 1]"),
            ("gae_lambda", 0 <= self.gae_lambda <= 1, "in [0, 1]"),
            ("ent_coef", self.ent_coef >= 0, ">= 0"),
            ("n_epochs", self.n_epochs >= 1, ">= 1"),
            ("max_snapshots", self.max_snapshots >= 1, ">= 1"),
            ("torch_threads", self.torch_threads >= 1, ">= 1"),
            ("verbose", self.verbose in (0, 1, 2), "0, 1 or 2"),
            ("name", self.name is None or self.name.strip() not in ("", ".", ".."), "a folder"),
        ]  # fmt: skip
        for key, ok, allowed in checks:  # (nan fails every comparison, so it is caught too)
            if not ok:
                raise ValueError(f"{key} must be {allowed}, got {getattr(self, key)!r}")
        from tabletop_zoo.baselines.arena import make_env

        env = make_env(self.game, num_players=self.num_players, **self.env_kwargs)
        for spec in self.baselines:  # ValueError listing the allowed specs, or a bad model
            check_agent_fits(make_agent(spec), env, spec)
        env.close()
        values = {
            k: (GAME_DEFAULTS[self.game][k] if getattr(self, k) is None else getattr(self, k))
            for k in GAME_DEFAULTS[self.game]
        }
        cfg = dataclasses.replace(self, **values)
        if cfg.name is None:
            cfg.name = f"{cfg.game}_{cfg.num_players}p_seed{cfg.seed}"
        for key in ("timesteps", "n_steps", "batch_size", "eval_games", "final_eval_games"):
            if getattr(cfg, key) < 1:
                raise ValueError(f"{key} must be >= 1, got {getattr(cfg, key)}")
        for key in ("snapshot_every", "eval_every"):
            if getattr(cfg, key) < 0:
                raise ValueError(f"{key} must be >= 0 (0 = never), got {getattr(cfg, key)}")
        return cfg

    def check_new_run_dir(self) -> None:
        """``ValueError`` if ``run_dir`` already holds a run or cannot be created."""
        run_dir = self.run_dir
        if (run_dir / "eval.csv").exists() or (run_dir / "snapshots").exists():
            raise ValueError(f"run folder {run_dir} already has a run in it; pick another --name")
        path = run_dir.absolute()
        existing = next(p for p in (path, *path.parents) if p.exists())  # "/" always exists
        if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
            raise ValueError(f"cannot create run folder {run_dir}: {existing} is not writable")

    @property
    def run_dir(self) -> Path:
        """``runs_dir/name``."""
        return Path(self.runs_dir) / str(self.name)


# --------------------------------------------------------------------------- opponent pool
class OpponentPool:
    """Opponents for self-play: fixed baselines plus frozen snapshots read from a folder.

    Call it with a ``np.random.Generator`` (as ``SingleAgentEnv`` does at each reset) to
    get one agent per other seat. Each seat independently gets a snapshot with
    probability ``self_play_prob`` (when any exist), else a uniformly chosen baseline.
    """

    def __init__(
        self,
        num_opponents: int,
        baselines: Sequence[str] = ("random", "greedy"),
        snapshot_dir: str | Path | None = None,
        self_play_prob: float = 0.5,
        max_snapshots: int = 5,
        seed: int | None = None,
    ) -> None:

        self.num_opponents = num_opponents
        seeds = np.random.SeedSequence(seed).generate_state(len(baselines))
        self.baselines = [make_agent(s, seed=int(x)) for s, x in zip(baselines, seeds, strict=True)]
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
                from tabletop_zoo.baselines.ppo import PPOAgent

                path = self.snapshot_dir / f"step_{step}.zip"
                self.snapshots[step] = PPOAgent(
                    str(path), deterministic=False, name=f"snapshot_{step}"
                )

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


# --------------------------------------------------------------------------- evaluation
@dataclass
class EvalRow(PairingStats):
    """The learner's :class:`PairingStats` against one opponent (all seats), at ``timesteps``."""

    timesteps: int = 0

    @property
    def win_rate(self) -> float:
        """Fraction of games won (sole top scorer)."""
        return self.rate("wins")

    def as_dict(self) -> dict[str, Any]:
        """CSV row with rates and Wilson 95% CI of the win rate."""
        lo, hi = self.interval("wins")
        return {
            "timesteps": self.timesteps,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 6),
            "win_ci_low": round(lo, 6),
            "win_ci_high": round(hi, 6),
            "draw_rate": round(self.rate("draws"), 6),
            "loss_rate": round(self.rate("losses"), 6),
            "mean_score": round(self.mean_score, 4),
            "opponent_mean_score": round(self.opponent_mean_score, 4),
        }


EVAL_FIELDS = list(EvalRow("learner", "", 1, 0, 0, 0, 0.0, 0.0).as_dict())


def evaluate_agent(
    agent: Any,
    game: str,
    num_players: int = 2,
    opponents: Sequence[str] = EVAL_OPPONENTS,
    games_per_seat: int = 10,
    seed: int | None = 0,
    timesteps: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> list[EvalRow]:
    """Play ``agent`` against each opponent spec from every seat (others all opponent).

    A game counts as a win when the agent's return is +1 (sole top scorer), a draw at 0
    and a loss at -1. ``opponent_mean_score`` is the mean score of the other seats.
    """
    from tabletop_zoo.baselines.arena import make_env, play_game

    env = make_env(game, num_players=num_players, **(env_kwargs or {}))
    rows = []
    seq = np.random.SeedSequence(seed)
    for spec, child in zip(opponents, seq.spawn(len(opponents)), strict=True):
        game_seeds = child.generate_state(num_players * games_per_seat * 2)
        opponent = make_agent(spec, seed=int(game_seeds[-1]))
        wins = draws = losses = 0
        mine: list[float] = []
        theirs: list[float] = []
        for seat in range(num_players):
            for g in range(games_per_seat):
                agents = [agent if s == seat else opponent for s in range(num_players)]
                result = play_game(env, agents, seed=int(game_seeds[seat * games_per_seat + g]))
                ret = result.returns[seat]
                wins += ret > 0
                draws += ret == 0
                losses += ret < 0
                mine.append(result.scores[seat])
                theirs.append(np.mean([x for s, x in enumerate(result.scores) if s != seat]))
        rows.append(
            EvalRow(
                "learner",
                spec,
                len(mine),
                wins,
                draws,
                losses,
                float(np.mean(mine)),
                float(np.mean(theirs)),
                timesteps=timesteps,
            )
        )
    env.close()
    return rows


def format_eval_table(rows: Sequence[EvalRow]) -> str:
    """Plain-text win/draw/loss table (rates with the 95% CI of the win rate)."""
    lines = [
        f"{'opponent':<12}{'games':>6}{'win':>7}{'draw':>7}{'loss':>7}  {'win 95% CI':<14}"
        f"{'score':>7}{'opp':>7}"
    ]
    for r in rows:
        lo, hi = r.interval("wins")
        lines.append(
            f"{r.opponent:<12}{r.games:>6}{r.rate('wins'):>7.2f}{r.rate('draws'):>7.2f}"
            f"{r.rate('losses'):>7.2f}  [{lo:.2f}, {hi:.2f}]  {r.mean_score:>7.2f}"
            f"{r.opponent_mean_score:>7.2f}"
        )
    return "\n".join(lines)


def append_eval_csv(path: str | Path, rows: Sequence[EvalRow]) -> None:
    """Append rows to an eval CSV (header written when the file is new)."""
    path = Path(path)
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow(row.as_dict())


def plot_learning_curve(eval_csv: str | Path, png_path: str | Path, title: str = "") -> Path:
    """Win rate (with Wilson 95% band) against each opponent over timesteps, as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float, float, float]]] = {}
    with Path(eval_csv).open() as f:
        for row in csv.DictReader(f):
            series.setdefault(row["opponent"], []).append(
                (
                    int(row["timesteps"]),
                    float(row["win_rate"]),
                    float(row["win_ci_low"]),
                    float(row["win_ci_high"]),
                )
            )
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent, points in series.items():
        points.sort()
        t, w, lo, hi = (np.array(v) for v in zip(*points, strict=True))
        ax.plot(t, w, marker="o", label=f"vs {opponent}")
        ax.fill_between(t, lo, hi, alpha=0.2)
    ax.set_ylim(0, 1)
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate (all seats)")
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    png_path = Path(png_path)
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return png_path


# --------------------------------------------------------------------------- callbacks
def _callbacks() -> tuple[type, type]:
    """The two callback classes (defined lazily: SB3 imports torch)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SnapshotCallback(BaseCallback):
        """Every ``every`` steps save the model as ``snapshot_dir/step_N.zip`` (atomically)."""

        def __init__(self, snapshot_dir: Path, every: int, pool: OpponentPool | None = None):
            super().__init__()
            self.snapshot_dir = snapshot_dir
            self.every = every
            self.pool = pool
            self.last = 0

        def _on_step(self) -> bool:
            if self.every > 0 and self.num_timesteps - self.last >= self.every:
                self.last = self.num_timesteps
                self.snapshot_dir.mkdir(parents=True, exist_ok=True)
                tmp = self.snapshot_dir / f"tmp_{self.num_timesteps}.zip"
                self.model.save(tmp)
                os.replace(tmp, self.snapshot_dir / f"step_{self.num_timesteps}.zip")
                if self.pool is not None:
                    for name, n in sorted(self.pool.counts.items()):
                        self.logger.record(f"pool/{name}", n)
            return True

    class EvalCallback(BaseCallback):
        """Every ``every`` steps evaluate against random/greedy; CSV, logger and PNG."""

        def __init__(self, cfg: TrainConfig, every: int):
            super().__init__()
            self.cfg = cfg
            self.every = every
            self.last = 0

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
            return True

    return SnapshotCallback, EvalCallback


def run_evaluation(
    model: Any, cfg: TrainConfig, timesteps: int, games_per_seat: int
) -> list[EvalRow]:
    """Evaluate ``model`` (deterministic, masked) vs random and greedy; update CSV and PNG."""
    from tabletop_zoo.baselines.ppo import PPOAgent

    learner = PPOAgent(model, deterministic=True, name="learner")
    rows = evaluate_agent(
        learner,
        cfg.game,
        cfg.num_players,
        EVAL_OPPONENTS,
        games_per_seat,
        seed=cfg.seed + 1_000_003 + timesteps,
        timesteps=timesteps,
        env_kwargs=cfg.env_kwargs,
    )
    append_eval_csv(cfg.run_dir / "eval.csv", rows)
    plot_learning_curve(
        cfg.run_dir / "eval.csv",
        cfg.run_dir / "learning_curve.png",
        title=f"{cfg.name}: {cfg.game}, {cfg.num_players} players",
    )
    return rows


# --------------------------------------------------------------------------- training
@dataclass
class TrainResult:
    """What ``train`` produced."""

    config: TrainConfig
    run_dir: Path
    model_path: Path
    final_eval: list[EvalRow]
    seconds: float


def _make_env_fn(cfg: TrainConfig, rank: int):  # noqa: ANN202 - returns a thunk
    """Thunk building env ``rank``: Monitor(SingleAgentEnv(raw env, opponent=pool))."""

    def thunk() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from tabletop_zoo.baselines.arena import make_env
        from tabletop_zoo.wrappers.single_agent import SingleAgentEnv

        if cfg.vec == "subproc":
            import torch

            torch.set_num_threads(1)
        pool = _shared_pool(cfg, rank)
        env = SingleAgentEnv(
            make_env(cfg.game, num_players=cfg.num_players, **cfg.env_kwargs),
            opponent=pool,
            learner_seat=None,
            seed=cfg.seed * 1000 + rank,
        )
        return Monitor(env)

    return thunk


_POOLS: dict[str | None, OpponentPool] = {}


def _shared_pool(cfg: TrainConfig, rank: int) -> OpponentPool:
    """One pool per run per process (so DummyVecEnv envs share it)."""
    if cfg.name not in _POOLS:
        _POOLS[cfg.name] = OpponentPool(
            num_opponents=cfg.num_players - 1,
            baselines=cfg.baselines,
            snapshot_dir=cfg.run_dir / "snapshots",
            self_play_prob=cfg.self_play_prob,
            max_snapshots=cfg.max_snapshots,
            seed=cfg.seed + 7919 * rank,
        )
    return _POOLS[cfg.name]


def _logger_formats(verbose: int) -> list[str]:
    """csv, stdout when ``verbose``, and tensorboard only if it is installed."""
    formats = ["csv"] + (["stdout"] if verbose else [])
    try:
        import tensorboard  # noqa: F401

        formats.append("tensorboard")
    except ImportError:
        pass
    return formats


def train(config: TrainConfig, log: Any = print) -> TrainResult:
    """Run MaskablePPO self-play as configured; return paths and the final evaluation."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cfg = config.resolved()
    torch.set_num_threads(cfg.torch_threads)
    set_random_seed(cfg.seed)
    run_dir = cfg.run_dir
    cfg.check_new_run_dir()
    run_dir.mkdir(parents=True, exist_ok=True)
    conf = dataclasses.asdict(cfg)
    (run_dir / "config.json").write_text(json.dumps(conf, indent=2, default=str) + "\n")
    _POOLS.pop(cfg.name, None)

    thunks = [_make_env_fn(cfg, i) for i in range(cfg.n_envs)]
    vec_env = SubprocVecEnv(thunks) if cfg.vec == "subproc" else DummyVecEnv(thunks)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
        seed=cfg.seed,
        device=cfg.device,
        verbose=cfg.verbose,
    )
    model.set_logger(configure(str(run_dir), _logger_formats(cfg.verbose)))
    snapshot_cb, eval_cb = _callbacks()
    callbacks = [
        snapshot_cb(run_dir / "snapshots", cfg.snapshot_every, _POOLS.get(cfg.name)),
        eval_cb(cfg, cfg.eval_every),
    ]
    log(f"training {cfg.game} ({cfg.num_players} players) for {cfg.timesteps} steps -> {run_dir}")
    start = time.perf_counter()
    model.learn(
        total_timesteps=cfg.timesteps,
        callback=CallbackList(callbacks),
        progress_bar=cfg.progress_bar,
    )
    vec_env.close()
    model_path = run_dir / "final_model.zip"
    model.save(model_path)
    log(f"saved {model_path}; final evaluation ({cfg.final_eval_games} games per seat)...")
    rows = run_evaluation(model, cfg, model.num_timesteps, cfg.final_eval_games)
    seconds = time.perf_counter() - start
    return TrainResult(cfg, run_dir, model_path, rows, seconds)
