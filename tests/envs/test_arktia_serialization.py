"""Arktia saved states (``envs/arktia/serialization.py`` and ``reachability.py``): the JSON
round trip, syntax errors, corrupted fields, and positions the rules cannot reach, each
refused with ``InvalidStateError`` naming the key or the ruling.

The 2-player default layout with its cell names: ``arktia_positions.py``.
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_zoo.envs.arktia import ArktiaGame, ArktiaState
from tabletop_zoo.envs.errors import InvalidStateError
from tests.envs.arktia_positions import play, position

# ---------------------------------------------------------------------- JSON


def test_json_round_trip_through_a_random_game() -> None:
    rng = random.Random(1)
    st = ArktiaGame(3, neutral_pieces=True).new_initial_state()
    while not st.is_terminal():
        copy = ArktiaState.from_json(st.to_json())
        assert copy.to_json() == st.to_json()
        assert copy.legal_actions() == st.legal_actions()
        legal = st.legal_actions()
        non_stop = [a for a in legal if a != st.game.codec.STOP] or legal
        st.apply_action(rng.choice(non_stop))


def _base() -> dict:
    st = position({"c2": "rG", "c3": "rD", "e2": "bT", "e3": "bD"})
    return json.loads(st.to_json())


BAD_JSON = [
    ("not json", "{oops", "not valid JSON"),
    ("not an object", "[1, 2]", "JSON object"),
]


@pytest.mark.parametrize("text,match", [(t, m) for _, t, m in BAD_JSON])
def test_json_syntax_errors(text: str, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        ArktiaState.from_json(text)


def _set(path: str, value) -> dict:
    d = _base()
    keys = path.split(".")
    target = d
    for k in keys[:-1]:
        target = target[k]
    if value is _DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return d


_DELETE = object()

CORRUPTIONS = [
    ("missing key", "turn", _DELETE, "missing keys"),
    ("unknown key", "colour", 1, "unknown keys"),
    ("players", "num_players", 5, "out of range"),
    ("bool players", "num_players", True, "must be an integer"),
    ("layout", "layout", "o\to", "unexpected character"),
    ("stacks type", "stacks", [], "stacks must be an object"),
    ("tile name", "stacks.z9", [[0, "G"]], "unknown tile name"),
    ("stack shape", "stacks.a1", [[0, "G"], [1, "G"]], "not a legal stack"),
    ("stack shape T-G", "stacks.a1", [[0, "T"], [1, "G"]], "not a legal stack"),
    ("owner", "stacks.a1", [[7, "G"]], "owner"),
    ("neutral off", "stacks.a1", [["neutral", "G"]], "neutral_pieces is false"),
    ("kind", "stacks.a1", [[0, "X"]], "kind must be"),
    ("piece format", "stacks.a1", [0, "G"], "must be \\[owner, kind\\]"),
    ("material", "reserves", [[3, 3, 3], [3, 2, 2]], "material is 3"),
    ("reserve type", "reserves", [[3, 3, "3"], [3, 2, 2]], "must be an integer"),
    ("reserves length", "reserves", [[2, 3, 3]], "must have 2 entries"),
    ("removed sum", "removed", [1, 0], "removed counts"),
    ("melted sum", "melted", [1, 0], "melted counts"),
    ("melted unknown", "melted_tiles", ["q1"], "unknown tile name"),
    ("phase", "phase", "dance", "not one of"),
    ("phase mismatch", "phase", "setup", "does not match round"),
    ("current ended", "ended", [0], "listed as ended"),
    ("current out of range", "current_player", 2, "out of range"),
    ("choose without choices", "phase", "choose", "pending_choices"),
    ("turn", "turn", -1, "out of range"),
]


@pytest.mark.parametrize(
    "path,value,match", [(p, v, m) for _, p, v, m in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS]
)
def test_json_corruptions_are_rejected(path: str, value, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        ArktiaState.from_json(json.dumps(_set(path, value)))


def test_json_rejects_melted_tile_with_pieces_and_split_colours() -> None:
    d = _base()
    d["melted_tiles"], d["melted"] = ["c2"], [1, 0]
    with pytest.raises(InvalidStateError, match="melted but holds pieces"):
        ArktiaState.from_json(json.dumps(d))
    d = _base()
    d["stacks"]["a1"] = [[0, "T"]]
    d["reserves"][0] = [2, 2, 2]
    with pytest.raises(InvalidStateError, match="several groups"):
        ArktiaState.from_json(json.dumps(d))
    d = _base()
    d["melted_tiles"], d["melted"] = ["b1", "b2", "c1", "c3", "d1", "d2"], [6, 0]
    d["stacks"]["c3"] = []
    with pytest.raises(InvalidStateError, match="one connected piece"):
        ArktiaState.from_json(json.dumps(d))


def test_json_pending_choice_is_validated() -> None:
    st = position({"c1": "bT", "c2": "bDrG", "b1": "rT"})
    play(st, "c2-b2")
    d = json.loads(st.to_json())
    assert d["pending_choices"] == [{"colour": 1, "groups": [["b2"], ["c1"]]}]
    assert ArktiaState.from_json(st.to_json()).legal_actions() == st.legal_actions()
    d["pending_choices"][0]["groups"] = [["b2"], ["c2"]]
    with pytest.raises(InvalidStateError, match="connected groups"):
        ArktiaState.from_json(json.dumps(d))


def test_from_json_rejects_a_player_without_any_play() -> None:
    with pytest.raises(InvalidStateError, match="R19a"):
        position(
            {"a1": "bGrT", "a2": "bTrD"},
            layout="o o o o",
            reserves=[[3, 2, 2], [0, 0, 0]],
            removed=[7, 0],
            cur=1,
        )
