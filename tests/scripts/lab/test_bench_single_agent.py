"""scripts/lab/bench_single_agent.py: env-side learner steps and the snapshot forward pass."""

from __future__ import annotations

import re

import pytest


def test_learner_steps_per_cpu_second(script, capsys) -> None:
    bench = script("bench_single_agent")
    argv = ["--game", "mole_hill", "--steps", "50", "--repeats", "1"]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"mole_hill 2p vs random: \d+ learner steps per CPU second", out)


def test_forward_pass_per_observation_at_each_batch_size(script, capsys) -> None:
    bench = script("bench_single_agent")
    argv = ["--game", "mole_hill", "--forward", "mole_hill-2p-ppo", "--seconds", "0.01"]
    assert bench.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [int(re.search(r"batch (\d+):", line).group(1)) for line in lines] == [1, 2, 4, 8]
    assert all(float(line.split(": ")[1].split()[0]) > 0 for line in lines)
    with pytest.raises(SystemExit):
        bench.main(["--game", "mole_hill", "--forward", "no-such-model"])
    assert "unknown reference model 'no-such-model'" in capsys.readouterr().err
