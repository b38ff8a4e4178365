"""Every save of the baselines is atomic (a failed save keeps the previous file and leaves
no temporary file); a killed worker process's games are played again, and when that one is
killed too, the games already played are kept."""

from __future__ import annotations

import os
import signal
from types import SimpleNamespace

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.envs import _files


def _disk_full(monkeypatch) -> None:
    """Every fsync of the atomic writer fails as on a full disk (after the data was written)."""

    def fail(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "fsync", fail)


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*"))


def _net(value: float) -> DenseNet:
    weight = np.full((3, 2), value, np.float32)
    return DenseNet([], {"policy": (weight, np.zeros(2, np.float32))}, "relu", {"v": value})


def test_a_failed_network_save_keeps_the_previous_network(tmp_path, monkeypatch) -> None:
    path = _net(1.0).save(tmp_path / "az.npz")
    before = path.read_bytes()
    _disk_full(monkeypatch)
    with pytest.raises(OSError):
        _net(2.0).save(path)
    assert path.read_bytes() == before and DenseNet.load(path).meta == {"v": 1.0}
    assert _names(tmp_path) == ["az.npz"]


def test_a_failed_snapshot_leaves_no_file(tmp_path) -> None:
    pytest.importorskip("stable_baselines3")
    from tabletop_zoo.baselines.training.callbacks import SnapshotCallback

    class HalfSave:  # plays legal actions (a fresh rollout buffer), fails halfway in its save
        num_timesteps, observation_space = 10, SimpleNamespace(shape=(3,))
        policy = SimpleNamespace(parameters=lambda: [])
        rollout_buffer = SimpleNamespace(
            observations=np.zeros((1, 1, 3)), action_masks=np.ones((1, 1, 2))
        )

        def predict(self, positions, **_options):
            return np.zeros(len(positions), int), None

        def save(self, path):
            with open(path, "wb") as handle:
                handle.write(b"PK half a zip")
            raise OSError(28, "No space left on device")

    callback = SnapshotCallback(tmp_path / "snapshots", every=10)
    callback.model = HalfSave()
    callback.num_timesteps = 10
    with pytest.raises(OSError):
        callback._on_step()
    assert _names(tmp_path) == ["snapshots"]  # no step_10.zip, no temporary file


def test_a_full_disk_at_the_final_save_of_training_leaves_no_torn_model(tmp_path, monkeypatch):
    """The reported case: the final ``final_model.zip`` save fails; no torn model, no
    temporary file (the snapshots of the same run go through the same writer)."""
    pytest.importorskip("sb3_contrib")
    from tabletop_zoo.baselines.training import TrainConfig, train

    real = _files._fsync

    def no_space_for_zips(path):
        if str(path).endswith(".zip"):
            raise OSError(28, "No space left on device")
        real(path)

    monkeypatch.setattr(_files, "_fsync", no_space_for_zips)
    cfg = TrainConfig(game="mole_hill", name="full", engine="python", runs_dir=str(tmp_path),
                      timesteps=64, n_envs=2, n_steps=32, batch_size=64, n_epochs=1,
                      net_arch=(8,), snapshot_every=0, eval_every=0, final_eval_games=1,
                      progress_bar=False)  # fmt: skip
    with pytest.raises(OSError, match="No space left"):
        train(cfg, log=lambda *_: None)
    names = _names(tmp_path / "full")
    assert "final_model.zip" not in names and not [n for n in names if ".tmp-" in n], names
    assert "config.json" in names


