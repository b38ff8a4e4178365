"""RLlib adapter, tabletop-zoo train-rllib, rllib:PATH agents and the Ray tournament backend.

These need the ``rllib`` extra, which pins its own gymnasium: ``.ci/run`` runs them in a
second virtual environment. Without ray installed the module is skipped. Every test here is
marked slow (Ray starts workers), so ``.ci/run`` runs them with ``-m slow``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow

ray = pytest.importorskip("ray")

from tabletop_zoo.baselines.agents import make_agent  # noqa: E402
from tabletop_zoo.baselines.agents.rllib import RLlibAgent, flat_observation  # noqa: E402
from tabletop_zoo.baselines.evaluation import round_robin  # noqa: E402
from tabletop_zoo.envs.errors import InvalidOptionError  # noqa: E402
from tabletop_zoo.envs.registry import GAMES, make_env  # noqa: E402
from tabletop_zoo.wrappers import rllib as adapter  # noqa: E402

CONFIGS = [(name, n) for name, spec in GAMES.items() for n in spec.players]
FIRST = next(iter(GAMES))


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance for the module (start-up costs seconds)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _play_randomly(env: adapter.TurnBasedMultiAgentEnv, seed: int) -> tuple[int, dict, dict]:
    """A whole episode of uniformly random legal actions; (steps, final rewards, dones)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = 0
    while True:
        assert len(obs) == 1, "turn-based: exactly one agent decides per step"
        ((agent, seen),) = obs.items()
        assert env.observation_spaces[agent].contains(seen)
        np.testing.assert_array_equal(seen["action_mask"], env.aec.unwrapped.action_mask(agent))
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        steps += 1
        if terminateds["__all__"] or truncateds["__all__"]:
            return steps, rewards, {"obs": obs, "term": terminateds, "trunc": truncateds}


@pytest.mark.parametrize(("game", "num_players"), CONFIGS)
def test_env_plays_whole_games_with_masks_and_final_rewards(game, num_players):
    env = adapter.TurnBasedMultiAgentEnv({"game": game, "num_players": num_players})
    steps, rewards, done = _play_randomly(env, seed=3)
    state = env.aec.unwrapped.game_state
    assert set(rewards) == set(done["obs"]) == set(env.possible_agents)
    expected = state.returns() if state.is_terminal() else None
    if expected is not None:  # win rewards of the engine's returns, seat by seat
        assert [rewards[f"player_{i}"] for i in range(num_players)] == expected
    assert done["term"]["__all__"] != done["trunc"]["__all__"]
    assert steps >= num_players


def test_flat_observation_matches_the_aec_observation():
    env = make_env(FIRST)
    env.reset(seed=0)
    raw = env.observe(env.agent_selection)
    flat = flat_observation(raw)
    np.testing.assert_array_equal(flat["observations"], raw["observation"].reshape(-1))
    np.testing.assert_array_equal(flat["action_mask"], raw["action_mask"].astype(np.float32))


def test_in_env_opponents_leave_one_learner_seat():
    env = adapter.TurnBasedMultiAgentEnv({"game": FIRST, "opponent": "random", "seed": 1})
    learners = set()
    for seed in range(6):
        _, rewards, done = _play_randomly(env, seed)
        assert len(env.agents) == 1 and set(rewards) == set(env.agents)
        learners |= set(env.agents)
    assert len(learners) > 1  # the learner's seat changes between episodes


def test_env_refuses_an_action_for_the_wrong_agent_and_bad_configs():
    env = adapter.TurnBasedMultiAgentEnv({"game": FIRST})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(InvalidOptionError, match=f"it is {agent}'s decision"):
        env.step({other: 0})
    with pytest.raises(InvalidOptionError, match="config"):
        adapter.TurnBasedMultiAgentEnv({})
    with pytest.raises(InvalidOptionError, match="policy setup"):
        adapter.module_ids("league", 2)


def test_policy_mappings():
    shared = adapter.policy_mapping("shared", 3)
    assert {shared(f"player_{i}") for i in range(3)} == {"main"}
    per_seat = adapter.policy_mapping("per-seat", 3)
    assert [per_seat(f"player_{i}") for i in range(3)] == ["seat_0", "seat_1", "seat_2"]
    snapshot = adapter.policy_mapping("snapshot", 3)

    class Episode:
        id_ = "episode-7"

    chosen = [snapshot(f"player_{i}", Episode()) for i in range(3)]
    assert chosen.count("main") == 1 and chosen.count("snapshot") == 2
    assert adapter.trained_module_ids("snapshot", 3) == ["main"]


