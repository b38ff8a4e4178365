"""What every AEC env must do, for every game of ``GAMES`` and every player count, plus
the Nim toy added through ``registry.extended`` (it subclasses the same env base).

Rulings and observation planes are tested per game; this file holds only the contract.
"""

from __future__ import annotations

import random
import subprocess
import sys

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tabletop_zoo.envs._registration import register_all
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError
from tabletop_zoo.envs.registry import GAMES, make_env, make_parallel_env, make_raw_env


def _fast(env):
    """Human mode waits 1 / render_fps per frame: speed it up for the tests."""
    env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}
    return env


def _random_action(env, rng: random.Random) -> int | None:
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return None
    return rng.choice(np.flatnonzero(obs["action_mask"]).tolist())


# ---------------------------------------------------------------- PettingZoo's own tests
def test_pettingzoo_api_test(game_case) -> None:
    spec, n = game_case
    api_test(make_env(spec.name, n), num_cycles=60)
    api_test(make_raw_env(spec.name, n, reward_mode="score", max_turns=5), num_cycles=30)


def test_pettingzoo_seed_test(game_case) -> None:
    spec, n = game_case
    seed_test(lambda: make_env(spec.name, n), num_cycles=60)


@pytest.mark.slow
def test_pettingzoo_render_test(game_case) -> None:
    spec, n = game_case
    svg = {"svg": lambda picture: spec.svg is None or picture.startswith("<svg")}
    render_test(lambda **kw: _fast(make_env(spec.name, n, **kw)), custom_tests=svg)


def test_registered_ids_make_the_env(game_case) -> None:
    spec, n = game_case
    register_all()
    assert spec.gymnasium_id in gymnasium.registry
    if not hasattr(pettingzoo, "aec_registry"):  # PettingZoo before 1.27: no registry
        assert not hasattr(pettingzoo, "make")
        return
    for kind in ("aec", "parallel"):
        env = pettingzoo.make(kind, spec.pettingzoo_id, num_players=n)
        env.reset(seed=0)
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        assert isinstance(env, pettingzoo.AECEnv if kind == "aec" else pettingzoo.ParallelEnv)


# ---------------------------------------------------------------- composition
def test_engine_encoder_and_state_are_public(game_case) -> None:
    spec, n = game_case
    raw = make_raw_env(spec.name, n)
    raw.reset(seed=0)
    assert raw.engine.num_players == n and raw.engine.num_actions == raw.num_actions
    encoder = spec.make_observation_encoder(raw.engine)
    assert tuple(encoder.shape) == raw.observation_space("player_0")["observation"].shape
    assert len(encoder.plane_names()) == encoder.shape[-1]
    assert np.array_equal(encoder.encode(raw.game_state, 0), raw.state())
    assert raw.state_space.contains(raw.state())


# ---------------------------------------------------------------- random play
def test_masks_equal_legal_actions_and_observations_fit(game_case) -> None:
    spec, n = game_case
    env = make_env(spec.name, n)
    rng = random.Random(n)
    for episode in range(3):
        env.reset(seed=episode)
        for agent in env.agent_iter(max_iter=2000):
            obs, _, term, trunc, info = env.last()
            space = env.observation_space(agent)
            assert space.contains(obs)
            state = env.unwrapped.game_state
            if term or trunc:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            assert agent == f"player_{state.current_player}"
            assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()
            assert info["scores"] == list(state.scores())
            env.step(_random_action(env, rng))
        assert env.agents == []


def test_rewards_come_at_the_end_and_sum_as_returns(game_case) -> None:
    spec, n = game_case
    env = make_raw_env(spec.name, n)
    rng = random.Random(7)
    env.reset(seed=3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    while not (all(env.terminations.values()) or all(env.truncations.values())):
        env.step(_random_action(env, rng))
        for agent, reward in env.rewards.items():
            total[agent] += reward
    state = env.game_state
    if state.is_terminal():
        assert [total[a] for a in env.possible_agents] == state.returns()


def test_max_turns_truncates_everyone_together(game_case) -> None:
    spec, n = game_case
    env = make_raw_env(spec.name, n, max_turns=2)
    rng = random.Random(0)
    env.reset(seed=0)
    for _ in range(200):
        if all(env.truncations.values()) or all(env.terminations.values()):
            break
        env.step(_random_action(env, rng))
    assert all(env.truncations.values()) or all(env.terminations.values())
    assert set(env.truncations.values()) in ({True}, {False})


# ---------------------------------------------------------------- illegal actions
def test_raw_env_raises_on_illegal_action_and_changes_nothing(game_case) -> None:
    spec, n = game_case
    env = make_raw_env(spec.name, n)
    env.reset(seed=1)
    agent = env.agent_selection
    legal = set(env.game_state.legal_actions())
    illegal = next(a for a in range(env.num_actions) if a not in legal)
    before = (env.game_state.to_json(), env.observe(agent), dict(env.rewards))
    for action in (illegal, -1, env.num_actions, True, 1.5, "0"):
        with pytest.raises(IllegalActionError):
            env.step(action)
        after = (env.game_state.to_json(), env.observe(agent), dict(env.rewards))
        assert after[0] == before[0] and after[2] == before[2]
        assert all(np.array_equal(after[1][k], before[1][k]) for k in before[1])
        assert env.agent_selection == agent and not any(env.terminations.values())


def test_wrapped_env_gives_minus_one_to_the_offender(game_case) -> None:
    spec, n = game_case
    env = make_env(spec.name, n)
    env.reset(seed=1)
    offender = env.agent_selection
    legal = set(env.unwrapped.game_state.legal_actions())
    env.step(next(a for a in range(env.unwrapped.num_actions) if a not in legal))
    assert all(env.terminations.values()) or all(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        _, reward, _, _, _ = env.last()
        seen[agent] = reward
        env.step(None)
    assert seen[offender] == -1.0
    assert all(reward == 0 for agent, reward in seen.items() if agent != offender)


def test_dead_agents_step_with_none_only(game_case) -> None:
    spec, n = game_case
    env = make_raw_env(spec.name, n)
    rng = random.Random(2)
    env.reset(seed=2)
    while not (all(env.terminations.values()) or all(env.truncations.values())):
        env.step(_random_action(env, rng))
    with pytest.raises(UsageError, match="None"):
        env.step(0)
    while env.agents:
        env.step(None)


# ---------------------------------------------------------------- options
@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"reward_mode": "points"},
        {"render_mode": "video"},
        {"max_turns": 0},
        {"max_turns": True},
        {"max_turns": 2.5},
    ],
    ids=[
        "unknown",
        "reward_mode",
        "render_mode",
        "max_turns0",
        "max_turns_bool",
        "max_turns_float",
    ],
)
def test_bad_options_raise_invalid_option_error(game_case, options) -> None:
    spec, n = game_case
    with pytest.raises(InvalidOptionError):
        make_raw_env(spec.name, n, **options)
    for make in (make_env, make_parallel_env):
        with pytest.raises(InvalidOptionError):
            make(spec.name, n, **options)


def test_bad_player_counts_raise_invalid_option_error(game_case) -> None:
    spec, _ = game_case
    for count in (1, max(spec.players) + 1, True, 2.0):
        with pytest.raises(InvalidOptionError):
            make_raw_env(spec.name, count)


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_import_loads_neither_torch_nor_pygame(spec) -> None:
    code = (
        f"import sys, importlib; importlib.import_module({spec.env_module!r}); "
        "print('torch' in sys.modules, 'pygame' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
