"""The one PUCT tree (``agents/tree.py``) searches as the node search of the test oracle
(``puct_nodes.py``), bit for bit, on compiled rows and on rules-engine states, with its
kernels compiled or as written; and self-play's search is the agent's."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent, NetworkEvaluator, game_values
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.puct import PUCTSearch
from tabletop_zoo.baselines.agents.tree import RootView
from tabletop_zoo.baselines.training.alphazero import random_network
from tabletop_zoo.baselines.training.self_play import _SelfPlay, play_self_play_games
from tabletop_zoo.envs.registry import (
    FAST_SWITCH,
    GAMES,
    fast_path_available,
    fast_state,
    get_spec,
    new_game,
)
from tests.baselines.az_networks import self_play_config, small_network
from tests.baselines.puct_nodes import NodeSearch, PUCTNode, evaluate_states, on_states
from tests.envs.nim_game import NimGame

needs_fast = pytest.mark.skipif(not fast_path_available(), reason="needs the 'fast' extra")

CASES = [(name, n) for name in GAMES if get_spec(name).fast_engine for n in get_spec(name).players]


def _net(game: str, players: int, score_weight: float) -> DenseNet:
    """A small random network whose values differ from position to position."""
    config = {"score_weight": score_weight}
    return small_network(game, players, 16, 0.3, value_scale=0.3, seed=players, config=config)


def _positions(game: str, players: int, compiled: bool = True) -> list:
    """Positions from the start, the middle and near the end of a random game (where the
    search meets finished positions), as compiled states or rules-engine states."""
    state = new_game(game, players).new_initial_state(3)
    rng = np.random.default_rng(5)
    seen = []
    while not state.is_terminal():
        seen.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
    picks = [0, len(seen) // 2, len(seen) - 3, len(seen) - 2, len(seen) - 1]
    chosen = [seen[i] for i in picks if i >= 0 and len(seen[i].legal_actions()) > 1]
    return [fast_state(s) for s in chosen] if compiled else chosen


def _same_root(tree, nodes: PUCTNode) -> None:
    assert tree.actions == nodes.actions
    for name in ("priors", "child_visits", "child_values", "value_sum"):
        assert np.array_equal(getattr(tree, name), getattr(nodes, name)), name
    assert tree.visits == nodes.visits and tree.player == nodes.player


@pytest.mark.slow
@needs_fast
@pytest.mark.parametrize(("game", "players"), CASES)
@pytest.mark.parametrize(("batch_size", "score_weight"), [(8, 0.0), (1, 0.3), (5, 0.0)])
def test_the_tree_search_on_compiled_rows_is_the_node_search(
    game, players, batch_size, score_weight
) -> None:
    agent = AlphaZeroAgent(_net(game, players, score_weight), num_simulations=60,
                           batch_size=batch_size)  # fmt: skip
    for position in _positions(game, players):
        before = position.row.copy()
        root = agent.search.run(position)
        assert np.array_equal(position.row, before)
        _same_root(root, NodeSearch(agent.search).run(position))


@pytest.mark.parametrize("fast", ["0", pytest.param("1", marks=needs_fast)])
def test_the_tree_search_on_engine_states_is_the_node_search(monkeypatch, fast) -> None:
    """Rules-engine states, the kernels as written (``TABLETOP_ZOO_FAST=0``) or compiled."""
    monkeypatch.setenv(FAST_SWITCH, fast)
    agent = AlphaZeroAgent(_net("mole_hill", 2, 0.3), num_simulations=24, batch_size=4)
    for position in _positions("mole_hill", 2, compiled=False)[1:3]:
        _same_root(agent.search.run(position), NodeSearch(agent.search).run(position))


@on_states
def _nim_evaluate(states):
    """Uneven priors and values that differ from position to position (3 seats)."""
    priors = [np.linspace(1.0, 2.0, len(s.legal_actions())) for s in states]
    values = [[np.sin(sum(s.piles) + k) for k in range(3)] for s in states]
    return [p / p.sum() for p in priors], np.array(values)


@pytest.mark.parametrize("batch_size", [1, 3, 8])
def test_collisions_and_finished_leaves_are_searched_as_the_node_search(batch_size) -> None:
    """A small game: many descents end on finished positions or on pending leaves."""
    state = NimGame(num_players=3, piles=(3, 2), max_take=2).new_initial_state()
    search = PUCTSearch(_nim_evaluate, 40, batch_size=batch_size)
    _same_root(search.run(state), NodeSearch(search).run(state))
    assert state.piles == [3, 2]


def test_the_gumbel_search_is_the_node_search() -> None:
    state = NimGame(num_players=3, piles=(3, 2, 2), max_take=2).new_initial_state()
    searches = [PUCTSearch(_nim_evaluate, 24, batch_size=3, seed=4) for _ in range(2)]
    root, chosen, improved = searches[0].run_gumbel(state, num_considered=4)
    nodes, node_chosen, node_improved = NodeSearch(searches[1]).run_gumbel(state, 4)
    _same_root(root, nodes)
    assert chosen == node_chosen and np.array_equal(improved, node_improved)


@needs_fast
@pytest.mark.parametrize(("game", "players"), CASES[:2])
def test_an_evaluator_of_states_gets_the_same_search(game, players) -> None:
    """An evaluator of states (:func:`on_states`) is handed compiled states of the new
    leaves: the same search as the node search, and as the network's on planes."""
    agent = AlphaZeroAgent(_net(game, players, 0.0), num_simulations=60, batch_size=8)
    seen = []

    @on_states
    def of_states(states):
        seen.extend(type(state).__name__ for state in states)
        return evaluate_states(agent.evaluator, states)

    search = PUCTSearch(of_states, 60, batch_size=8)
    for position in _positions(game, players):
        root = search.run(position)
        _same_root(root, NodeSearch(search).run(position))
        _same_root(root, NodeSearch(agent.search).run(position))
    assert seen and set(seen) == {type(position).__name__}