def _train_script():
    """The code of ``tabletop-zoo train-rllib`` (and ``scripts/train_rllib.py``)."""
    from tabletop_zoo.baselines.commands import train_rllib

    return train_rllib


def test_train_script_trains_saves_and_evaluates(tmp_path, capsys):
    out = tmp_path / "run"
    code = _train_script().main(
        ["--game", FIRST, "--iterations", "1", "--batch", "200", "--minibatch", "100"]
        + ["--epochs", "1", "--hidden", "32", "--out", str(out), "--eval-games", "1"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "iteration 1: env steps" in printed
    assert (out / "checkpoint").is_dir() and (out / "module_main").is_dir()
    assert "random" in printed.split("training took")[1]  # the round-robin table
    agent = make_agent(f"rllib:{out / 'module_main'}", trust=True)
    same = make_agent(f"rllib:{out / 'checkpoint'}#main", trust=True)
    env = make_env(FIRST)
    env.reset(seed=1)
    for _ in range(5):
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"], env.unwrapped.game_state)
        assert obs["action_mask"][action] == 1
        assert same.act(obs["observation"], obs["action_mask"], None) == action
        env.step(action)


def test_train_script_with_a_relative_out_folder_evaluates_its_module(
    tmp_path, monkeypatch, capsys
):
    """The default --out (runs/rllib) is relative: RLlib reads checkpoints only from
    absolute paths, so the script and the agent make it absolute first."""
    monkeypatch.chdir(tmp_path)
    code = _train_script().main(
        ["--game", FIRST, "--iterations", "1", "--batch", "200", "--minibatch", "100"]
        + ["--epochs", "1", "--hidden", "32", "--eval-games", "1"]
    )
    assert code == 0
    assert (tmp_path / "runs" / "rllib" / "module_main").is_dir()
    assert "module_main" in capsys.readouterr().out.split("training took")[1]  # the table
    agent = make_agent("rllib:runs/rllib/module_main", trust=True)  # relative, as in the README
    env = make_env(FIRST)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"], None)] == 1


def test_rllib_agent_refuses_a_folder_without_a_module(tmp_path):
    with pytest.raises(InvalidOptionError, match="no RLlib module"):
        RLlibAgent(tmp_path)
    with pytest.raises(InvalidOptionError, match="no RLlib module"):
        make_agent(f"rllib:{tmp_path}")


def test_snapshot_callback_copies_main_into_the_frozen_module(ray_instance):
    script = _train_script()
    args = script.build_parser().parse_args(
        ["--game", FIRST, "--policies", "snapshot", "--snapshot-every", "1", "--batch", "200"]
        + ["--minibatch", "100", "--epochs", "1", "--hidden", "32"]
    )
    algo = script.build_config(args, GAMES[FIRST].default_players).build_algo()
    try:
        main_before = algo.get_module("main").get_state()
        result = algo.train()
        assert result["snapshot_refreshed"] == 1
        learned = algo.learner_group.get_weights(module_ids=["main", "snapshot"])
        for key, value in learned["main"].items():
            np.testing.assert_array_equal(value, learned["snapshot"][key])
        changed = any(not np.array_equal(main_before[k], v) for k, v in learned["main"].items())
        assert changed, "one PPO iteration changed the trained module"
        runner = algo.env_runner_group.local_env_runner
        for key, value in runner.module["snapshot"].get_state().items():
            np.testing.assert_array_equal(np.asarray(value), learned["main"][key])
    finally:
        algo.stop()


def test_ray_backend_gives_the_tables_of_serial_play(ray_instance):
    specs = ["random", "greedy", "mcts:5"]
    serial = round_robin(FIRST, specs, games=4, seed=11)
    remote = round_robin(FIRST, specs, games=4, seed=11, backend="ray")
    assert [g.__dict__ for g in remote.games] == [g.__dict__ for g in serial.games]
    assert remote.table() == serial.table()
    with pytest.raises(InvalidOptionError, match="backend"):
        round_robin(FIRST, specs, games=2, backend="cluster")


def test_evaluate_script_backend_ray_writes_the_serial_tables(tmp_path, ray_instance):
    from tabletop_zoo.baselines.commands import evaluate as module  # tabletop-zoo evaluate

    common = ["--game", FIRST, "--agents", "random,greedy", "--games", "4", "--no-progress"]
    assert module.main([*common, "--out", str(tmp_path / "local")]) == 0
    assert module.main([*common, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    for name in ("games.csv", "standings.csv", "pairings.csv"):
        local = (tmp_path / "local" / name).read_text()
        assert local == (tmp_path / "ray" / name).read_text()
