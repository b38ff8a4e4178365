"""Self-play training library: config, opponent pool, evaluation, a tiny training run."""

from __future__ import annotations

import csv
import re
import shutil

import numpy as np
import pytest

from tabletop_zoo.baselines import RandomAgent
from tabletop_zoo.baselines.evaluation import evaluate_agent
from tabletop_zoo.baselines.training import (
    EvalRow,
    OpponentPool,
    TrainConfig,
    append_eval_csv,
    format_eval_table,
    plot_learning_curve,
)
from tabletop_zoo.envs.registry import GAMES, fast_path_available


def test_config_defaults_per_game_and_bad_values(tmp_path) -> None:
    # an empty runs folder: the README's quick start leaves runs/ in the clone
    cfg = TrainConfig(game="mole_hill", timesteps=123, runs_dir=str(tmp_path)).resolved()
    assert cfg.timesteps == 123  # explicit flag wins
    assert (cfg.n_envs, cfg.n_steps) == (8, 256)  # the game's measured best (registry)
    assert cfg.name == "mole_hill_2p_seed0"
    with pytest.raises(ValueError, match=f"allowed: {', '.join(sorted(GAMES))}"):
        TrainConfig(game="chess").resolved()
    with pytest.raises(ValueError, match="vec must be"):
        TrainConfig(vec="threads").resolved()
    with pytest.raises(ValueError, match="self_play_prob"):
        TrainConfig(self_play_prob=1.5).resolved()
    with pytest.raises(ValueError, match="n_envs must be >= 1, got 0"):
        TrainConfig(n_envs=0).resolved()
    with pytest.raises(ValueError, match="allowed"):
        TrainConfig(baselines=("random", "bogus")).resolved()


