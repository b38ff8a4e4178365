"""A training command killed (SIGKILL) inside a checkpoint write, so after training past
the checkpoint before it, then ``--resume`` (in this process: the kill is what needs one):
the run finishes with a loadable model, its log counts on without going back, no
checkpoint or temporary file is left. The other tests of resuming are in
``tests/baselines/test_checkpoint.py``."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="training needs the 'train' extra")

#: ``python -c KILL N COMMAND ARGS``: ``tabletop-zoo COMMAND ARGS`` killed inside its N-th
#: checkpoint write (the temporary file written, not yet renamed)
KILL = """
import contextlib, os, signal, sys
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.baselines.commands import main
writes, kill_in, real = [], int(sys.argv.pop(1)), checkpoint.atomic_path

@contextlib.contextmanager
def killed_in_write(path):
    with real(path) as temporary:
        yield temporary
        writes.append(path)
        if len(writes) == kill_in:
            os.kill(os.getpid(), signal.SIGKILL)

checkpoint.atomic_path = killed_in_write
main()
"""

GAME = ["--game", "mole_hill"]
EVERY = ["--checkpoint-every", "0"]  # a checkpoint at every chance


def killed(command: str, argv: list[str], cwd: Path, kill_in: int) -> str:
    """``tabletop-zoo COMMAND ARGV`` in ``cwd``, killed inside checkpoint write ``kill_in``;
    its output."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    line = [sys.executable, "-c", KILL, str(kill_in), command, *argv]
    done = subprocess.run(line, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    return done.stdout


def resumed(script, capsys, command: str, argv: list[str], cwd: Path, monkeypatch) -> str:
    """``command``'s ``main(argv)`` in this process, in ``cwd``: its output."""
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    assert script(command).main(argv) == 0
    return capsys.readouterr().out


def hidden_files(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_train_killed_in_a_checkpoint_write_resumes(script, capsys, tmp_path, monkeypatch):
    from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model

    argv = [*GAME, "--timesteps", "192", "--n-envs", "2", "--n-steps", "32", "--batch-size",
            "32", "--n-epochs", "1", "--net-arch", "8", "--pool", "random", "--snapshot-every",
            "64", "--eval-every", "0", "--final-eval-games", "1", "--no-progress", "--name", "r",
            *EVERY]  # fmt: skip
    killed("train", argv, tmp_path, kill_in=3)  # checkpoints at 0 and 64; killed at 128
    folder = tmp_path / "runs" / "r"
    assert (folder / "checkpoint.pt").is_file() and hidden_files(folder)  # the torn write
    assert (folder / "snapshots" / "step_128.zip").is_file()  # after the checkpoint
    out = resumed(script, capsys, "train", ["--resume", "runs/r", "--no-progress"], tmp_path,
                  monkeypatch)  # fmt: skip
    assert "resuming runs/r from step 64" in out
    load_ppo_model(folder / "final_model.zip")
    with (folder / "progress.csv").open() as f:
        steps = [int(row["time/total_timesteps"]) for row in csv.DictReader(f)]
    assert steps == [64, 128, 192]  # once each, in order
    assert json.loads((folder / "config.json").read_text())["resumed_at"] == [64]
    assert not (folder / "checkpoint.pt").exists() and hidden_files(folder) == []


@pytest.mark.slow
def test_train_alphazero_killed_in_a_checkpoint_write_resumes(
    script, capsys, tmp_path, monkeypatch
) -> None:
    from tabletop_zoo.baselines.agents.numpy_net import DenseNet

    argv = [*GAME, "--iterations", "4", "--games-per-iteration", "2", "--parallel-games", "2",
            "--simulations", "4", "--hidden", "8", "--updates-per-iteration", "2",
            "--train-batch", "8", "--max-moves", "20", "--out", "az.npz", *EVERY]  # fmt: skip
    killed("train-alphazero", argv, tmp_path, kill_in=3)  # killed before iteration 3
    out = resumed(script, capsys, "train_alphazero", ["--resume", "az.npz"], tmp_path,
                  monkeypatch)  # fmt: skip
    assert '"resumed_after_iteration": 1' in out
    history = DenseNet.load(tmp_path / "az.npz").meta["history"]
    assert [row["iteration"] for row in history] == [1, 2, 3, 4]
    assert [row.get("resumed") for row in history] == [None, 1, None, None]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["az.npz"]


@pytest.mark.slow
def test_ppo_vector_killed_in_a_checkpoint_write_resumes(script, capsys, tmp_path, monkeypatch):
    pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")
    from tabletop_zoo.baselines.training.export import read_ppo_vector_weights

    argv = [*GAME, "--total-timesteps", "512", "--num-envs", "8", "--num-steps", "16",
            "--hidden", "8", "--update-epochs", "1", "--opponent", "random,snapshot",
            "--snapshot-every", "1", "--log-every", "1", "--eval-games", "0",
            "--save", "pv.pt", *EVERY]  # fmt: skip
    before = killed("ppo-vector", argv, tmp_path, kill_in=3)  # killed before update 3
    out = resumed(script, capsys, "ppo_vector", ["--resume", "pv.pt"], tmp_path, monkeypatch)
    assert "resumed after update 1 (128 steps)" in out
    lines = (before + out).splitlines()
    updates = [int(m.group(1)) for m in map(re.compile(r"update +(\d+)").match, lines) if m]
    assert updates == [1, 2, 2, 3, 4]  # update 2 again: it ran after the last checkpoint
    read_ppo_vector_weights(tmp_path / "pv.pt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pv.pt"]
