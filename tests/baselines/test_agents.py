"""Baseline agents on a toy Nim engine that follows the rules-engine protocol."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from tabletop_zoo.baselines import (
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    make_agent,
)
from tabletop_zoo.baselines.agents import Agent
from tabletop_zoo.baselines.agents.search import _Node
from tabletop_zoo.envs.results import win_returns
from tests.baselines.nim_toy import NimGame, NimState


def mask_of(state: NimState) -> np.ndarray:
    mask = np.zeros(state.game.num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return mask


def position(piles, taken, player, **game_kwargs) -> NimState:
    """A hand-built Nim position (``game_kwargs`` go to NimGame)."""
    game = NimGame(piles=tuple(piles), num_players=len(taken), **game_kwargs)
    return NimState(game, list(piles), list(taken), player, -1)


def act(agent, state: NimState) -> int:
    return agent.act(np.zeros(1, np.float32), mask_of(state), state)


# ---------------------------------------------------------------- helpers / interface
def test_win_returns_sole_tied_and_others() -> None:
    assert win_returns([3, 1]) == [1.0, -1.0]
    assert win_returns([2, 5, 5, 0]) == [-1.0, 0.0, 0.0, -1.0]
    assert win_returns([4, 4, 4]) == [0.0, 0.0, 0.0]


def test_all_agents_follow_the_agent_protocol() -> None:
    for agent in (RandomAgent(), GreedyAgent(), MCTSAgent()):
        assert isinstance(agent, Agent)
        assert isinstance(agent.name, str) and agent.name


def test_make_agent_specs() -> None:
    assert isinstance(make_agent("random", seed=1), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    default = make_agent("mcts")
    assert isinstance(default, MCTSAgent) and default.n_simulations == 200
    assert make_agent("mcts:37").n_simulations == 37


@pytest.mark.parametrize("spec", ["", "alphazero", "mcts:", "mcts:0", "mcts:x", "random:3", "ppo:"])
def test_make_agent_bad_spec_lists_allowed_forms(spec: str) -> None:
    with pytest.raises(ValueError, match="allowed: 'random', 'greedy', 'mcts', 'mcts:N'"):
        make_agent(spec)


def test_make_agent_ppo_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ValueError, match="no saved MaskablePPO model"):
        make_agent(f"ppo:{tmp_path / 'nope.zip'}")


def test_importing_baselines_does_not_import_torch() -> None:
    code = (
        "import sys, tabletop_zoo.baselines, tabletop_zoo.baselines.evaluation, "
        "tabletop_zoo.baselines.training, tabletop_zoo.wrappers.single_agent\n"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_agents_reject_an_empty_mask() -> None:
    state = position([0, 1], [0, 0], 0, max_take=1)
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent().act(np.zeros(1), np.zeros(2, np.int8), state)


# --------------------------------------------------------------------------- random
def test_random_agent_is_uniform_over_the_mask_only() -> None:
    mask = np.array([0, 1, 0, 1, 1, 0], dtype=np.int8)
    agent = RandomAgent(seed=5)
    counts = Counter(agent.act(np.zeros(1), mask, None) for _ in range(3000))
    assert set(counts) == {1, 3, 4}
    assert all(900 < c < 1100 for c in counts.values())  # 1000 expected each


def test_random_agent_is_reproducible_by_seed_and_reset() -> None:
    mask = np.ones(50, dtype=np.int8)
    a, b = RandomAgent(seed=3), RandomAgent(seed=3)
    seq_a = [a.act(np.zeros(1), mask, None) for _ in range(20)]
    assert seq_a == [b.act(np.zeros(1), mask, None) for _ in range(20)]
    a.reset(seed=3)
    assert [a.act(np.zeros(1), mask, None) for _ in range(20)] == seq_a


# --------------------------------------------------------------------------- greedy
def test_greedy_takes_the_best_immediate_margin() -> None:
    # Piles 1 and 3, take up to 3: taking all 3 from pile 1 (action 1*3+2 = 5) gains most.
    state = position([1, 3], [0, 0], 0, max_take=3)
    assert act(GreedyAgent(seed=0), state) == 5


def test_greedy_margin_is_against_the_best_other_seat() -> None:
    # Seat 1 to move, 3 players with taken [4, 0, 6]; piles (2, 5), take up to 2.
    # Every move leaves seat 1 behind seat 2 (6); the margin is own - 6, so the best
    # moves take 2 (actions 1 = 2 from pile 0, 3 = 2 from pile 1), never 1.
    state = position([2, 5], [4, 0, 6], 1, max_take=2)
    picks = {act(GreedyAgent(seed=s), state) for s in range(30)}
    assert picks == {1, 3}


def test_greedy_tie_break_is_seeded() -> None:
    state = position([2, 5], [0, 0], 0, max_take=2)
    assert [act(GreedyAgent(seed=9), state) for _ in range(5)] == [
        act(GreedyAgent(seed=9), state) for _ in range(5)
    ]


def test_greedy_ranks_a_final_result_above_any_margin() -> None:
    # "score" rule (most objects taken wins): seat 0 trails 0-5, one pile of 3, take
    # up to 3. Taking 3 has the best margin (3-5) but ends the game as a loss; taking
    # 2 (margin 2-5) keeps the game alive, and a live game ranks above a lost one.
    state = position([0, 3], [0, 5], 0, max_take=3, win_rule="score")
    assert act(GreedyAgent(seed=0), state) == 4  # pile 1 * max_take 3 + (2 - 1)


def test_greedy_does_not_mutate_the_state() -> None:
    state = position([3, 4, 5], [0, 0], 0, max_take=5)
    before = state.to_json()
    act(GreedyAgent(seed=0), state)
    assert state.to_json() == before


# ----------------------------------------------------------------------------- mcts
def test_mcts_finds_the_unique_winning_nim_move() -> None:
    # Piles 1, 2, 4 (nim-sum 7): the only winning move takes 1 from the pile of 4,
    # leaving 1, 2, 3 (nim-sum 0). Action = pile 2 * max_take 4 + (1 - 1) = 8.
    state = NimGame(piles=(1, 2, 4), max_take=4).new_initial_state()
    for seed in range(3):
        assert act(MCTSAgent(n_simulations=2000, seed=seed), state) == 8


def test_mcts_consecutive_decisions_are_chosen_by_the_seat_to_act() -> None:
    # Piles 2, 2; emptying a pile gives another move. Taking 2 (actions 1 or 3) lets
    # seat 0 move again and take the last 2: a win. Taking 1 lets seat 1 empty the
    # single-object pile, move again and win.
    state = NimGame(piles=(2, 2), max_take=2, bonus_on_empty=True).new_initial_state()
    for seed in range(5):
        assert act(MCTSAgent(n_simulations=300, seed=seed), state) in (1, 3)


@pytest.mark.parametrize("num_players, player", [(3, 2), (4, 1), (4, 3)])
def test_mcts_backs_up_each_seats_own_return(num_players: int, player: int) -> None:
    # Pile of 2, take up to 2: taking both (action 1) wins now; taking 1 hands the
    # last object, and the win, to the next seat.
    state = position([2], [0] * num_players, player, max_take=2)
    for seed in range(3):
        assert act(MCTSAgent(n_simulations=60, seed=seed), state) == 1


@pytest.mark.parametrize(
    "depth, expected",
    # One simulation: the root move is expanded, then a rollout of at most ``depth``
    # moves. Pile of 5, take exactly 1: the game is forced, seat 0 takes the last
    # object and wins (+1). Seat 1 has already taken 3: cut off after the root move
    # and d more moves, seat 0 trails (1-3, 1-4, 2-4, 2-5) and is valued as losing.
    [(None, [1.0, -1.0]), (0, [-1.0, 1.0]), (3, [-1.0, 1.0]), (4, [1.0, -1.0])],
)
def test_mcts_max_rollout_depth_values_position_by_current_scores(depth, expected) -> None:
    state = position([5], [0, 3], 0, max_take=1)
    root = MCTSAgent(n_simulations=1, max_rollout_depth=depth, seed=0).search(state)
    assert root.children[0].value == expected


def test_mcts_proves_and_plays_a_win_in_one() -> None:
    # Pile of 3, take up to 3, the last taker wins: taking 3 (action 2) wins at once. The
    # solver proves the root when it expands that move and stops searching.
    state = position([3], [0, 0], 0, max_take=3)
    for seed in range(5):
        agent = MCTSAgent(n_simulations=500, seed=seed)
        root = agent.search(state)
        assert root.outcome == [1.0, -1.0]
        assert root.children[2].outcome == [1.0, -1.0]
        assert root.visits < 500  # stopped once proven
        assert root.best_action() == 2
        assert act(MCTSAgent(n_simulations=500, seed=seed), state) == 2


def test_mcts_avoids_a_proven_loss_even_when_it_is_the_most_visited() -> None:
    # "score" rule, seat 0 trails 0-5, pile of 3, take up to 3. Taking 3 (action 2) ends
    # the game lost at once: a proven loss, never chosen while another move is unproven
    # (3 simulations expand the 3 moves once each). Taking 1 or 2 loses too against best
    # play, so 200 simulations prove the root lost.
    state = position([0, 3], [0, 5], 0, max_take=3, win_rule="score")
    for seed in range(10):
        root = MCTSAgent(n_simulations=3, seed=seed).search(state)
        assert root.children[5].outcome == [-1.0, 1.0]
        assert root.children[3].outcome is None and root.children[4].outcome is None
        assert root.best_action() != 5
    proven = MCTSAgent(n_simulations=200, seed=0).search(state)
    assert proven.outcome == [-1.0, 1.0]


def test_mcts_best_action_ranks_proven_results_then_visits_then_value() -> None:
    root = _Node(0, [], 2)
    for action, visits, value, outcome in [
        (0, 9, 5.0, [-1.0, 1.0]),  # most visited but a proven loss: last
        (1, 4, 1.0, None),
        (2, 4, 3.0, None),  # same visits as 1, higher summed return
        (3, 1, 0.0, [0.0, 0.0]),  # a proven draw counts as an unproven 0
    ]:
        child = root.children[action] = _Node(1, [], 2)
        child.visits, child.value, child.outcome = visits, [value, -value], outcome
    assert root.best_action() == 2
    root.children[4] = _Node(-1, [], 2)
    root.children[4].visits, root.children[4].outcome = 1, [1.0, -1.0]
    assert root.best_action() == 4  # a proven win beats everything
    assert root.prove() and root.outcome == [1.0, -1.0]


def test_mcts_without_solve_proves_nothing() -> None:
    state = position([3], [0, 0], 0, max_take=3)
    root = MCTSAgent(n_simulations=200, seed=0, solve=False).search(state)
    assert root.visits == 200
    assert root.outcome is None and all(c.outcome is None for c in root.children.values())
    assert root.best_action() == 2


def test_mcts_does_not_mutate_the_state_and_is_seeded() -> None:
    state = NimGame(piles=(3, 4, 5), max_take=5).new_initial_state()
    before = state.to_json()
    first = act(MCTSAgent(n_simulations=150, seed=4), state)
    assert state.to_json() == before
    assert act(MCTSAgent(n_simulations=150, seed=4), state) == first


@pytest.mark.parametrize(
    "kwargs", [{"n_simulations": 0}, {"exploration": -1.0}, {"max_rollout_depth": -2}]
)
def test_mcts_bad_options_raise(kwargs) -> None:
    with pytest.raises(ValueError):
        MCTSAgent(**kwargs)


def test_ppo_agent_is_exported_lazily() -> None:
    import tabletop_zoo.baselines as baselines
    from tabletop_zoo.baselines.agents.ppo import PPOAgent

    assert baselines.PPOAgent is PPOAgent
    with pytest.raises(AttributeError):
        _ = baselines.NoSuchAgent


def test_absolute_spec_makes_model_paths_absolute_and_leaves_the_rest(
    tmp_path, monkeypatch
) -> None:
    from tabletop_zoo.baselines.agents import absolute_spec

    monkeypatch.chdir(tmp_path)
    here = str(tmp_path)
    assert absolute_spec("ppo:runs/x/final_model.zip") == f"ppo:{here}/runs/x/final_model.zip"
    assert absolute_spec("az:net.npz:400") == f"az:{here}/net.npz:400"
    assert absolute_spec("az:net.npz") == f"az:{here}/net.npz"
    assert absolute_spec("rllib:runs/rllib/checkpoint#seat_1") == (
        f"rllib:{here}/runs/rllib/checkpoint#seat_1"
    )
    assert absolute_spec("rllib:/already/absolute") == "rllib:/already/absolute"
    for unchanged in ("random", "greedy", "mcts:50", "ref:some-model", "human", "ppo:"):
        assert absolute_spec(unchanged) == unchanged
