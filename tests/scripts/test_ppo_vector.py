"""tabletop-zoo ppo-vector (scripts/ppo_vector.py): a few hundred steps on every game, each
opponent kind, bad flags."""

from __future__ import annotations

import re
import sys

import pytest

pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")
pytest.importorskip("torch", reason="the script needs the 'train' extra")

from tabletop_zoo.baselines.training import ppo_vector as training
from tabletop_zoo.envs import _files
from tabletop_zoo.envs.registry import GAMES

OPPONENTS = ("snapshot", "greedy", "random")
CONFIGS = [
    (spec.name, n, OPPONENTS[k % len(OPPONENTS)])
    for spec in GAMES.values()
    if spec.fast_engine
    for k, n in enumerate(spec.players)
] + [("arktia", 3, "random,greedy,snapshot")]  # a mix: each other seat draws one


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "opponent"), CONFIGS)
def test_a_few_hundred_steps_then_the_arena(script, tmp_path, capsys, game, players, opponent):
    ppo = script("ppo_vector")
    saved = tmp_path / "policy.pt"
    argv = [
        "--game", game, "--num-players", str(players), "--opponent", opponent,
        "--total-timesteps", "256", "--num-envs", "8", "--num-steps", "16",
        "--num-minibatches", "2", "--update-epochs", "1", "--hidden", "16",
        "--snapshot-every", "1", "--log-every", "1", "--eval-games", "1",
        "--eval-opponents", "random", "--save", str(saved),
    ]  # fmt: skip
    assert ppo.main(argv) == 0
    out = capsys.readouterr().out
    assert f"{game} ({players} players) vs {opponent}: 2 updates of 128 steps" in out
    assert "update     2  steps       256" in out and "steps/CPU-s" in out
    assert re.search(rf"^random +{players} ", out, re.MULTILINE)  # one game per seat
    assert [p.name for p in tmp_path.iterdir()] == ["policy.pt"]  # no temporary file left


def test_score_rewards_and_a_sampled_evaluation(script, capsys) -> None:
    ppo = script("ppo_vector")
    argv = ["--game", "arktia", "--num-players", "3", "--opponent", "greedy",
            "--total-timesteps", "128", "--num-envs", "8", "--num-steps", "16", "--hidden", "8",
            "--reward-mode", "score", "--reward-scale", "10", "--log-every", "1",
            "--eval-games", "1", "--eval-opponents", "greedy",
            "--eval-policy", "sample"]  # fmt: skip
    assert ppo.main(argv) == 0
    out = capsys.readouterr().out
    assert "update     1  steps       128" in out and "truncated " in out
    assert re.search(r"^greedy +3 ", out, re.MULTILINE)  # a table row: opponent, games


class _FixedLogits:
    """Stands in for the trained ActorCritic: the same logits whatever the observation."""

    def __init__(self, logits: list[float]) -> None:
        import torch

        self.logits = torch.tensor([logits])

    def trunk(self, obs):
        return obs

    def actor(self, _hidden):
        return self.logits


@pytest.mark.slow
def test_the_arena_player_keeps_to_legal_actions(script) -> None:
    """argmax: the best legal action, not the best one; sample: legal actions only, in the
    policy's proportions (log 3 against 0: three to one), the same draws for the same seed."""
    import numpy as np

    agent = _FixedLogits([9.0, 0.0, float(np.log(3.0)), 5.0])
    mask = np.array([False, True, True, False])
    observation = np.zeros(4, np.float32)
    assert training.ArenaPlayer(agent, "p").act(observation, mask) == 2
    draws = [training.ArenaPlayer(agent, "p", "sample", seed=7) for _ in range(2)]
    first = [draws[0].act(observation, mask) for _ in range(4000)]
    assert first == [draws[1].act(observation, mask) for _ in range(4000)]
    assert set(first) == {1, 2}
    assert 0.72 < first.count(2) / len(first) < 0.78