def test_pool_without_snapshots_uses_baselines(tmp_path) -> None:
    pool = OpponentPool(2, baselines=("random", "greedy"), snapshot_dir=tmp_path, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        agents = pool(rng)
        assert len(agents) == 2
        assert {a.name for a in agents} <= {"random", "greedy"}
    assert sum(pool.counts.values()) == 40
    assert set(pool.counts) == {"random", "greedy"}


def test_eval_rows_csv_table_and_curve(tmp_path) -> None:
    rows = [
        EvalRow("learner", "random", 10, 6, 1, 3, 5.0, 4.0, timesteps=100),
        EvalRow("learner", "greedy", 10, 2, 0, 8, 3, 6, timesteps=100),
    ]
    append_eval_csv(tmp_path / "eval.csv", rows)
    later = EvalRow("learner", "random", 10, 8, 0, 2, 6.0, 3.0, timesteps=200)
    append_eval_csv(tmp_path / "eval.csv", [later])
    read = list(csv.DictReader((tmp_path / "eval.csv").open()))
    assert [(r["timesteps"], r["opponent"], r["win_rate"]) for r in read] == [
        ("100", "random", "0.6"),
        ("100", "greedy", "0.2"),
        ("200", "random", "0.8"),
    ]
    for r in read:
        rates = float(r["win_rate"]) + float(r["draw_rate"]) + float(r["loss_rate"])
        assert rates == pytest.approx(1.0)
    table = format_eval_table(rows)
    assert "random" in table and "0.60" in table and "0.10" in table
    png = plot_learning_curve(tmp_path / "eval.csv", tmp_path / "curve.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_evaluate_agent_plays_every_seat() -> None:
    rows = evaluate_agent(RandomAgent(seed=0), "mole_hill", 2, ("random",), games_per_seat=2)
    (row,) = rows
    assert row.games == 4
    assert row.wins + row.draws + row.losses == 4


@pytest.mark.slow
def test_tiny_self_play_run_writes_everything(tmp_path, recwarn) -> None:
    from tabletop_zoo.baselines.training import train
    from tabletop_zoo.baselines.training.opponents import SHARED_POOLS

    cfg = TrainConfig(
        game="mole_hill",
        name="tiny",
        engine="python",
        runs_dir=str(tmp_path),
        timesteps=256,
        n_envs=2,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        net_arch=(16,),
        self_play_prob=1.0,
        snapshot_every=64,
        eval_every=128,
        eval_games=1,
        final_eval_games=1,
        progress_bar=False,
    )
    result = train(cfg, log=lambda *_: None)
    # every folder is made before SB3 writes to it ("Path '...' does not exist" noise)
    assert not [w for w in recwarn if "does not exist" in str(w.message)]
    run = tmp_path / "tiny"
    for name in ("config.json", "progress.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).stat().st_size > 0, name
    assert result.model_path == run / "final_model.zip" and result.model_path.exists()
    snapshots = sorted(run.glob("snapshots/step_*.zip"))
    assert len(snapshots) >= 2
    assert not [p for p in run.rglob("*") if ".tmp-" in p.name or p.name.startswith("tmp_")]
    # what train() saves loads without unpickling, with the weights SB3's own load gives
    import torch

    from tabletop_zoo.baselines.agents.ppo_file import SafePPOModel, load_ppo_model

    for path in [result.model_path, *snapshots]:
        safe, trusted = load_ppo_model(path), load_ppo_model(path, trust=True)
        assert isinstance(safe, SafePPOModel)
        mine, theirs = safe.policy.state_dict(), trusted.policy.state_dict()
        assert all(torch.equal(mine[k], theirs[k]) for k in theirs) and mine.keys() == theirs.keys()
    # once snapshots existed, self_play_prob=1 made the pool pick them
    pool = SHARED_POOLS.get("tiny")
    assert any(name.startswith("snapshot_") for name in pool.counts)
    # snapshots play their exported actor by sampling (NumPy, no SB3 predict per move)
    snapshot = next(iter(pool.loaded.values()))
    assert type(snapshot).__name__ == "PolicyNetAgent" and not snapshot.deterministic
    rows = list(csv.DictReader((run / "eval.csv").open()))
    assert {r["opponent"] for r in rows} == {"random", "greedy"}
    assert rows[-1]["games"] == "2"  # 1 game per seat, 2 seats
    assert [r.opponent for r in result.final_eval] == ["random", "greedy"]
    with pytest.raises(ValueError, match="already has a run"):
        train(cfg, log=lambda *_: None)

    # the saved model plays in a tournament as "ppo:PATH"
    from tabletop_zoo.baselines.evaluation import round_robin

    spec = f"ppo:{result.model_path}"
    tour = round_robin("mole_hill", [spec, "random"], games=2, seed=0)
    # shown by its run folder's name
    assert [g.seats for g in tour.games] == [("ppo(tiny)", "random"), ("random", "ppo(tiny)")]
    assert tour.specs == [spec, "random"]

    # the pool keeps only the newest max_snapshots
    other = tmp_path / "other"
    other.mkdir()
    for step in (10, 20, 30):
        shutil.copy(snapshots[0], other / f"step_{step}.zip")
    (other / "tmp_40.zip").write_bytes(b"half written")  # ignored
    pool = OpponentPool(1, snapshot_dir=other, max_snapshots=2, self_play_prob=1.0, seed=0)
    picked = {pool(np.random.default_rng(i))[0].name for i in range(10)}
    assert sorted(pool.loaded) == [20, 30]
    assert picked <= {"snapshot_20", "snapshot_30"}


@pytest.mark.slow
@pytest.mark.skipif(not fast_path_available(), reason="the compiled engines need numba")
def test_tiny_self_play_run_on_the_compiled_engine(tmp_path) -> None:
    from tabletop_zoo.baselines.training import train

    cfg = TrainConfig(
        game="mole_hill", name="tiny", runs_dir=str(tmp_path), timesteps=256, n_envs=2,
        n_steps=64, batch_size=64, n_epochs=1, net_arch=(16,), self_play_prob=1.0,
        snapshot_every=64, eval_every=128, eval_games=1, final_eval_games=1,
        progress_bar=False, engine="fast",
    )  # fmt: skip
    result = train(cfg, log=lambda *_: None)
    assert result.config.engine == "fast" and result.learn_cpu_seconds > 0
    # the updates ran twice (256 steps, 2 x 64 per rollout) and are a part of learn()
    assert 0 < result.update_cpu_seconds < result.learn_cpu_seconds
    run = tmp_path / "tiny"
    for name in ("config.json", "progress.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).stat().st_size > 0, name
    assert len(list(run.glob("snapshots/step_*.zip"))) >= 2
    # the pool's counts reach the log: snapshots played inside the batch
    logged = next(csv.DictReader((run / "progress.csv").open())).keys()
    assert any(key.startswith("pool/snapshot_") for key in logged)
    assert [r.opponent for r in result.final_eval] == ["random", "greedy"]


def test_the_engine_is_python_unless_fast_is_asked_for(tmp_path) -> None:
    def engine(**settings) -> str:
        return TrainConfig(game="mole_hill", runs_dir=str(tmp_path), **settings).resolved().engine

    assert engine() == "python"  # the same model from a seed on every install
    assert engine(engine="python") == "python"
    assert engine(baselines=("random", "mcts:5")) == "python"  # not a compiled player
    assert engine(vec="subproc") == "python"
    with pytest.raises(ValueError, match="engine must be one of"):
        engine(engine="turbo")
    if fast_path_available():
        with pytest.raises(ValueError, match="use engine 'python' for them"):
            engine(engine="fast", baselines=("random", "mcts:5"))
        with pytest.raises(ValueError, match="vec 'subproc' runs the Python engine"):
            engine(engine="fast", vec="subproc")


def test_default_run_folder_is_fresh_so_a_rerun_never_collides(tmp_path) -> None:
    game = next(iter(GAMES))
    cfg = TrainConfig(runs_dir=str(tmp_path)).resolved()
    assert cfg.game == game and cfg.name == f"{game}_2p_seed0"
    (tmp_path / cfg.name).mkdir()
    (tmp_path / cfg.name / "config.json").write_text("{}")
    again = TrainConfig(runs_dir=str(tmp_path)).resolved()
    assert again.name == f"{game}_2p_seed0_2"
    again.check_new_run_dir()  # free
    named = TrainConfig(runs_dir=str(tmp_path), name=cfg.name).resolved()
    with pytest.raises(ValueError, match="already has a run in it; pick another --name"):
        named.check_new_run_dir()


def test_defaults_are_generic_plus_the_games_overrides() -> None:
    from tabletop_zoo.baselines.training import GENERIC_DEFAULTS, defaults_for

    for name, spec in GAMES.items():
        cfg = TrainConfig(game=name).resolved()
        for key, generic in GENERIC_DEFAULTS.items():
            assert getattr(cfg, key) == spec.train_overrides.get(key, generic)
        assert defaults_for(name) == {**GENERIC_DEFAULTS, **spec.train_overrides}
        assert cfg.num_players == spec.default_players


@pytest.mark.parametrize("key", ["num_players", "render_mode"])
def test_env_kwargs_that_are_not_env_options_are_refused(key) -> None:
    from tabletop_zoo.envs.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match=f"{key!r} is not an env option here"):
        TrainConfig(env_kwargs={key: 3}).resolved()


def test_training_plays_no_matches_of_its_own() -> None:
    """Evaluations go through the evaluation layer (seat-rotated matches), not a loop here."""
    from pathlib import Path

    import tabletop_zoo.baselines.training as training

    folder = Path(training.__file__).parent
    for name in ("config", "opponents", "callbacks", "eval_log", "train"):  # the PPO trainer
        text = (folder / f"{name}.py").read_text()
        assert not re.search(r"(?<!\w)play_game\(|agent_iter\(", text), name
    assert "evaluate_agent(" in (folder / "eval_log.py").read_text()


def test_update_timer_counts_only_between_rollouts(monkeypatch) -> None:
    from tabletop_zoo.baselines.training import callbacks

    clock = iter([10.0, 12.5, 20.0, 21.0])  # rollout end, next start, rollout end, training end
    monkeypatch.setattr(callbacks.time, "process_time", lambda: next(clock))
    timer = callbacks.UpdateTimer()
    timer.on_rollout_start()  # the first rollout: nothing before it is counted
    timer.on_rollout_end()
    timer.on_rollout_start()
    timer.on_rollout_end()
    timer.on_training_end()
    assert timer.cpu_seconds == pytest.approx(3.5)
