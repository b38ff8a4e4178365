"""Greedy and MCTS on the fast path (compiled engine through ``registry.fast_state``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.search import MCTSAgent
from tabletop_zoo.envs import registry
from tabletop_zoo.envs.registry import GAMES, fast_state, new_game

pytestmark = pytest.mark.skipif(
    not registry.fast_path_available(), reason="the 'fast' extra (numba) is missing"
)
CONFIGS = [(spec.name, n) for spec in GAMES.values() if spec.fast_engine for n in spec.players]


def _midgame(game: str, players: int, plies: int, seed: int = 0):
    state = new_game(game, players).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_fast_state_is_the_same_position(game: str, players: int) -> None:
    state = _midgame(game, players, 9)
    compiled = fast_state(state)
    assert compiled.legal_actions() == state.legal_actions()
    assert compiled.scores() == state.scores()
    assert compiled.to_json() == state.to_json()
    assert compiled.game is state.game


def test_no_fast_state_without_numba(monkeypatch) -> None:
    monkeypatch.setattr(registry, "fast_path_available", lambda: False)
    assert registry.fast_state(_midgame(*CONFIGS[0], 3)) is None


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_compiled_rollouts_have_the_python_distribution(game: str, players: int) -> None:
    """Mean returns of random playouts from one position: compiled vs Python engine."""
    state = _midgame(game, players, 4)
    compiled = fast_state(state)
    compiled.seed(1)
    rng = random.Random(1)
    runs = 600
    fast_mean = np.zeros(players)
    python_mean = np.zeros(players)
    for _ in range(runs):
        fast_mean += compiled.clone().rollout()
        sim = state.clone()
        while not sim.is_terminal():
            sim.apply_action(rng.choice(sim.legal_actions()))
        python_mean += sim.returns()
    # returns lie in [-1, 1]: the standard error of each mean is below 1 / sqrt(600) = 0.041
    assert np.all(np.abs(fast_mean - python_mean) / runs < 0.15), (fast_mean, python_mean)


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_mcts_on_the_fast_path_searches_without_touching_the_state(game: str, players: int) -> None:
    state = _midgame(game, players, 6)
    before = state.to_json()
    agent = MCTSAgent(60, seed=3)
    root = agent.search(state)
    assert state.to_json() == before
    assert root.visits == 60
    assert sum(child.visits for child in root.children.values()) == 60
    assert set(root.children) <= set(state.legal_actions())
    mask = np.zeros(max(state.legal_actions()) + 1, dtype=bool)
    mask[state.legal_actions()] = True
    assert agent.act(None, mask, state) in state.legal_actions()
    first, second = MCTSAgent(60, seed=3), MCTSAgent(60, seed=3)
    assert first.act(None, mask, state) == second.act(None, mask, state)  # seeded