@needs_fast
@pytest.mark.parametrize(("game", "players"), CASES[:2])
def test_root_noise_is_drawn_the_same(game, players) -> None:
    """Self-play's Dirichlet noise at the root: the same draws, the same search."""
    net = _net(game, players, 0.0)
    position = _positions(game, players)[1]
    searches = [
        PUCTSearch(AlphaZeroAgent(net).evaluator, 40, dirichlet_alpha=0.3, seed=11)
        for _ in range(2)
    ]
    _same_root(searches[0].run(position), NodeSearch(searches[1]).run(position))


@pytest.mark.parametrize(
    ("game", "fast"),
    [("mole_hill", False), pytest.param("arktia", True, marks=needs_fast)],
)
@pytest.mark.parametrize(("leaves", "gumbel"), [(1, False), (4, False), (1, True), (4, True)])
def test_self_play_searches_as_the_agent(tmp_path, monkeypatch, game, fast, leaves, gumbel):
    """Self-play's first searched move and the agent's search of the same position, with
    the same network, noise (or Gumbel draws) and seed, one leaf per step or four (with
    virtual loss): the same visits, the same policy target, the same move."""
    changes = dict(leaves_per_game=leaves, gumbel=gumbel, gumbel_considered=4, max_moves=60)
    cfg = self_play_config(
        tmp_path,
        game,
        2,
        parallel_games=1,
        num_simulations=12,
        temperature_moves=0,
        score_weight=0.3,
        **changes,
    )
    net, searched = random_network(cfg, seed=2), []
    decide = _SelfPlay.decide

    def spy(run, slot):
        root, halving = RootView(run.trees.forest, slot), run.trees.halving[slot]
        move = root.actions[halving.result()[0]] if gumbel else root.final_move()
        searched.append((root.child_visits.copy(), move))
        decide(run, slot)

    monkeypatch.setattr(_SelfPlay, "decide", spy)
    records, _ = play_self_play_games(net, cfg, 1, np.random.default_rng(7), fast=fast)
    rng = np.random.default_rng(7)
    state = new_game(game, 2).new_initial_state(int(rng.integers(2**31)))
    while len(state.legal_actions()) == 1:  # self-play plays forced moves unsearched
        state.apply_action(state.legal_actions()[0])
    value = lambda s: game_values(s, cfg.score_weight, cfg.score_scale)  # noqa: E731
    settings = (cfg.num_simulations, cfg.c_puct, leaves, cfg.dirichlet_alpha)
    search = PUCTSearch(NetworkEvaluator(net), *settings, terminal_value=value)
    search.rng = rng  # self-play's generator after the game's seed: the noise comes next
    position = fast_state(state) if fast else state
    if gumbel:
        root, chosen, target = search.run_gumbel(position, cfg.gumbel_considered)
        move = root.actions[chosen]
    else:
        root = search.run(position)
        target, move = root.child_visits / root.child_visits.sum(), root.final_move()
    assert np.array_equal(searched[0][0], root.child_visits) and searched[0][1] == move
    assert np.array_equal(records[0][2][root.actions], target)
