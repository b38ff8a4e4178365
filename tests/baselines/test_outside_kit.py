"""The evaluation kit for policies trained outside our code (``evaluation.outside``)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.evaluation import evaluate_agent
from tabletop_zoo.baselines.evaluation.outside import (
    CpuShare,
    WinRate,
    chance_level,
    win_rate,
    write_result,
)
from tabletop_zoo.envs.errors import InvalidOptionError


def first_legal(observation, action_mask) -> int:
    return int(np.flatnonzero(action_mask)[0])


def test_a_win_rate_prints_with_its_interval_and_as_a_dict() -> None:
    rate = WinRate.of(198, 1, 200)
    assert str(rate) == "0.99 [0.96, 1.00] (198/200)"
    assert rate.as_dict() == {
        "wins": 198,
        "draws": 1,
        "games": 200,
        "rate": 0.99,
        "low": rate.low,
        "high": rate.high,
    }
    assert 0.96 < rate.low < 0.99 < rate.high < 1.0


def test_win_rate_is_evaluate_agents_count_with_the_seats_rotating_evenly() -> None:
    kit = win_rate(first_legal, games=6, seed=3)
    ours = evaluate_agent(
        make_agent("py:" + __file__ + ":first_legal_factory"),
        "mole_hill",
        opponents=("random",),
        games_per_seat=3,
        seed=3,
    )[0]
    assert (kit.wins, kit.draws, kit.games) == (ours.wins, ours.draws, 6)
    assert win_rate(first_legal, games=6, seed=3) == kit  # seeded
    # 3 players, 7 games: seats 0, 0, 0, 1, 1, 2, 2 (as even as 7 games allow)
    three = win_rate(first_legal, game="arktia", num_players=3, games=7, seed=0)
    assert three.games == 7
    chance = chance_level("mole_hill", games=10, seed=1)
    assert (
        chance
        == win_rate(make_agent("random"), games=10, seed=1)
        == win_rate("random", games=10, seed=1)
    )
    with pytest.raises(InvalidOptionError, match="games must be >= 1, got 0"):
        win_rate(first_legal, games=0)


def first_legal_factory():
    return first_legal


def _busy(seconds: float, work) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        work()


def test_cpu_share_tells_our_code_from_the_callers() -> None:
    with CpuShare() as ours:
        _busy(0.4, lambda: chance_level(games=4))  # our agents in our env
    with CpuShare() as theirs:
        _busy(0.4, lambda: sum(i * i for i in range(10_000)))
    assert ours.cpu_seconds >= 0.4 and theirs.cpu_seconds >= 0.4
    assert ours.samples[1] >= 20 and theirs.samples[1] >= 20
    assert ours.env_share > 0.8 and theirs.env_share < 0.2


def test_write_result_writes_json_atomically(tmp_path) -> None:
    path = tmp_path / "out" / "result.json"
    data = {"after": WinRate.of(3, 0, 4), "cpu": np.float32(1.5), "shape": np.arange(2)}
    assert write_result(path, data) == path
    assert json.loads(path.read_text()) == {
        "after": WinRate.of(3, 0, 4).as_dict(),
        "cpu": 1.5,
        "shape": [0, 1],
    }
    before = path.read_text()
    with pytest.raises(TypeError, match="object is not JSON"):
        write_result(path, {"x": object()})
    assert path.read_text() == before and [p.name for p in path.parent.iterdir()] == [path.name]
