"""The terminal human agent: commands, confirmation of stop, the game's help texts."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.agents import Agent
from tabletop_zoo.baselines.agents.human import (
    COMMANDS_HELP,
    GENERIC_NOTATION,
    GENERIC_RULES,
    GameAbandoned,
    HumanAgent,
    game_texts,
    help_module,
)
from tabletop_zoo.envs._display import round_name
from tabletop_zoo.envs.registry import GAMES, extended, new_game
from tests.baselines.nim_toy import NimGame
from tests.envs.nim_game import NIM_SPEC


def _agent(lines: list[str]) -> tuple[HumanAgent, io.StringIO]:
    feed = iter(lines)
    out = io.StringIO()
    return HumanAgent(read=lambda: next(feed, None), output=out), out


def _act(agent: HumanAgent, state) -> int:
    mask = np.zeros(state.game.num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return agent.act(np.zeros(1), mask, state)


def test_human_is_an_agent_and_a_spec() -> None:
    assert isinstance(HumanAgent(), Agent)
    assert isinstance(make_agent("human"), HumanAgent)


def test_commands_then_a_legal_move() -> None:
    # Nim piles (1, 2, 4), take up to 4: "1@0" takes the single object of pile 0 (action 0)
    state = NimGame().new_initial_state()
    agent, out = _agent(["?", "board", "", "9@9", "4@0", "1@0"])
    assert _act(agent, state) == 0
    text = out.getvalue()
    assert "legal moves (7): 1@0 1@1 2@1 1@2 2@2 3@2 4@2" in text
    assert str(state) in text  # 'board'
    assert "not a legal move: '9@9': no such pile or take" in text  # asked again
    assert "not a legal move: illegal action 3; legal: [0, 4, 5," in text  # the engine's reason


@pytest.mark.parametrize("word", ["stop", "quit", "exit", "q", "STOP"])
def test_stop_asks_for_confirmation(word: str) -> None:
    state = NimGame().new_initial_state()
    agent, out = _agent([word, "n", "1@0"])  # no: the game goes on
    assert _act(agent, state) == 0
    assert "stop this game? (y/n)" in out.getvalue()
    agent, out = _agent([word, "y"])
    with pytest.raises(GameAbandoned):
        _act(agent, state)


def test_end_of_input_abandons_without_asking() -> None:
    agent, out = _agent([])
    with pytest.raises(GameAbandoned):
        _act(agent, NimGame().new_initial_state())
    assert "stop this game" not in out.getvalue()


def test_help_and_rules_of_a_game_without_texts_are_generic() -> None:
    state = NimGame().new_initial_state()
    assert game_texts(state) == (GENERIC_NOTATION, GENERIC_RULES)
    agent, out = _agent(["help", "rules", "1@0"])
    _act(agent, state)
    assert GENERIC_NOTATION in out.getvalue() and COMMANDS_HELP in out.getvalue()
    assert GENERIC_RULES in out.getvalue()


def test_a_registered_game_without_help_texts_gets_the_generic_ones() -> None:
    with extended(NIM_SPEC):  # the toy's spec declares help=None
        assert game_texts(NimGame().new_initial_state()) == (GENERIC_NOTATION, GENERIC_RULES)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_ships_its_help_texts(name: str) -> None:
    """The help module of the spec: the notation (with examples that parse) and a
    one-screen summary pointing at the full rulings."""
    spec = GAMES[name]
    texts = spec.help_module()
    assert texts is not None
    state = new_game(name).new_initial_state(seed=0)
    assert game_texts(state) == (texts.NOTATION_HELP, texts.RULES_SUMMARY)
    rules = texts.RULES_SUMMARY.splitlines()
    assert len(rules) <= 24 and max(map(len, rules)) <= 100  # one screen
    assert "docs/rules/" in rules[-1]
    assert max(map(len, texts.NOTATION_HELP.splitlines())) <= 100
    first = state.action_to_string(state.legal_actions()[0])
    assert state.string_to_action(first) == state.legal_actions()[0]
    if hasattr(state, "round"):  # games with rounds name every round the engine can be in
        assert round_name(state, state.round) == texts.ROUND_NAMES[state.round]


def test_round_names() -> None:
    nim = NimGame().new_initial_state()
    assert round_name(nim, 3) == "round 3"  # no help module: the engine's number
    for name in GAMES:
        state = new_game(name).new_initial_state(seed=0)
        if hasattr(state, "round"):
            names = help_module(state).ROUND_NAMES
            assert [round_name(state, r) for r in range(len(names))] == list(names)
