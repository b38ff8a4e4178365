"""Greedy and MCTS on the fast path (compiled engine through ``registry.fast_state``): the
same moves as on the Python engines, drawn from the same generator."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.search import GreedyAgent, MCTSAgent
from tabletop_zoo.envs import registry
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES, fast_state, new_game

pytestmark = pytest.mark.skipif(
    not registry.fast_path_available(), reason="the 'fast' extra (numba) is missing"
)
if registry.fast_path_available():
    from tabletop_zoo.envs.compiled.random_stream import PythonStream, matches_python, next_word
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
@pytest.mark.parametrize("depth", [None, 7])
def test_compiled_rollouts_play_the_python_rollouts(game: str, players: int, depth) -> None:
    """A compiled rollout drawing from a generator's state gives the value the Python
    engine's rollout gives with that generator, and leaves the generator where it does."""
    state = _midgame(game, players, 4)
    compiled = fast_state(state)
    python_agent = MCTSAgent(seed=1, max_rollout_depth=depth, fast=False)
    drawn = random.Random(1)
    for _ in range(30):
        stream = PythonStream(drawn)
        fast_value = compiled.clone().rollout(stream.words, depth)
        stream.store()
        assert fast_value == python_agent._rollout(state.clone())
        assert drawn.getstate() == python_agent._rng.getstate()