def test_saved_weights_load_for_evaluation_alone(script, tmp_path, capsys) -> None:
    ppo = script("ppo_vector")
    saved = tmp_path / "policy.pt"
    small = ["--num-envs", "8", "--num-steps", "8", "--hidden", "8", "--eval-games", "2",
             "--eval-opponents", "random"]  # fmt: skip
    assert ppo.main([*small, "--total-timesteps", "64", "--save", str(saved)]) == 0
    trained = capsys.readouterr().out.split("trained 64 steps")[1]
    assert ppo.main([*small, "--total-timesteps", "0", "--load", str(saved)]) == 0
    evaluated = capsys.readouterr().out
    assert ": 0 updates of 64 steps" in evaluated and "trained 0 steps" in evaluated
    row = next(line for line in trained.splitlines() if line.startswith("random "))
    assert row in evaluated  # the same weights, the same evaluation games


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("garbage", "^--load .*: not ppo_vector weights"),
        ("other hidden", "^--load .*: these weights do not fit this game, player count and hidden"),
    ],
)
def test_a_bad_weights_file_is_one_error(script, tmp_path, content, message) -> None:
    """What the reader refuses (pickles that would run code included) is tested with it in
    test_ship_ppo_vector.py; here, that --load says so before anything is trained."""
    import torch

    from tabletop_zoo.envs.errors import ModelFileError

    ppo = script("ppo_vector")
    weights = tmp_path / "policy.pt"
    if content == "garbage":
        weights.write_bytes(b"not weights at all")
    else:
        torch.save(training.ActorCritic(4, 2, 16).state_dict(), weights)
    argv = ["--hidden", "8", "--total-timesteps", "0", "--eval-games", "0", "--load", str(weights)]
    with pytest.raises(ModelFileError, match=message):
        ppo.main(argv)


def test_the_cpu_budget_stops_training(script, capsys) -> None:
    ppo = script("ppo_vector")
    argv = ["--total-timesteps", "100000", "--num-envs", "8", "--num-steps", "8",
            "--hidden", "8", "--cpu-budget", "0.001", "--eval-games", "0"]  # fmt: skip
    assert ppo.main(argv) == 0
    out = capsys.readouterr().out
    assert "CPU budget of 0.001 s reached after 64 steps" in out
    assert "win 95% CI" not in out  # no evaluation


def test_a_failed_save_keeps_the_previous_weights(script, tmp_path, monkeypatch) -> None:
    ppo = script("ppo_vector")
    saved = tmp_path / "policy.pt"
    saved.write_bytes(b"the weights of an earlier run")

    def disk_full(_fd) -> None:  # the data written, the disk full before it is synced
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "fsync", disk_full)
    argv = ["--total-timesteps", "64", "--num-envs", "8", "--num-steps", "8", "--hidden", "8",
            "--eval-games", "0", "--save", str(saved)]  # fmt: skip
    with pytest.raises(OSError, match="No space left"):  # run_main: one line, exit 1
        ppo.main(argv)
    assert saved.read_bytes() == b"the weights of an earlier run"
    assert list(tmp_path.iterdir()) == [saved]


@pytest.mark.parametrize(("blocked", "extra"), [("torch", "train"), ("numba", "fast")])
@pytest.mark.parametrize(
    ("how", "start"),
    [
        ("script", "ppo_vector.py: error: scripts/ppo_vector.py needs the"),
        ("console", "tabletop-zoo ppo-vector: error: tabletop-zoo ppo-vector needs the"),
    ],
)
def test_a_missing_extra_is_one_line(monkeypatch, capsys, blocked, extra, how, start) -> None:
    """The command checks its extras before its flags; both ways of running it say so in one
    line (exit 1), naming the command as it was typed."""
    from tabletop_zoo.baselines import commands

    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delitem(sys.modules, "tabletop_zoo.baselines.commands.ppo_vector", raising=False)
    monkeypatch.setattr(sys, "argv", ["scripts/ppo_vector.py"])
    with pytest.raises(SystemExit) as exc:
        if how == "script":
            commands.run_script("ppo_vector")  # what python scripts/ppo_vector.py runs
        else:
            commands.main(["ppo-vector"])  # what tabletop-zoo ppo-vector runs
    assert exc.value.code == 1
    message = capsys.readouterr().err
    assert message.startswith(start), message
    assert f"'{extra}' extra (missing: {blocked})" in message and message.count("\n") == 1
