"""Arktia notation: one printer, one parser, round trip for every action; bad notation."""

from __future__ import annotations

import random

import pytest

from tabletop_zoo.envs.arktia import ActionCodec, ArktiaGame, parse_layout
from tabletop_zoo.envs.errors import IllegalActionError, NotationError


@pytest.mark.parametrize("n", [2, 3, 4])
def test_codec_round_trip_for_every_action(n: int) -> None:
    game = ArktiaGame(n)
    codec = game.codec
    N = game.num_tiles
    assert codec.num_actions == 3 * N + 3 * N * N + N + N + 1
    seen = set()
    for a in range(codec.num_actions):
        text = codec.to_string(a)
        assert codec.parse(text) == a
        seen.add(text)
    assert len(seen) == codec.num_actions


def test_encoding_blocks_and_decode() -> None:
    codec = ActionCodec(parse_layout("o o o\n o o"))  # N = 5
    assert codec.encode_place(2, 3) == 2 * 5 + 3
    assert codec.encode_move(1, 4, 2) == 15 + (1 * 5 + 4) * 3 + 1
    assert codec.decode(codec.encode_move(1, 4, 2)) == ("move", 1, 4, 2)
    assert codec.encode_melt(0) == 15 + 75 and codec.encode_keep(0) == 15 + 75 + 5
    assert codec.STOP == codec.num_actions - 1 == 100
    assert codec.decode(codec.STOP) == ("stop",)
    assert codec.to_string(codec.encode_place(2, 3)) == "T@b1"
    assert codec.to_string(codec.encode_move(0, 2, 1)) == "a1-a3/1"
    assert codec.to_string(codec.encode_move(0, 2, 1), height=1) == "a1-a3"
    assert codec.to_string(codec.encode_melt(4)) == "melt b2"
    assert codec.to_string(codec.encode_keep(1)) == "keep a2"


def test_state_notation_drops_k_for_whole_stacks_and_round_trips() -> None:
    rng = random.Random(5)
    for n in (2, 3, 4):
        st = ArktiaGame(n).new_initial_state()
        while not st.is_terminal():
            legal = st.legal_actions()
            for a in legal:
                text = st.action_to_string(a)
                assert st.string_to_action(text) == a
                if st.game.codec.decode(a)[0] == "move":
                    _, frm, _, k = st.game.codec.decode(a)
                    assert ("/" in text) == (k < len(st.stack(frm)))
            non_stop = [a for a in legal if a != st.game.codec.STOP] or legal
            st.apply_action(rng.choice(non_stop if st.turn < 120 else legal))


BAD_NOTATION = [
    "",
    "X@a1",
    "T@",
    "T@z9",
    "a1-z1",
    "a1-a2/4",
    "a1-a2/0",
    "melt",
    "melt q1",
    "keep",
    "a1 a2",
    "stopp",
]


@pytest.mark.parametrize("text", BAD_NOTATION)
def test_bad_notation_raises_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        ArktiaGame(2).codec.parse(text)


def test_bad_notation_messages() -> None:
    codec = ArktiaGame(2).codec
    with pytest.raises(NotationError, match="unknown tile 'z9'"):
        codec.parse("T@z9")
    with pytest.raises(NotationError, match="expected one of"):
        codec.parse("jump a1")
    with pytest.raises(NotationError, match="/k"):
        codec.parse("a1-a2")  # the codec alone does not know stack heights
    with pytest.raises(NotationError, match="string"):
        codec.parse(3)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="out of range"):
        codec.decode(codec.num_actions)


def test_state_string_to_action_checks_legality() -> None:
    st = ArktiaGame(2).new_initial_state()
    with pytest.raises(NotationError, match="no stack on a1"):
        st.string_to_action("a1-a2")
    with pytest.raises(IllegalActionError, match="setup"):
        st.string_to_action("melt a1")
    assert st.string_to_action(" T@c2 ") == st.game.codec.encode_place(2, 8)


def test_action_types_numpy_ints_pass_bools_and_floats_fail() -> None:
    import numpy as np

    st = ArktiaGame(2).new_initial_state()
    codec = st.game.codec
    assert codec.decode(np.int64(3)) == ("place", 0, 3)
    for bad in (True, np.True_, 3.0, np.float64(3.0), "3", None):
        with pytest.raises(IllegalActionError, match="bool|not an integer"):
            codec.decode(bad)
        with pytest.raises(IllegalActionError, match="bool|not an integer"):
            st.apply_action(bad)
        with pytest.raises(IllegalActionError, match="bool|not an integer"):
            st.action_to_string(bad)
    st.apply_action(np.int64(st.legal_actions()[0]))  # numpy ints are fine
    assert st.turn == 1


def test_notation_is_case_insensitive() -> None:
    state = ArktiaGame(2).new_initial_state()
    lower = state.string_to_action("t@c2")
    assert state.string_to_action("T@C2") == lower == state.string_to_action(" T@c2 ")
    assert state.action_to_string(lower) == "T@c2"
    codec = state.game.codec
    assert codec.parse("STOP") == codec.parse("stop") == codec.STOP
    assert codec.parse("Melt A2") == codec.parse("melt a2")
