"""Turn order as the env cards state it (docs/envs/*.md, "Turn order and transitions"):
turns do not strictly alternate, and transitions built per agent chain each agent's own
observations, ending with its final reward."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.envs.registry import GAMES, make_env

CASES = [(spec.name, n) for spec in GAMES.values() for n in spec.players]


def per_agent_transitions(env, seed: int) -> tuple[list[tuple], int]:
    """A random game's transitions built per agent, as the card's example builds them, and
    how often an agent acted twice in a row."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    pending, transitions, twice, previous = {}, [], 0, None
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _info = env.last()
        done = termination or truncation
        if agent in pending:
            observation, action = pending.pop(agent)
            transitions.append((agent, observation, action, reward, obs, done))
        if done:
            env.step(None)
            continue
        twice += agent == previous
        previous = agent
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        pending[agent] = (obs, action)
        env.step(action)
    return transitions, twice


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_per_agent_transitions_chain_each_agents_own_observations(game, players) -> None:
    env = make_env(game, players)
    transitions, _ = per_agent_transitions(env, seed=0)
    for agent in env.possible_agents:
        own = [t for t in transitions if t[0] == agent]
        assert own and own[-1][5] and not any(t[5] for t in own[:-1])
        for before, after in zip(own, own[1:], strict=False):
            assert before[4] is after[1]  # the next observation is the agent's own next one
            assert before[3] == 0  # rewards come at the end
        assert own[-1][4]["action_mask"].sum() == 0  # the final observation: nothing to do
    final = sorted(t[3] for t in transitions if t[5])
    assert len(final) == players and final[-1] > final[0]  # a result, not all zeros


def test_mole_hill_turns_do_not_strictly_alternate() -> None:
    """The mole opens each round (M4): some games give one agent two turns in a row."""
    env = make_env("mole_hill", 2)
    twice = [per_agent_transitions(env, seed)[1] for seed in range(5)]
    assert max(twice) == 1 and min(twice) == 0, twice
