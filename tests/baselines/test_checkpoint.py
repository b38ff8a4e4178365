"""Resumable checkpoints of the trainers (baselines/training/checkpoint.py): Ctrl-C and
``--resume`` end in the model of an uninterrupted run (AlphaZero, ppo-vector) or a
finished run with its log in order (train); a folder that is not a run, another command's
run or a file with code in it is refused in one line. The SIGKILL tests are in
``tests/scripts/test_resume.py``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="checkpoints need the 'train' extra")

from tabletop_zoo.baselines.training import checkpoint  # noqa: E402
from tabletop_zoo.baselines.training.eval_log import keep_rows_until  # noqa: E402
from tabletop_zoo.envs.errors import InvalidOptionError  # noqa: E402


class _Stop:
    """A ``log`` that presses Ctrl-C at its ``at``-th line."""

    def __init__(self, at: int) -> None:
        self.at, self.lines = at, []

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if len(self.lines) == self.at:
            raise KeyboardInterrupt


def test_a_checkpoint_round_trips_arrays_generators_and_tensors(tmp_path) -> None:
    saver = checkpoint.Checkpoints(tmp_path / "run.npz", "ppo-vector", 0.0, resumed=False)
    layer = torch.nn.Linear(3, 2)
    state = {"rows": (np.arange(6, dtype=np.int16).reshape(2, 3), {"n": 2**70})}
    saver.save({"seed": 1}, checkpoint.capture({"layer": layer}, **state))
    assert (tmp_path / "run.checkpoint.pt").is_file() and saver.due()  # 0 s: always due
    drawn = (np.random.random(), torch.rand(2))
    config, loaded = checkpoint.load_checkpoint(tmp_path / "run.npz", "ppo-vector")
    other = torch.nn.Linear(3, 2)
    rest = checkpoint.restore(loaded, {"layer": other})
    assert config == {"seed": 1} and rest["rows"][1] == {"n": 2**70}
    assert rest["rows"][0].dtype == np.int16 and rest["rows"][0].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert torch.equal(other.weight, layer.weight)
    assert np.random.random() == drawn[0] and torch.equal(torch.rand(2), drawn[1])  # put back


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not a resumable run of train"),
        (b"garbage", "is not a checkpoint"),
        ("pickle", r"is not a checkpoint \(it holds more than data\)"),
        ({"format": "x"}, "not a checkpoint of ours"),
        (
            {"format": checkpoint.FORMAT, "command": "ppo-vector"},
            "a run of tabletop-zoo ppo-vector",
        ),
    ],
    ids=["no checkpoint", "garbage", "pickled code", "other format", "other command"],
)
def test_what_is_not_a_run_of_the_command_is_one_line(tmp_path, content, message) -> None:
    run = tmp_path / "run"
    run.mkdir()
    if isinstance(content, bytes):
        (run / "checkpoint.pt").write_bytes(content)
    elif content == "pickle":  # code that would run on unpickling
        torch.save({"format": checkpoint.FORMAT, "hook": print}, run / "checkpoint.pt")
    elif content is not None:
        torch.save(content | {"config": {}, "state": {}}, run / "checkpoint.pt")
    with pytest.raises(InvalidOptionError, match=message) as info:
        checkpoint.load_checkpoint(run, "train")
    assert "\n" not in str(info.value)


def test_resume_refuses_settings_flags(capsys, tmp_path) -> None:
    from tabletop_zoo.baselines.commands import train, train_alphazero

    for main, flag in [(train.main, "--timesteps"), (train_alphazero.main, "--iterations")]:
        with pytest.raises(SystemExit) as exit_info:
            main(["--resume", str(tmp_path), flag, "9"])
        assert exit_info.value.code == 2
        assert f"leave out {flag}" in capsys.readouterr().err.splitlines()[-1]


def test_resumed_rows_end_at_the_checkpoint(tmp_path) -> None:
    log = tmp_path / "eval.csv"
    log.write_text("timesteps,opponent\n64,random\n128,random\n192,random\n")
    assert keep_rows_until(log, "timesteps", 128) == "timesteps,opponent\n64,random\n128,random\n"
    assert log.read_text().endswith("128,random\n")
    assert keep_rows_until(tmp_path / "none.csv", "timesteps", 1) == ""


@pytest.mark.slow
def test_alphazero_ctrl_c_then_resume_gives_the_uninterrupted_network(tmp_path) -> None:
    from tabletop_zoo.baselines.agents.numpy_net import DenseNet
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    def config(out: str) -> AlphaZeroConfig:
        return AlphaZeroConfig("mole_hill", out=str(tmp_path / out), iterations=3,
                               games_per_iteration=2, parallel_games=2, num_simulations=4,
                               hidden=(8,), updates_per_iteration=2, train_batch=8,
                               max_moves=20)  # fmt: skip

    train_alphazero(config("whole.npz"), log=lambda _line: None)
    with pytest.raises(KeyboardInterrupt):  # in iteration 2's log line
        train_alphazero(config("cut.npz"), _Stop(2), checkpoint_every=0)
    settings, state = checkpoint.load_checkpoint(tmp_path / "cut.npz", "train-alphazero")
    train_alphazero(AlphaZeroConfig(**settings | {"overwrite": True}), _Stop(0), 0, state)
    whole, cut = DenseNet.load(tmp_path / "whole.npz"), DenseNet.load(tmp_path / "cut.npz")
    for (a, b), (c, d) in zip(whole.trunk + list(whole.heads.values()),
                              cut.trunk + list(cut.heads.values()), strict=True):  # fmt: skip
        assert np.array_equal(a, c) and np.array_equal(b, d)
    assert [row["iteration"] for row in cut.meta["history"]] == [1, 2, 3]
    assert not (tmp_path / "cut.checkpoint.pt").exists()


@pytest.mark.slow
def test_ppo_vector_ctrl_c_then_resume_gives_the_uninterrupted_weights(tmp_path) -> None:
    pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")
    from tabletop_zoo.baselines.training.ppo_vector import PPOVectorConfig, train

    def config(save: str) -> PPOVectorConfig:
        return PPOVectorConfig("mole_hill", 2, opponent="random,snapshot", total_timesteps=512,
                               num_envs=8, num_steps=16, hidden=8, update_epochs=1,
                               snapshot_every=1, log_every=1, save=str(tmp_path / save),
                               checkpoint_every=0)  # fmt: skip

    whole = train(config("whole.pt"), log=lambda _line: None)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C after update 2 (its log line)
        train(config("cut.pt"), _Stop(3))
    settings, state = checkpoint.load_checkpoint(tmp_path / "cut.pt", "ppo-vector")
    log = _Stop(0)
    cut = train(PPOVectorConfig(**settings), log, resume=state)
    assert log.lines[0] == "resumed after update 1 (128 steps)"
    for a, b in zip(whole.state_dict().values(), cut.state_dict().values(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.slow
def test_train_ctrl_c_leaves_a_run_that_resumes(capsys, tmp_path, monkeypatch) -> None:
    from tabletop_zoo.baselines import cli
    from tabletop_zoo.baselines.commands import train
    from tabletop_zoo.baselines.training import callbacks

    monkeypatch.chdir(tmp_path)
    argv = ["--game", "mole_hill", "--timesteps", "128", "--n-envs", "2", "--n-steps", "32",
            "--batch-size", "32", "--n-epochs", "1", "--net-arch", "8", "--pool", "random",
            "--snapshot-every", "0", "--eval-every", "0", "--final-eval-games", "1",
            "--no-progress", "--name", "r", "--checkpoint-every", "0"]  # fmt: skip
    start_rollout = callbacks.CheckpointCallback._on_rollout_start
    calls = []

    def ctrl_c_in_the_second_rollout(self) -> None:
        calls.append(1)
        start_rollout(self)  # its checkpoint at step 64, then Ctrl-C
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(callbacks.CheckpointCallback, "_on_rollout_start",
                        ctrl_c_in_the_second_rollout)  # fmt: skip
    with pytest.raises(cli.Interrupted, match="resume with: tabletop-zoo train --resume runs/r"):
        train.main(argv)
    monkeypatch.setattr(callbacks.CheckpointCallback, "_on_rollout_start", start_rollout)
    assert train.main(["--resume", "runs/r", "--no-progress"]) == 0
    assert "resuming runs/r from step 64" in capsys.readouterr().out
    assert (tmp_path / "runs" / "r" / "final_model.zip").is_file()


@pytest.mark.slow
def test_train_writes_no_model_whose_policy_picks_illegal_actions(tmp_path, monkeypatch):
    """Finite weights whose outputs are out of range (``train --learning-rate 1e6`` after
    1,024 steps; here planted at the end of training: the logits of the actions legal in the
    first position of the last rollout 1e10 below the others, past the mask's -1e8):
    refused before ``final_model.zip`` is written, not by the final evaluation after it."""
    pytest.importorskip("sb3_contrib")
    from tabletop_zoo.baselines.training import TrainConfig, callbacks, train

    def out_of_range(self) -> None:
        masks = self.model.rollout_buffer.action_masks
        legal = torch.as_tensor(masks.reshape(-1, masks.shape[-1])[0] > 0)
        self.model.policy.action_net.bias.data = torch.where(legal, 0.0, 1e10)
        self.model.policy.action_net.weight.data.zero_()

    monkeypatch.setattr(callbacks.UpdateTimer, "_on_training_end", out_of_range)
    tiny = {"timesteps": 64, "n_envs": 2, "n_steps": 32, "batch_size": 64, "n_epochs": 1}
    tiny |= {"net_arch": (8,), "snapshot_every": 0, "eval_every": 0, "progress_bar": False}
    cfg = TrainConfig("mole_hill", name="run", engine="python", runs_dir=str(tmp_path), **tiny)
    with pytest.raises(InvalidOptionError, match="at step 64: its policy picks illegal actions"):
        train(cfg, log=lambda _line: None)
    kept = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert kept == ["checkpoint.pt", "config.json", "progress.csv"]


@pytest.mark.slow
def test_a_diverged_run_stops_with_one_error_and_writes_no_model(tmp_path) -> None:
    """A learning rate far too large: nan or inf in the network stops AlphaZero and
    ppo-vector training with ``InvalidOptionError`` before a model of nan is written."""
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    with pytest.raises(InvalidOptionError, match="training diverged at"):
        checkpoint.check_finite("a test", 1.0, torch.tensor([0.0, float("nan")]))
    checkpoint.check_finite("a test", 1.0, torch.zeros(3))  # finite: nothing raised
    az = AlphaZeroConfig("mole_hill", out=str(tmp_path / "az.npz"), iterations=2,
                         games_per_iteration=2, parallel_games=2, num_simulations=4, hidden=(8,),
                         updates_per_iteration=2, train_batch=8, max_moves=20,
                         learning_rate=1e29)  # fmt: skip
    with pytest.raises(InvalidOptionError, match="smaller --learning-rate"):
        train_alphazero(az, log=lambda _line: None)
    assert not (tmp_path / "az.npz").exists()
    if pytest.importorskip("numba", reason="the vector env needs the 'fast' extra"):
        from tabletop_zoo.baselines.training.ppo_vector import PPOVectorConfig, train

        ppo = PPOVectorConfig("mole_hill", 2, opponent="random", total_timesteps=256, num_envs=8,
                              num_steps=16, hidden=8, learning_rate=1e29,
                              save=str(tmp_path / "ppo.pt"))  # fmt: skip
        with pytest.raises(InvalidOptionError, match="smaller --learning-rate"):
            train(ppo, log=lambda _line: None)
        assert not (tmp_path / "ppo.pt").exists()
