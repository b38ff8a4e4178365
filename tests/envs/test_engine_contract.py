"""What every rules engine must do (``tabletop_zoo.envs.protocol``), for every game of
``GAMES`` and every player count, plus the Nim toy added through ``registry.extended``.

Rulings and planes are tested per game; this file holds only the shared contract.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    NotationError,
    TabletopZooError,
)
from tabletop_zoo.envs.protocol import EngineGame, EngineState
from tabletop_zoo.envs.registry import new_game
from tests.envs.contract_cases import random_play


def test_game_and_state_follow_the_protocol(game_case) -> None:
    spec, n = game_case
    game = new_game(spec.name, n)
    assert isinstance(game, EngineGame)
    assert game.num_players == n and game.num_actions > 0
    state = game.new_initial_state(0)
    assert isinstance(state, EngineState)
    assert state.current_player == 0 and not state.is_terminal()
    assert state.returns() == [0.0] * n and len(state.scores()) == n


def test_num_players_is_the_first_keyword_and_checked(game_case) -> None:
    spec, n = game_case
    assert spec.game_class()(num_players=n).num_players == n
    for bad in (1, 5, True, 2.0, "2"):
        with pytest.raises(InvalidOptionError):
            spec.game_class()(num_players=bad)


@pytest.mark.slow
def test_random_games_keep_every_engine_invariant(game_case) -> None:
    spec, n = game_case
    rng = random.Random(1234 + n)
    game = new_game(spec.name, n)
    for _ in range(3):
        for state in random_play(game.new_initial_state(rng.getrandbits(32)), rng):
            legal = state.legal_actions()
            if state.is_terminal():
                assert legal == [] and state.current_player == -1
                assert set(state.returns()) <= {-1.0, 0.0, 1.0}
                break
            assert legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < game.num_actions
            assert 0 <= state.current_player < n
            assert state.returns() == [0.0] * n
            # JSON round trip: the same position, the same legal actions
            copy_ = type(state).from_json(state.to_json())
            assert copy_ == state and copy_.legal_actions() == legal
            assert str(copy_) == str(state)
            # notation round trip for every legal action
            for action in legal:
                assert state.string_to_action(state.action_to_string(action)) == action
            # clones are independent of the original
            saved = state.to_json()
            clone = state.clone()
            assert clone == state
            clone.apply_action(legal[-1])
            assert state.to_json() == saved and state.legal_actions() == legal
            assert clone != state


def test_illegal_actions_raise_and_change_nothing(game_case) -> None:
    spec, n = game_case
    state = new_game(spec.name, n).new_initial_state(0)
    legal = set(state.legal_actions())
    before = state.to_json()
    illegal = next(a for a in range(state.game.num_actions) if a not in legal)
    for action in (illegal, -1, state.game.num_actions, True, False, 1.0, "0", None, 2**70):
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
        assert state.to_json() == before


def test_notation_rejects_what_is_not_a_move(game_case) -> None:
    spec, n = game_case
    state = new_game(spec.name, n).new_initial_state(0)
    for text in ("", "   ", "??", "9" * 5000, None, 3, b"e4"):
        with pytest.raises(TabletopZooError):
            state.string_to_action(text)
    for action in (True, -1, state.game.num_actions, 1.5, "3"):
        with pytest.raises(TabletopZooError):
            state.action_to_string(action)


def test_from_json_refuses_garbage_with_invalid_state_error(game_case) -> None:
    spec, n = game_case
    cls = type(new_game(spec.name, n).new_initial_state(0))
    for text in ("", "{", "[]", "null", "[" * 5000 + "]" * 5000, '{"a": 1}', 7, None):
        with pytest.raises(InvalidStateError):
            cls.from_json(text)


def test_states_pickle_and_copy_under_every_protocol(game_case) -> None:
    spec, n = game_case
    rng = random.Random(5)
    state = new_game(spec.name, n).new_initial_state(3)
    for _ in range(7):
        if not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(state, protocol=protocol))
        assert again == state and again.legal_actions() == state.legal_actions()
    deep = copy.deepcopy(state)
    assert deep == state
    if not deep.is_terminal():
        deep.apply_action(deep.legal_actions()[0])
        assert deep != state


def test_errors_are_value_errors_of_our_types() -> None:
    for cls in (IllegalActionError, InvalidStateError, NotationError, InvalidOptionError):
        assert issubclass(cls, TabletopZooError) and issubclass(cls, ValueError)


def test_a_saved_state_of_another_game_is_named_as_such() -> None:
    """Loading game A's JSON into game B's State says it is an A state (the header
    is checked before the keys), instead of listing B's missing keys."""
    from tabletop_zoo.envs.registry import GAMES

    saved = {name: new_game(name).new_initial_state(0).to_json() for name in GAMES}
    for loader in GAMES:
        state_class = type(new_game(loader).new_initial_state(0))
        for other, text in saved.items():
            if other == loader:
                continue
            with pytest.raises(InvalidStateError, match=f"saved '{other}' state, not a '{loader}'"):
                state_class.from_json(text)