def _positions(game: str, players: int, count: int) -> list:
    """Seeded positions from the first decision to late in the game (not over)."""
    rng = random.Random(f"{game}{players}")
    found = []
    while len(found) < count:
        state = new_game(game, players).new_initial_state(len(found))
        for _ in range(rng.randrange(0, 90)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "players"),
    [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
def test_fast_and_python_search_choose_the_same_moves(game: str, players: int) -> None:
    """Greedy and MCTS (full rollouts and cut ones) pick the same moves with the same
    seed on both engines, search the same trees and leave their generators alike."""
    for i, state in enumerate(_positions(game, players, 6)):
        mask = np.zeros(state.game.num_actions, dtype=bool)
        mask[state.legal_actions()] = True
        seen = {}
        for fast in (True, False):
            agents = [
                GreedyAgent(seed=i, fast=fast),
                MCTSAgent(25, seed=i, fast=fast),
                MCTSAgent(25, seed=i, fast=fast, max_rollout_depth=4),
            ]
            moves = [agent.act(None, mask, state) for agent in agents for _ in range(2)]
            root = agents[1].search(state)
            tree = sorted(
                (a, c.visits, tuple(c.value), c.outcome) for a, c in root.children.items()
            )
            seen[fast] = (moves, tree, [agent._rng.getstate() for agent in agents])
        assert seen[True] == seen[False], (game, players, i)


def test_the_compiled_stream_is_pythons_random() -> None:
    assert matches_python()
    python, copied = random.Random(5), random.Random(5)
    stream = PythonStream(copied)
    values = list(range(40))
    stream.shuffle(values)
    words = [next_word(stream.words) for _ in range(700)]  # past one refill of the state
    stream.store()
    expected = list(range(40))
    python.shuffle(expected)
    assert values == expected
    assert words == [python.getrandbits(32) for _ in range(700)]
    assert copied.getstate() == python.getstate()


def test_the_switch_turns_the_fast_path_off(monkeypatch) -> None:
    state = _midgame(*CONFIGS[0], 3)
    monkeypatch.setenv(registry.FAST_SWITCH, "0")
    assert not registry.fast_path_available()
    assert registry.fast_state(state) is None
    monkeypatch.setenv(registry.FAST_SWITCH, "1")
    assert registry.fast_state(state) is not None
    monkeypatch.setenv(registry.FAST_SWITCH, "yes")
    with pytest.raises(InvalidOptionError, match="TABLETOP_ZOO_FAST must be 0"):
        registry.fast_path_available()


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_mcts_on_the_fast_path_searches_without_touching_the_state(game: str, players: int) -> None:
    state = _midgame(game, players, 6)
    before = state.to_json()
    agent = MCTSAgent(60, seed=3)
    root = agent.search(state)
    assert state.to_json() == before
    assert root.visits == 60 or root.outcome is not None  # a proven root stops early
    assert sum(child.visits for child in root.children.values()) == root.visits
    assert set(root.children) <= set(state.legal_actions())
    mask = np.zeros(max(state.legal_actions()) + 1, dtype=bool)
    mask[state.legal_actions()] = True
    assert agent.act(None, mask, state) in state.legal_actions()
    first, second = MCTSAgent(60, seed=3), MCTSAgent(60, seed=3)
    assert first.act(None, mask, state) == second.act(None, mask, state)  # seeded


def _position_with(game: str, players: int, wanted: float) -> tuple:
    """The first position of seeded random games where some move ends the game with the
    result ``wanted`` for the mover (and, for a loss, some other move does not), with
    those moves."""
    for seed in range(50):
        rng = random.Random(seed)
        state = new_game(game, players).new_initial_state(seed)
        while not state.is_terminal():
            results = {}
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                results[action] = (
                    child.returns()[state.current_player] if child.is_terminal() else None
                )
            hits = [a for a, r in results.items() if r == wanted]
            if hits and (wanted > 0 or any(r != wanted for r in results.values())):
                return state, hits
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError(f"no position with a move of result {wanted} found")


@pytest.mark.parametrize(
    ("game", "players"),
    [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
def test_the_solver_proves_a_win_in_one_and_avoids_a_loss_in_one_on_both_paths(
    game: str, players: int
) -> None:
    """A move that wins at once is proven, proves the root and is played; a move that
    loses at once is proven lost and not played while the root is not lost; the same
    trees on the compiled and the Python engine."""
    for wanted in (1.0, -1.0):
        state, moves = _position_with(game, players, wanted)
        player = state.current_player
        mask = np.zeros(state.game.num_actions, dtype=bool)
        mask[state.legal_actions()] = True
        simulations = 2 * len(state.legal_actions())  # every root move gets expanded
        seen = {}
        for fast in (True, False):
            root = MCTSAgent(simulations, seed=7, fast=fast).search(state)
            chosen = MCTSAgent(simulations, seed=7, fast=fast).act(None, mask, state)
            assert chosen == root.best_action()
            for move in moves:
                assert root.children[move].outcome[player] == wanted
            if wanted > 0:
                assert root.outcome[player] == 1.0 and chosen in moves
                assert root.visits < simulations  # stopped once proven
            elif root.outcome is None or root.outcome[player] > -1.0:
                assert chosen not in moves
            seen[fast] = (chosen, root.visits, root.outcome)
        assert seen[True] == seen[False], (game, players, wanted)


@pytest.mark.parametrize(("game", "players"), CONFIGS[:2])
def test_the_fast_path_searches_in_compiled_code_from_python_or_compiled_states(
    game: str, players: int, monkeypatch
) -> None:
    """On the fast path the whole search runs in compiled code (the Python simulation loop
    is never entered), from a Python state or a compiled one-row state alike."""
    state = _midgame(game, players, 5)
    mask = np.zeros(state.game.num_actions, dtype=bool)
    mask[state.legal_actions()] = True
    expected = MCTSAgent(40, seed=2, fast=False).act(None, mask, state)

    def refuse(*args, **kwargs):
        raise AssertionError("the Python simulation loop ran on the fast path")

    monkeypatch.setattr(MCTSAgent, "_simulate", refuse)
    compiled = fast_state(state)
    before = compiled.row.copy()
    assert MCTSAgent(40, seed=2).act(None, mask, state) == expected
    assert MCTSAgent(40, seed=2).act(None, mask, compiled) == expected
    assert (compiled.row == before).all()  # the given row is not changed
