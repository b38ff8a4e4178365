"""MaskablePPO self-play training against a pool of opponents.

The learner plays a random seat of a ``SingleAgentEnv`` whose other seats the shared
:class:`~.opponents.OpponentPool` fills at every reset; with ``engine="fast"`` the games run
on the compiled engine with the same opponents inside the batch. Everything goes to
``runs_dir/name/``: ``config.json``, ``progress.csv`` (tensorboard too if installed),
``snapshots/step_N.zip``, ``eval.csv``, ``learning_curve.png``, ``best_model.zip``,
``final_model.zip``, ``checkpoint.pt``::

    result = train(TrainConfig(timesteps=20_000, name="demo"))
    print(format_eval_table(result.final_eval))
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines import reproducible
from tabletop_zoo.baselines.agents.threads import end_with_parent, limit_threads
from tabletop_zoo.baselines.training.checkpoint import DEFAULT_EVERY, Checkpoints, check_finite
from tabletop_zoo.baselines.training.config import TrainConfig
from tabletop_zoo.baselines.training.eval_log import EvalRow, keep_rows_until, run_evaluation
from tabletop_zoo.baselines.training.opponents import SHARED_POOLS, shared_pool
from tabletop_zoo.envs._files import write_text_atomic, writing
from tabletop_zoo.envs.extras import require_extra


@dataclass
class TrainResult:
    """What ``train`` produced."""

    config: TrainConfig
    run_dir: Path
    model_path: Path
    final_eval: list[EvalRow]
    seconds: float
    learn_cpu_seconds: float = 0.0
    """CPU-seconds of this process in ``learn()`` (rollouts, updates, callbacks)."""
    update_cpu_seconds: float = 0.0
    """The part of ``learn_cpu_seconds`` between rollouts: the gradient updates (SB3's
    ``train()``, with its log line), the same work on either engine at the same
    hyperparameters (:class:`~tabletop_zoo.baselines.training.callbacks.UpdateTimer`)."""


def silent_logger() -> Any:
    """An SB3 logger that writes nothing (give it to ``model.set_logger`` before ``learn()``:
    without a logger of ours SB3 makes an ``SB3-<date>`` folder in the temp directory)."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def _make_env_fn(cfg: TrainConfig, rank: int) -> Callable[[], Any]:
    """Thunk building env ``rank``: Monitor(SingleAgentEnv(raw env, opponent=pool))."""

    def thunk() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from tabletop_zoo.envs.registry import make_raw_env
        from tabletop_zoo.wrappers.single_agent import SingleAgentEnv

        if cfg.vec == "subproc":  # a worker process: it ends with its parent
            end_with_parent()
            import torch  # noqa: F401 - loaded first, so that its threads are limited too

            limit_threads()
        raw = make_raw_env(cfg.game, cfg.num_players, **cfg.env_kwargs)
        pool, seed = shared_pool(cfg, rank), cfg.seed * 1000 + rank
        return Monitor(SingleAgentEnv(raw, opponent=pool, learner_seat=None, seed=seed))

    return thunk


def _compiled_vec_env(cfg: TrainConfig) -> tuple[Any, Any]:
    """``(VecMonitor(CompiledVecEnv), its BatchedOpponentPool)``: ``n_envs`` games on the
    compiled engine, the pool's opponents playing inside the batch."""
    from stable_baselines3.common.vec_env import VecMonitor

    from tabletop_zoo.baselines.training.opponents import BatchedOpponentPool
    from tabletop_zoo.wrappers.sb3 import make_sb3_vec_env

    options = dict(cfg.env_kwargs)
    reward_mode, max_turns = options.pop("reward_mode", "win"), options.pop("max_turns", None)
    pool_args = (cfg.baselines, cfg.run_dir / "snapshots", cfg.self_play_prob, cfg.max_snapshots)
    pool = BatchedOpponentPool(*pool_args, seed=cfg.seed + 7919)
    envs = make_sb3_vec_env(
        cfg.game,
        cfg.n_envs,
        cfg.num_players,
        pool,
        reward_mode,
        max_turns,
        seed=cfg.seed * 1000,
        **options,
    )
    return VecMonitor(envs), pool


