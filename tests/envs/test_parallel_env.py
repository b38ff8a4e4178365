"""The parallel face (``<game>_v0.parallel_env``) of every game and player count: PettingZoo's
parallel API test, a plain masked categorical sampling every seat at every step, the waiting
seats' ignored actions, seeding, and bad input."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from tabletop_zoo.envs._parallel import WAITING_ACTION
from tabletop_zoo.envs.errors import IllegalActionError, UsageError
from tabletop_zoo.envs.registry import make_parallel_env


def _play(env, choose, seed: int, max_steps: int = 3000) -> list:
    """Play one game, ``choose(agent, observation, info) -> action`` for every live seat at
    every step; return what each step gave (observations' planes and masks, rewards, flags)."""
    observations, infos = env.reset(seed=seed)
    record = []
    for _ in range(max_steps):
        actions = {a: choose(a, observations[a], infos[a]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        record.append(
            (
                {
                    a: (o["observation"].tobytes(), o["action_mask"].tobytes())
                    for a, o in observations.items()
                },
                rewards,
                terminations,
                truncations,
            )
        )
        if not env.agents:
            return record
    raise AssertionError(f"no end within {max_steps} steps")


def test_parallel_api_test(game_case) -> None:
    spec, n = game_case
    parallel_api_test(make_parallel_env(spec.name, n), num_cycles=3000)
    parallel_api_test(make_parallel_env(spec.name, n, max_turns=3), num_cycles=100)


def test_a_masked_categorical_samples_every_seat_at_every_step(game_case) -> None:
    """The sampler of skrl's and TorchRL's masked policies: logits of -inf where the mask is
    0. An all-zero mask would make it fail; the waiting seats' one action has log-prob 0."""
    torch = pytest.importorskip("torch")
    spec, n = game_case
    env = make_parallel_env(spec.name, n)
    generator = torch.Generator().manual_seed(n)
    for seed in range(3):
        observations, infos = env.reset(seed=seed)
        while env.agents:
            state = env.aec_env.game_state
            acting = [a for a in env.agents if infos[a]["acting"]]
            assert acting == [f"player_{state.current_player}"]
            actions = {}
            for agent in env.agents:
                mask = torch.as_tensor(observations[agent]["action_mask"], dtype=torch.bool)
                logits = torch.randn(mask.shape, generator=generator).masked_fill(~mask, -torch.inf)
                policy = torch.distributions.Categorical(logits=logits)
                action = policy.sample()
                actions[agent] = int(action)
                if agent in acting:
                    assert torch.nonzero(mask).flatten().tolist() == state.legal_actions()
                else:
                    assert torch.nonzero(mask).flatten().tolist() == [WAITING_ACTION]
                    assert actions[agent] == WAITING_ACTION and policy.log_prob(action) == 0
            observations, rewards, terminations, truncations, infos = env.step(actions)
        assert all(terminations.values()) or all(truncations.values())
        assert not any(info["acting"] for info in infos.values())
        if state.is_terminal():
            assert [rewards[a] for a in env.possible_agents] == state.returns()


def test_the_waiting_seats_actions_change_nothing_and_seeds_repeat(game_case) -> None:
    spec, n = game_case
    env = make_parallel_env(spec.name, n)
    num_actions = env.action_space("player_0").n

    def play(waiting) -> list:
        rng = random.Random(5)  # the acting seat's choices, the same in every game

        def choose(agent, observation, info):
            if info["acting"]:
                return rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            return waiting(agent)

        return _play(env, choose, seed=11)

    other = random.Random(0)
    games = [
        play(lambda agent: WAITING_ACTION),
        play(lambda agent: other.randrange(num_actions)),  # legal or not: ignored
        play(lambda agent: WAITING_ACTION),
    ]
    assert games[0] == games[1] == games[2]


def test_bad_input_raises_our_errors_and_changes_nothing(game_case) -> None:
    spec, n = game_case
    env = make_parallel_env(spec.name, n)
    with pytest.raises(UsageError, match="reset"):
        env.step({})
    observations, infos = env.reset(seed=1)
    acting = next(a for a in env.agents if infos[a]["acting"])
    legal = set(env.aec_env.game_state.legal_actions())
    illegal = next(a for a in range(env.aec_env.num_actions) if a not in legal)
    before = env.aec_env.game_state.to_json()
    for action in (illegal, -1, 1.5, None):
        with pytest.raises(IllegalActionError):
            env.step({agent: action for agent in env.agents})
    with pytest.raises(UsageError, match=acting):
        env.step({a: WAITING_ACTION for a in env.agents if a != acting})
    assert env.aec_env.game_state.to_json() == before and env.aec_env.agent_selection == acting
    rng = random.Random(1)
    _play(env, lambda a, o, i: rng.choice(np.flatnonzero(o["action_mask"]).tolist()), seed=1)
    with pytest.raises(UsageError, match="over"):
        env.step({a: WAITING_ACTION for a in env.possible_agents})
