"""scripts/train.py: a few hundred steps with tiny settings, then the evaluation table."""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.envs.registry import fast_path_available

ENGINES = [
    "python",
    pytest.param("fast", marks=pytest.mark.skipif(not fast_path_available(), reason="no numba")),
]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_tiny_training_run_prints_table(script, tmp_path, capsys, engine) -> None:
    train = script("train")
    argv = [
        "--runs-dir", str(tmp_path), "--name", "smoke", "--timesteps", "256", "--n-envs", "2",
        "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16",
        "--snapshot-every", "128", "--eval-every", "128", "--eval-games", "1",
        "--final-eval-games", "1", "--no-progress", "--seed", "5", "--engine", engine,
    ]  # fmt: skip
    assert train.main(argv) == 0
    printed = capsys.readouterr().out
    assert "final evaluation" in printed and "random" in printed and "greedy" in printed
    assert f"learner steps per CPU-second, {engine} engine" in printed
    run = tmp_path / "smoke"
    config = json.loads((run / "config.json").read_text())
    assert config["seed"] == 5 and config["timesteps"] == 256 and config["net_arch"] == [16]
    assert config["engine"] == engine
    for name in ("final_model.zip", "progress.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).exists(), name
    assert list(run.glob("snapshots/step_*.zip"))


def test_existing_run_folder_is_a_usage_error(script, tmp_path, capsys) -> None:
    train = script("train")
    (tmp_path / "old" / "snapshots").mkdir(parents=True)
    with pytest.raises(SystemExit) as exc:
        train.main(["--runs-dir", str(tmp_path), "--name", "old"])
    assert exc.value.code == 2
    assert "already has a run in it; pick another --name" in capsys.readouterr().err


def test_runs_dir_under_a_file_is_a_usage_error(script, tmp_path, capsys) -> None:
    train = script("train")
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as exc:
        train.main(["--runs-dir", str(blocker / "runs")])
    assert exc.value.code == 2
    assert "--runs-dir" in (err := capsys.readouterr().err) and "is a file, not a folder" in err


@pytest.mark.slow
def test_rerunning_the_demo_command_picks_a_fresh_folder(script, tmp_path, capsys) -> None:
    """The README's `python scripts/train.py` works twice in a row (here with tiny settings)."""
    train = script("train")
    argv = [
        "--runs-dir", str(tmp_path), "--timesteps", "64", "--n-envs", "1", "--n-steps", "64",
        "--batch-size", "64", "--n-epochs", "1", "--net-arch", "8", "--snapshot-every", "0",
        "--eval-every", "0", "--final-eval-games", "1", "--no-progress",
    ]  # fmt: skip
    assert train.main(argv) == 0
    assert train.main(argv) == 0
    runs = sorted(p.name for p in tmp_path.iterdir())
    first = runs[0]
    assert runs == [first, f"{first}_2"]
    assert all((tmp_path / r / "final_model.zip").exists() for r in runs)
    assert (
        f"model:          {tmp_path / (first + '_2') / 'final_model.zip'}"
        in capsys.readouterr().out
    )


def test_progress_bar_is_tqdm(script, tmp_path, capsys) -> None:
    """One progress-bar library for every script: training shows a tqdm bar over its steps."""
    train = script("train")
    argv = [
        "--runs-dir", str(tmp_path), "--timesteps", "64", "--n-envs", "1", "--n-steps", "64",
        "--batch-size", "64", "--n-epochs", "1", "--net-arch", "8", "--snapshot-every", "0",
        "--eval-every", "0", "--final-eval-games", "1",
    ]  # fmt: skip
    assert train.main(argv) == 0
    err = capsys.readouterr().err
    assert "steps: 100%" in err and "64/64" in err  # tqdm's format, not SB3's rich bar