def _new_model(cfg: TrainConfig, vec_env: Any, progress: str = "") -> Any:
    """The MaskablePPO learner, logging to its folder (after ``progress``, rows kept)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import CSVOutputFormat, configure

    names = (
        "n_steps batch_size n_epochs learning_rate gamma gae_lambda ent_coef seed device verbose"
    )
    settings = {name: getattr(cfg, name) for name in names.split()}
    policy_kwargs = {"net_arch": list(cfg.net_arch), "optimizer_kwargs": reproducible.ADAM}
    model = MaskablePPO("MlpPolicy", vec_env, policy_kwargs=policy_kwargs, **settings)
    formats = ["csv"] + (["stdout"] if cfg.verbose else [])
    try:  # tensorboard only if it is installed
        import tensorboard  # noqa: F401

        formats.append("tensorboard")
    except ImportError:
        pass
    model.set_logger(configure(str(cfg.run_dir), formats))
    for output in (o for o in model.logger.output_formats if isinstance(o, CSVOutputFormat)):
        output.keys = progress.split("\n", 1)[0].split(",") if progress else []
        output.file.write(progress)
        output.write = writing(output.file.name)(output.write)  # a failed append names it
    return model


def train(
    config: TrainConfig,
    log: Callable[[str], Any] = print,
    checkpoint_every: float = DEFAULT_EVERY,
    resume: dict | None = None,
) -> TrainResult:
    """Run MaskablePPO self-play as configured; return paths and the final evaluation.
    ``resume``: a checkpoint's state (:mod:`.checkpoint`). Needs the ``train`` extra; bad
    settings raise ``InvalidOptionError`` before anything is written."""
    require_extra("train", "training (tabletop_zoo.baselines.training.train)")
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from tabletop_zoo.baselines.training import callbacks

    cfg = config.resolved()
    if resume is None:
        cfg.check_new_run_dir()
    limit_threads(cfg.torch_threads)  # torch and NumPy's BLAS
    set_random_seed(cfg.seed)
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    progress = "" if resume is None else _back_to(cfg, resume["counters"][0])
    conf = dataclasses.asdict(cfg)
    write_text_atomic(run_dir / "config.json", json.dumps(conf, indent=2, default=str) + "\n")
    SHARED_POOLS.pop(cfg.name, None)  # a new run of that name starts afresh

    if cfg.engine == "fast":
        vec_env, pool = _compiled_vec_env(cfg)
    else:
        thunks = [_make_env_fn(cfg, i) for i in range(cfg.n_envs)]
        vec_env = SubprocVecEnv(thunks) if cfg.vec == "subproc" else DummyVecEnv(thunks)
        pool = SHARED_POOLS.get(cfg.name)
    model = _new_model(cfg, vec_env, progress)
    update_timer = callbacks.UpdateTimer()
    snapshots = callbacks.SnapshotCallback(run_dir / "snapshots", cfg.snapshot_every, pool)
    chain = [update_timer, snapshots, callbacks.EvalCallback(cfg, cfg.eval_every)]
    checkpoints = Checkpoints(run_dir, "train", checkpoint_every, bool(resume))
    chain.append(callbacks.CheckpointCallback(checkpoints, conf, *chain[1:]))
    if resume is not None:
        chain[-1].restore(model, resume)
        vec_env.seed((cfg.seed + model.num_timesteps) % 2**31)  # new games from here
        log(f"resuming {run_dir} from step {model.num_timesteps} of its checkpoint")
    if cfg.progress_bar:
        chain.append(callbacks.ProgressCallback(cfg.timesteps))
    log(
        f"training {cfg.game} ({cfg.num_players} players) for {cfg.timesteps} steps on the "
        f"{cfg.engine} engine -> {run_dir}"
    )
    start, cpu_start = time.perf_counter(), time.process_time()
    left = cfg.timesteps - model.num_timesteps  # from a checkpoint's step on (0: a new run)
    try:
        model.learn(left, callback=CallbackList(chain), reset_num_timesteps=False)
    except ValueError:  # torch's check of the logits, once the weights went nan
        check_finite(f"step {model.num_timesteps}", *model.policy.parameters())
        raise
    learn_cpu_seconds = time.process_time() - cpu_start
    vec_env.close()
    model_path = callbacks.save_model(model, run_dir / "final_model.zip")  # once it plays
    log(f"saved {model_path}; final evaluation ({cfg.final_eval_games} games per seat)...")
    rows = run_evaluation(model, cfg, model.num_timesteps, cfg.final_eval_games)
    model.logger.close()  # flushes and closes progress.csv
    checkpoints.remove()
    seconds, update_cpu_seconds = time.perf_counter() - start, update_timer.cpu_seconds
    return TrainResult(
        cfg, run_dir, model_path, rows, seconds, learn_cpu_seconds, update_cpu_seconds
    )


def _back_to(cfg: TrainConfig, steps: int) -> str:
    """The run folder back at ``steps`` (later evaluations and snapshots go, the curve
    marks ``steps``); the rows of ``progress.csv`` until then (SB3 starts it anew)."""
    cfg.resumed_at = (*cfg.resumed_at, steps)
    keep_rows_until(cfg.run_dir / "eval.csv", "timesteps", steps)
    for snapshot in (cfg.run_dir / "snapshots").glob("step_*.zip"):
        if int(snapshot.stem[5:]) > steps:
            snapshot.unlink()
    return keep_rows_until(cfg.run_dir / "progress.csv", "time/total_timesteps", steps)
