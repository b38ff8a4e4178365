"""Training configuration: a ``None`` field of :class:`TrainConfig` takes
:data:`GENERIC_DEFAULTS`, overridden by the game's ``GameSpec.train_overrides``; a value
set by the caller always wins. :meth:`TrainConfig.resolved` fills them in and checks all.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines.agents import CODE_REFUSED, make_agent, runs_code
from tabletop_zoo.baselines.agents.checks import (
    MAX_LAYER,
    MAX_PROCESSES,
    check_agent_fits,
    check_seed,
)
from tabletop_zoo.baselines.training.opponents import COMPILED_BASELINES
from tabletop_zoo.envs._files import folder_problem
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES, fast_path_available, get_spec, make_raw_env

ENGINES = ("fast", "python")
"""Where the training games run: the compiled batched engine or the Python env."""

GENERIC_DEFAULTS: dict[str, int] = {
    "timesteps": 30_000,
    "n_envs": 4,
    "n_steps": 512,
    "batch_size": 256,
    "snapshot_every": 10_000,
    "eval_every": 10_000,
    "eval_games": 5,
    "final_eval_games": 20,
}
"""Defaults of the ``None`` fields for a game without ``train_overrides``."""

RESERVED_ENV_OPTIONS = {
    "num_players": "TrainConfig.num_players (--num-players)",
    "render_mode": "nothing: training envs do not render",
}
"""Env keywords that are not env options in training, and where they belong instead."""


def defaults_for(game: str) -> dict[str, Any]:
    """The defaults of the ``None`` fields for ``game``: generic, then the game's overrides."""
    return {**GENERIC_DEFAULTS, **get_spec(game).train_overrides}