@pytest.mark.slow
def test_failed_result_writes_keep_the_previous_results(tmp_path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    from tabletop_zoo.baselines.evaluation import round_robin
    from tabletop_zoo.baselines.evaluation.seating import play_lineups

    result = round_robin("mole_hill", ["random", "greedy"], games=2, seed=0)
    seated = play_lineups("mole_hill", ["random", "greedy"], [(0, 1)])
    out = tmp_path / "results"
    paths = [*result.write_csv(out), result.plot(out / "t.png"), seated.write_csv(out / "s.csv")]
    before = {p: p.read_bytes() for p in paths}
    _disk_full(monkeypatch)
    for save in (
        lambda: result.write_csv(out),
        lambda: result.plot(out / "t.png"),
        lambda: seated.write_csv(out / "s.csv"),
    ):
        with pytest.raises(OSError):
            save()
    assert {p: p.read_bytes() for p in paths} == before
    assert _names(out) == sorted(p.name for p in paths)


def test_a_failed_eval_csv_append_keeps_the_rows_before(tmp_path, monkeypatch) -> None:
    from tabletop_zoo.baselines.training.eval_log import EvalRow, append_eval_csv

    path = tmp_path / "eval.csv"
    row = EvalRow("learner", "random", 2, 1, 0, 1, 3.0, 2.0, timesteps=64)
    append_eval_csv(path, [row])
    append_eval_csv(path, [row])
    before = path.read_bytes()
    assert before.count(b"\n") == 3  # header and two rows
    _disk_full(monkeypatch)
    with pytest.raises(OSError):
        append_eval_csv(path, [row])
    assert path.read_bytes() == before and _names(tmp_path) == ["eval.csv"]


def test_a_failed_recording_keeps_the_previous_one(tmp_path, monkeypatch) -> None:
    pytest.importorskip("imageio")
    from tabletop_zoo.wrappers.recording import save_animation

    frames = [np.zeros((16, 16, 3), np.uint8), np.full((16, 16, 3), 255, np.uint8)]
    path = save_animation(frames, tmp_path / "game.gif")
    before = path.read_bytes()
    _disk_full(monkeypatch)
    with pytest.raises(OSError):
        save_animation(frames[::-1], path)
    assert path.read_bytes() == before and _names(tmp_path) == ["game.gif"]


def test_a_recording_that_cannot_be_written_is_one_error(tmp_path, monkeypatch) -> None:
    """A file that cannot be opened for writing (seen in /proc as root): one OSError, and
    nothing left for imageio to retry (and print a traceback about) when it is collected."""
    pytest.importorskip("imageio")
    import gc
    import sys

    from tabletop_zoo.wrappers.recording import save_animation

    blocked = tmp_path / "blocked.gif"
    blocked.mkdir()  # the temporary name is a folder: opening it to write fails
    monkeypatch.setattr(_files, "temporary_name", lambda path: blocked)
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    frames = [np.zeros((16, 16, 3), np.uint8)] * 2
    errors = []
    try:
        save_animation(frames, tmp_path / "game.gif")
    except OSError as exc:
        errors.append(type(exc))  # not the exception: its frames would keep imageio's writer
    gc.collect()
    assert errors == [IsADirectoryError]
    assert unraisable == [] and _names(tmp_path) == ["blocked.gif"]


# ---------------------------------------------------------------- killed workers
def _killing(real, every: bool = False):
    """``play_tasks`` that kills a worker process after the first game arrives (``every``:
    after every game)."""
    import multiprocessing

    def play_tasks(tasks, workers=1):
        outcomes = real(tasks, workers)
        try:
            for number, outcome in enumerate(outcomes):
                yield outcome
                if number == 0 or every:
                    for worker in multiprocessing.active_children()[:1]:
                        os.kill(worker.pid, signal.SIGKILL)
        finally:
            outcomes.close()

    return play_tasks


SLOW = ["mcts:40", "greedy"]  # games slow enough that the kill comes before the end


@pytest.mark.slow
def test_a_killed_worker_s_games_are_played_again(monkeypatch) -> None:
    from tabletop_zoo.baselines.evaluation import matches, tournament
    from tabletop_zoo.baselines.evaluation.arena import IncompleteRunError, play_tasks

    serial = tournament.round_robin("mole_hill", SLOW, games=4)
    monkeypatch.setattr(matches, "play_tasks", _killing(play_tasks))
    assert tournament.round_robin("mole_hill", SLOW, games=4, workers=2).games == serial.games
    monkeypatch.setattr(matches, "play_tasks", _killing(play_tasks, every=True))
    with pytest.raises(IncompleteRunError, match="worker processes died twice") as exc:
        tournament.round_robin("mole_hill", SLOW, games=4, workers=2)
    result = exc.value.result
    assert 1 <= len(result.games) < 4 and "of 4 games played" in result.incomplete
    assert "INCOMPLETE" in result.table().splitlines()[0]
    assert set(result.games) <= set(serial.games)
