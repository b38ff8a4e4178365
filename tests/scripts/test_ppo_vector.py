"""tabletop-zoo ppo-vector (scripts/ppo_vector.py): a few hundred steps on every game, each
opponent kind, bad flags."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")
pytest.importorskip("torch", reason="the script needs the 'train' extra")

from tabletop_zoo.envs.registry import GAMES  # noqa: E402

OPPONENTS = ("snapshot", "greedy", "random")
CONFIGS = [
    (spec.name, n, OPPONENTS[k % len(OPPONENTS)])
    for spec in GAMES.values()
    if spec.fast_engine
    for k, n in enumerate(spec.players)
]


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
    assert f"vs random     games {players:4d}" in out  # one game per seat
    assert [p.name for p in tmp_path.iterdir()] == ["policy.pt"]  # no temporary file left


def test_the_cpu_budget_stops_training(script, capsys) -> None:
    ppo = script("ppo_vector")
    argv = ["--total-timesteps", "100000", "--num-envs", "8", "--num-steps", "8",
            "--hidden", "8", "--cpu-budget", "0.001", "--eval-games", "0"]  # fmt: skip
    assert ppo.main(argv) == 0
    out = capsys.readouterr().out
    assert "CPU budget of 0.001 s reached after 64 steps" in out
    assert "vs random     games" not in out  # no evaluation


def test_a_failed_save_keeps_the_previous_weights(script, tmp_path, monkeypatch) -> None:
    ppo = script("ppo_vector")
    saved = tmp_path / "policy.pt"
    saved.write_bytes(b"the weights of an earlier run")

    def disk_full(_weights, target) -> None:
        with open(target, "wb") as handle:
            handle.write(b"half the weights")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ppo.torch, "save", disk_full)
    argv = ["--total-timesteps", "64", "--num-envs", "8", "--num-steps", "8", "--hidden", "8",
            "--eval-games", "0", "--save", str(saved)]  # fmt: skip
    with pytest.raises(OSError, match="No space left"):  # run_main: one line, exit 1
        ppo.main(argv)
    assert saved.read_bytes() == b"the weights of an earlier run"
    assert list(tmp_path.iterdir()) == [saved]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "invalid choice"),
        (["--num-players", "7"], "--num-players must be one of"),
        (["--num-envs", "0"], "must be an integer in 1..65536"),
        (["--learning-rate", "-1"], "must be a number > 0"),
        (["--learning-rate", "inf"], "must be a number > 0"),
        (["--gamma", "1.5"], "must be a number in 0..1"),
        (["--max-grad-norm", "nan"], "must be a number > 0"),
        (["--opponent", "mcts"], "invalid choice"),
        (["--eval-games", "-1"], "must be an integer >= 0"),
        (["--seed", "-1"], "must be an integer in 0..4294967295"),
        (["--eval-opponents", "random,wizard"], "--eval-opponents: unknown agent spec 'wizard'"),
        (["--save", ""], "output file name is empty"),
        (["--num-envs", "3", "--num-steps", "3", "--num-minibatches", "2"], "divisible"),
    ],
)
def test_bad_flags_are_usage_errors(script, capsys, argv, message) -> None:
    ppo = script("ppo_vector")
    with pytest.raises(SystemExit) as exc:
        ppo.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("blocked", "extra"), [("torch", "train"), ("numba", "fast")])
@pytest.mark.parametrize(
    ("how", "start"),
    [
        ("script", "ppo_vector.py: error: scripts/ppo_vector.py needs the"),
        ("console", "tabletop-zoo ppo-vector: error: tabletop-zoo ppo-vector needs the"),
    ],
)
def test_a_missing_extra_is_one_line(monkeypatch, capsys, blocked, extra, how, start) -> None:
    """The module checks its extras when imported; both ways of running it say so in one
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
