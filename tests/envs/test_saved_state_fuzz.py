"""Fuzzing saved states (hypothesis, sized for CI): mutated saved states of every game (and
option variant) are either refused with InvalidStateError or accepted as a position from
which every legal continuation is again accepted by ``from_json``; with the ``fast`` extra,
the compiled engine's copy of every accepted position (``registry.fast_state``, which the
search agents use) is accepted by its row check and plays the same legal actions.

The mutations change types, ranges and nesting, drop and add keys, and, most often,
change one game value to another plausible one (an impossible position).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_zoo.envs.errors import InvalidStateError
from tabletop_zoo.envs.registry import GAMES, fast_state, new_game

CASES = [(spec.name, n) for spec in GAMES.values() for n in spec.players]
#: Option variants of the games (game, players, options) for the mutation test.
VARIANTS = [
    ("mole_hill", 2, {"random_flowers": True}),
    ("arktia", 2, {"neutral_pieces": False}),
    ("arktia", 3, {"neutral_pieces": True}),
]
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.sampled_from([1.0, 2.5, 10**9, 10**30, -(10**9), "", "a1", "x", "neutral", "G"]),
    st.lists(st.integers(-1, 4), max_size=4),
    st.dictionaries(st.sampled_from(["a1", "b2", "c3"]), st.just([[0, "G"]]), max_size=2),
)
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reachable(game: str, n: int, seed: int, plies: int, options: dict | None = None):
    """The state after ``plies`` random legal moves from the start."""
    rng = random.Random(seed)
    state = new_game(game, n, **(options or {})).new_initial_state(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _paths(value, prefix=()):
    """Every path into nested dicts/lists of a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i))


def _mutate(data: dict, choice: int, value, drop: bool) -> dict:
    """Replace (or drop) the value at one path of ``data``, chosen by ``choice``."""
    data = json.loads(json.dumps(data))
    paths = [p for p in _paths(data) if p]
    path = paths[choice % len(paths)]
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    elif drop and isinstance(parent, list):
        parent.pop(path[-1])
    elif (
        isinstance(value, int) and not isinstance(value, bool) and isinstance(parent[path[-1]], int)
    ):
        parent[path[-1]] = parent[path[-1]] + value  # a nearby number: often impossible
    else:
        parent[path[-1]] = value
    return data


def _nudge_numbers(data: dict, choices: list[int], deltas: list[int]) -> dict:
    """Add small deltas to a few integer entries (seats, counts, round, turn, reserves)."""
    data = json.loads(json.dumps(data))
    paths = []
    for path in _paths(data):
        value = data
        for key in path:
            value = value[key]
        if path and type(value) is int:
            paths.append(path)
    for choice, delta in zip(choices, deltas, strict=False):
        path = paths[choice % len(paths)]
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] += delta
    return data


def _check_accepted_state_stays_accepted(cls, state, rng: random.Random) -> None:
    again = cls.from_json(state.to_json())
    assert again == state
    compiled = fast_state(state)  # None without numba; a refused row here is a bug
    for _ in range(25):
        if compiled is not None:
            assert compiled.legal_actions() == state.legal_actions()
            assert compiled.current_player == state.current_player
        if state.is_terminal():
            return
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        if compiled is not None:
            compiled.apply_action(action)
        text = state.to_json()
        assert cls.from_json(text).to_json() == text  # InvalidStateError here is a bug


MUTATION_CASES = [(g, n, {}) for g, n in CASES] + VARIANTS
#: The 2-player games in the default test run, the longer 3- and 4-player budgets marked slow.
SMALL_FIRST = [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CASES]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "n", "options"),
    [
        c if c[1] == 2 and not c[2] else pytest.param(*c, marks=pytest.mark.slow)
        for c in MUTATION_CASES
    ],
    ids=[f"{g}-{n}p" + "".join(f"-{k}={v}" for k, v in o.items()) for g, n, o in MUTATION_CASES],
)
@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 80),
    choice=st.integers(0, 10**6),
    value=ODD_VALUES,
    drop=st.booleans(),
    extra_key=st.booleans(),
)
def test_mutated_saved_states_are_refused_or_playable(
    game: str,
    n: int,
    options: dict,
    seed: int,
    plies: int,
    choice: int,
    value,
    drop: bool,
    extra_key: bool,
) -> None:
    state = _reachable(game, n, seed, plies, options)
    cls = type(state)
    data = _mutate(json.loads(state.to_json()), choice, value, drop)
    if extra_key:
        data["unexpected"] = value
    try:
        loaded = cls.from_json(json.dumps(data))
    except InvalidStateError:
        return
    _check_accepted_state_stays_accepted(cls, loaded, random.Random(seed))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "n"), SMALL_FIRST, ids=[f"{g}-{n}p" for g, n in CASES])
@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 120),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=2),
    deltas=st.lists(st.sampled_from([-2, -1, 1, 2]), min_size=1, max_size=2),
)
def test_states_with_nudged_numbers_are_refused_or_playable(
    game: str, n: int, seed: int, plies: int, choices: list[int], deltas: list[int]
) -> None:
    state = _reachable(game, n, seed, plies)
    cls = type(state)
    data = _nudge_numbers(json.loads(state.to_json()), choices, deltas)
    try:
        loaded = cls.from_json(json.dumps(data))
    except InvalidStateError:
        return
    _check_accepted_state_stays_accepted(cls, loaded, random.Random(seed))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "n"), SMALL_FIRST, ids=[f"{g}-{n}p" for g, n in CASES])
@SETTINGS
@given(text=st.text(max_size=200), seed=st.integers(0, 1000))
def test_arbitrary_text_is_refused_cleanly(game: str, n: int, text: str, seed: int) -> None:
    cls = type(new_game(game, n).new_initial_state(0))
    with pytest.raises(InvalidStateError):
        cls.from_json(text)
    # and the same text spliced into a real saved state
    saved = _reachable(game, n, seed, 10).to_json()
    cut = seed % len(saved)
    try:
        cls.from_json(saved[:cut] + text + saved[cut:])
    except InvalidStateError:
        pass


@pytest.mark.parametrize(("game", "n"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
@pytest.mark.parametrize("depth", [50, 1000, 100_000])
def test_deep_nesting_is_refused_without_recursion_error(game: str, n: int, depth: int) -> None:
    cls = type(new_game(game, n).new_initial_state(0))
    data = json.loads(_reachable(game, n, 1, 5).to_json())
    key = next(iter(data))
    text = json.dumps(data).replace(
        f'"{key}": ', f'"{key}": ' + "[" * depth + "1" + "]" * depth + ', "x": ', 1
    )
    with pytest.raises(InvalidStateError):
        cls.from_json(text)
    with pytest.raises(InvalidStateError, match="characters|deep"):
        cls.from_json("[" * depth + "]" * depth if depth > 10**4 else "{" + "[" * depth)
