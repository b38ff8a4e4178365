"""Bad flags of the training and evaluation commands: a usage error (exit 2) naming the
problem, and nothing written. (Every command's one-line errors as a user sees them, in a
subprocess: ``test_bad_input.py``.)"""

from __future__ import annotations

import pytest

#: The flags every case starts with, before its own (which may override them).
FIXED = {
    "train": lambda out: ["--runs-dir", str(out)],
    "evaluate": lambda out: ["--games", "2", "--no-progress", "--out", str(out)],
    "ppo_vector": lambda out: [],
}


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("train", ["--game", "chess"], "invalid choice"),
        ("train", ["--pool", "random,wizard"], "allowed"),
        ("train", ["--net-arch", "64,x"], "--net-arch"),
        ("train", ["--env-option", "no_such_option=1"], "no_such_option"),
        ("train", ["--num-players", "3"], "2-player"),
        ("train", ["--net-arch", "0"], "--net-arch: must be an integer in 1..65536"),
        ("train", ["--seed", "-1"], "--seed: must be an integer in 0.."),
        ("train", ["--learning-rate", "nan"], "--learning-rate: must be a number > 0"),
        ("train", ["--gamma", "5"], "--gamma: must be a number > 0 and <= 1"),
        ("train", ["--n-epochs", "0"], "n_epochs must be >= 1"),
        ("train", ["--max-snapshots", "0"], "max_snapshots must be >= 1"),
        ("train", ["--eval-games", "0"], "eval_games must be >= 1"),
        ("train", ["--eval-every", "-1"], "eval_every must be >= 0"),
        ("train", ["--snapshot-every", "-1"], "snapshot_every must be >= 0"),
        ("train", ["--torch-threads", "0"], "must be an integer in 1..256"),
        ("train", ["--verbose", "7"], "verbose must be 0, 1 or 2"),
        ("train", ["--pool", "random,ppo:no/such/model.zip"], "no saved MaskablePPO model"),
        ("train", ["--env-option", "num_players=3"], "set it with TrainConfig.num_players"),
        ("train", ["--engine", "turbo"], "invalid choice"),
        ("evaluate", ["--agents", "random,wizard"], "allowed"),
        ("evaluate", ["--agents", "random"], "at least 2 agents"),
        ("evaluate", ["--num-players", "3"], "is played by 2 players"),
        ("evaluate", ["--seed", "-1"], "--seed: must be an integer in 0.."),
        ("evaluate", ["--games", "0"], "--games: must be an integer >= 1"),
        ("evaluate", ["--random-opening", "-1"], "--random-opening: must be an integer >= 0"),
        ("evaluate", ["--agents", "random,ppo:no/such/model.zip"], "no saved MaskablePPO model"),
        ("ppo_vector", ["--game", "chess"], "invalid choice"),
        ("ppo_vector", ["--num-players", "7"], "--num-players 7: "),
        ("ppo_vector", ["--num-envs", "0"], "must be an integer in 1..65536"),
        ("ppo_vector", ["--learning-rate", "-1"], "must be a number > 0"),
        ("ppo_vector", ["--learning-rate", "inf"], "must be a number > 0"),
        ("ppo_vector", ["--gamma", "1.5"], "must be a number in 0..1"),
        ("ppo_vector", ["--max-grad-norm", "nan"], "must be a number > 0"),
        (
            "ppo_vector",
            ["--opponent", "mcts"],
            "'mcts' is not an opponent; choose from random, greedy",
        ),
        ("ppo_vector", ["--opponent", "random,,greedy"], "'' is not an opponent"),
        ("ppo_vector", ["--eval-games", "-1"], "must be an integer >= 0"),
        ("ppo_vector", ["--seed", "-1"], "must be an integer in 0..4294967295"),
        (
            "ppo_vector",
            ["--eval-opponents", "random,wizard"],
            "--eval-opponents: unknown agent spec 'wizard'",
        ),
        ("ppo_vector", ["--save", ""], "output file name is empty"),
        ("ppo_vector", ["--reward-mode", "margin"], "invalid choice"),
        ("ppo_vector", ["--reward-scale", "0"], "must be a number > 0"),
        ("ppo_vector", ["--eval-policy", "softmax"], "invalid choice"),
        (
            "ppo_vector",
            ["--num-envs", "3", "--num-steps", "3", "--num-minibatches", "2"],
            "divisible",
        ),
    ],
)
def test_bad_flags_are_usage_errors(script, tmp_path, capsys, command, argv, message) -> None:
    main = script(command).main
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main([*FIXED[command](out), *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written