@dataclass
class TrainConfig:
    """Everything a training run needs; ``None`` fields take the defaults of the game."""

    game: str = field(default_factory=lambda: next(iter(GAMES)))  # the registry's first
    num_players: int | None = None  # default: the game's smallest player count
    name: str | None = None  # run folder name; default a fresh "<game>_<players>p_seed<seed>"
    runs_dir: str = "runs"
    seed: int = 0
    timesteps: int | None = None
    n_envs: int | None = None  # envs stepped in turn by DummyVecEnv (or processes)
    vec: str = "dummy"  # "dummy" | "subproc"
    engine: str | None = None  # "python" (the default: the same on every install) | "fast"
    n_steps: int | None = None  # per env per rollout
    batch_size: int | None = None
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (128, 128)
    baselines: tuple[str, ...] = ("random", "greedy")  # fixed members of the opponent pool
    trust_models: bool = False  # pool model files may be unpickled (make_agent's trust)
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
    resumed_at: tuple[int, ...] = ()  # the steps this run resumed from (--resume)

    def resolved(self) -> TrainConfig:
        """A copy with the game's defaults filled in and every value checked (an
        :class:`~tabletop_zoo.envs.errors.InvalidOptionError` names what is allowed); without
        a ``name``, the first free run folder of ``<game>_<N>p_seed<S>``, ``..._2``, ..."""
        spec = get_spec(self.game)  # unknown game: lists the allowed ones
        self._check_values()
        for key in self.env_kwargs:
            if key in RESERVED_ENV_OPTIONS:
                raise InvalidOptionError(
                    f"{key!r} is not an env option here; set it with {RESERVED_ENV_OPTIONS[key]}"
                )
        num_players = spec.default_players if self.num_players is None else self.num_players
        env = make_raw_env(self.game, num_players, **self.env_kwargs)  # bad count or options
        for agent_spec in self.baselines:  # bad spec: lists the allowed forms; bad model
            if agent_spec.strip().lower() == "human":
                raise InvalidOptionError("the opponent pool cannot hold 'human' agents")
            if runs_code(agent_spec):  # the checkpoint keeps the pool
                raise InvalidOptionError(f"opponent pool: {agent_spec!r}: {CODE_REFUSED}")
            check_agent_fits(make_agent(agent_spec, trust=self.trust_models), env, agent_spec)
        env.close()
        values = {k: v for k, v in defaults_for(self.game).items() if getattr(self, k) is None}
        cfg = dataclasses.replace(self, num_players=num_players, **values)
        for key in "timesteps n_envs n_steps batch_size eval_games final_eval_games".split():
            if getattr(cfg, key) < 1:
                raise InvalidOptionError(f"{key} must be >= 1, got {getattr(cfg, key)}")
        for key in ("snapshot_every", "eval_every"):
            if getattr(cfg, key) < 0:
                raise InvalidOptionError(f"{key} must be >= 0 (0 = never), got {getattr(cfg, key)}")
        cfg.engine = cfg._resolved_engine()
        if cfg.name is None:  # the first of base, base_2, base_3, ... without a run in it
            base = f"{cfg.game}_{cfg.num_players}p_seed{cfg.seed}"
            cfg.name, number = base, 1
            while _holds_a_run(cfg.run_dir):
                number += 1
                cfg.name = f"{base}_{number}"
        return cfg

    def _resolved_engine(self) -> str:
        """``engine`` checked, or its default ``python``: a seed trains the same model on
        every install (``fast``, the compiled engine, plays other games from the same seed,
        so it is asked for by name)."""
        if self.engine in (None, "python"):
            return "python"
        if self.engine not in ENGINES:
            raise InvalidOptionError(f"engine must be one of {ENGINES}, got {self.engine!r}")
        spec = get_spec(self.game)
        if spec.fast_engine is None or not fast_path_available():
            why = "has no compiled engine" if spec.fast_engine is None else "needs numba"
            raise InvalidOptionError(
                f"engine 'fast': {self.game} {why} (pip install 'tabletop-zoo[fast]'); "
                "use engine 'python'"
            )
        slow = [b for b in self.baselines if b not in COMPILED_BASELINES]
        if slow:
            raise InvalidOptionError(
                f"engine 'fast' plays the pool opponents {list(COMPILED_BASELINES)} (and "
                f"snapshots) in the batch, not {slow}; use engine 'python' for them"
            )
        if self.vec != "dummy":
            raise InvalidOptionError(
                "vec 'subproc' runs the Python engine; engine 'fast' steps every env in one "
                "process (use engine 'python' with it)"
            )
        return "fast"

    def _check_values(self) -> None:
        """Check the fields that need no game defaults."""
        if self.vec not in ("dummy", "subproc"):
            raise InvalidOptionError(f"vec must be 'dummy' or 'subproc', got {self.vec!r}")
        if not 0.0 <= self.self_play_prob <= 1.0:
            raise InvalidOptionError(f"self_play_prob must be in [0, 1], got {self.self_play_prob}")
        if not self.baselines:
            raise InvalidOptionError("the opponent pool needs at least one baseline agent")
        check_seed(self.seed)
        checks = [
            (
                "net_arch",
                all(isinstance(n, int) and 1 <= n <= MAX_LAYER for n in self.net_arch),
                f"in 1..{MAX_LAYER} each",
            ),
            ("learning_rate", self.learning_rate > 0, "> 0"),
            ("gamma", 0 < self.gamma <= 1, "in (0, 1]"),
            ("gae_lambda", 0 <= self.gae_lambda <= 1, "in [0, 1]"),
            ("ent_coef", self.ent_coef >= 0, ">= 0"),
            ("n_epochs", self.n_epochs >= 1, ">= 1"),
            ("max_snapshots", self.max_snapshots >= 1, ">= 1"),
            ("torch_threads", 1 <= self.torch_threads <= MAX_PROCESSES, f"in 1..{MAX_PROCESSES}"),
            ("verbose", self.verbose in (0, 1, 2), "0, 1 or 2"),
            (
                "name",
                self.name is None or _folder_name(self.name),
                "one folder name inside runs_dir (no '/', not '.' or '..')",
            ),
        ]
        for key, ok, allowed in checks:  # (nan fails every comparison, so it is caught too)
            if not ok:
                raise InvalidOptionError(f"{key} must be {allowed}, got {getattr(self, key)!r}")

    def check_new_run_dir(self) -> None:
        """:class:`InvalidOptionError` if ``run_dir`` already holds a run or cannot be made."""
        run_dir = self.run_dir
        if _holds_a_run(run_dir):
            raise InvalidOptionError(
                f"run folder {run_dir} already has a run in it; pick another --name "
                "(or leave --name out: a fresh folder name is chosen)"
            )
        problem = folder_problem(run_dir.absolute())
        if problem:
            raise InvalidOptionError(f"cannot create run folder {run_dir}: {problem}")

    @property
    def run_dir(self) -> Path:
        """``runs_dir/name``."""
        return Path(self.runs_dir) / str(self.name)


def _holds_a_run(folder: Path) -> bool:
    """True if ``folder`` has files of a training run (config, evaluations or snapshots)."""
    return any((folder / name).exists() for name in ("config.json", "eval.csv", "snapshots"))


def _folder_name(name: str) -> bool:
    """True if ``name`` names one folder (a run folder stays inside ``runs_dir``)."""
    text = name.strip()
    return text not in ("", ".", "..") and "/" not in text and os.sep not in text
