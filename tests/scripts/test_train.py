"""scripts/train.py: a few hundred steps with tiny settings, then the evaluation table."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tabletop_zoo.envs.mole_hill_v0")


def test_tiny_training_run_prints_table(script, tmp_path, capsys) -> None:
    train = script("train")
    argv = [
        "--runs-dir", str(tmp_path), "--name", "smoke", "--timesteps", "256", "--n-envs", "2",
        "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16",
        "--snapshot-every", "128", "--eval-every", "128", "--eval-games", "1",
        "--final-eval-games", "1", "--no-progress", "--seed", "5",
    ]  # fmt: skip
    assert train.main(argv) == 0
    printed = capsys.readouterr().out
    assert "final evaluation" in printed and "random" in printed and "greedy" in printed
    run = tmp_path / "smoke"
    config = json.loads((run / "config.json").read_text())
    assert config["seed"] == 5 and config["timesteps"] == 256 and config["net_arch"] == [16]
    for name in ("final_model.zip", "progress.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).exists(), name
    assert list(run.glob("snapshots/step_*.zip"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "invalid choice"),
        (["--pool", "random,wizard"], "allowed"),
        (["--net-arch", "64,x"], "--net-arch"),
        (["--env-option", "no_such_option=1"], "no_such_option"),
        (["--num-players", "3"], "2-player"),
    ],
)
def test_bad_flags_are_usage_errors(script, tmp_path, capsys, argv, message) -> None:
    train = script("train")
    with pytest.raises(SystemExit) as exc:
        train.main([*argv, "--runs-dir", str(tmp_path)])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written
