"""The PUCT search with its tree as arrays (compiled positions) is the node search step for
step: the same visits, values and priors at the root, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.puct import PUCTNode, PUCTSearch
from tabletop_zoo.envs.registry import GAMES, fast_path_available, fast_state, get_spec, new_game
from tests.baselines.az_networks import small_network

pytestmark = pytest.mark.skipif(not fast_path_available(), reason="needs the 'fast' extra")

CASES = [(name, n) for name in GAMES if get_spec(name).fast_engine for n in get_spec(name).players]


def _net(game: str, players: int, score_weight: float) -> DenseNet:
    """A small random network whose values differ from position to position."""
    config = {"score_weight": score_weight}
    return small_network(game, players, 16, 0.3, value_scale=0.3, seed=players, config=config)


def _positions(game: str, players: int) -> list:
    """Compiled positions from the start, the middle and near the end of a random game
    (where the search meets finished positions)."""
    state = new_game(game, players).new_initial_state(3)
    rng = np.random.default_rng(5)
    seen = []
    while not state.is_terminal():
        seen.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
    picks = [0, len(seen) // 2, len(seen) - 3, len(seen) - 2, len(seen) - 1]
    return [fast_state(seen[i]) for i in picks if i >= 0 and len(seen[i].legal_actions()) > 1]


def _same_root(arrays, nodes: PUCTNode) -> None:
    assert arrays.actions == nodes.actions
    for name in ("priors", "child_visits", "child_values", "value_sum"):
        assert np.array_equal(getattr(arrays, name), getattr(nodes, name)), name
    assert arrays.visits == nodes.visits and arrays.player == nodes.player


@pytest.mark.parametrize(("game", "players"), CASES)
@pytest.mark.parametrize(("batch_size", "score_weight"), [(8, 0.0), (1, 0.3), (5, 0.0)])
def test_the_array_search_is_the_node_search(game, players, batch_size, score_weight) -> None:
    agent = AlphaZeroAgent(_net(game, players, score_weight), num_simulations=60,
                           batch_size=batch_size)  # fmt: skip
    for position in _positions(game, players):
        before = position.row.copy()
        arrays = agent.search.run(position)
        assert type(arrays).__name__ == "ArrayRoot" and np.array_equal(position.row, before)
        _same_root(arrays, agent.search.run_nodes(position))


@pytest.mark.parametrize(("game", "players"), CASES[:2])
def test_an_evaluator_of_states_gets_the_same_search(game, players) -> None:
    """An evaluator without ``evaluate_planes`` (any callable on states) is handed compiled
    states of the new leaves: the same search as the node search, and as the planes path."""
    agent = AlphaZeroAgent(_net(game, players, 0.0), num_simulations=60, batch_size=8)
    seen = []

    def of_states(states):  # noqa: ANN001, ANN202
        seen.extend(type(state).__name__ for state in states)
        return agent.evaluator(states)

    search = PUCTSearch(of_states, 60, batch_size=8)
    for position in _positions(game, players):
        arrays = search.run(position)
        assert type(arrays).__name__ == "ArrayRoot"
        _same_root(arrays, search.run_nodes(position))
        _same_root(arrays, agent.search.run(position))
    assert seen and set(seen) == {type(position).__name__}


@pytest.mark.parametrize(("game", "players"), CASES[:2])
def test_root_noise_is_drawn_the_same(game, players) -> None:
    """Self-play's Dirichlet noise at the root: the same draws, the same search."""
    net = _net(game, players, 0.0)
    position = _positions(game, players)[1]
    searches = [
        PUCTSearch(AlphaZeroAgent(net).evaluator, 40, dirichlet_alpha=0.3, seed=11)
        for _ in range(2)
    ]
    _same_root(searches[0].run(position), searches[1].run_nodes(position))
