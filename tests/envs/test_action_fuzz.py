"""Fuzzing actions (hypothesis, sized for CI) through ``raw_env`` and ``env()`` of every
game: a legal action is played; anything else is refused with our documented error and
changes nothing (``raw_env``), or follows PettingZoo's classic rules (``env()``: an
action outside the space trips its assertion, an illegal one ends the game with -1).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_zoo.envs.errors import TabletopZooError
from tabletop_zoo.envs.registry import GAMES, make_env, make_raw_env

CASES = [(spec.name, n) for spec in GAMES.values() for n in spec.players]
IDS = [f"{g}-{n}p" for g, n in CASES]
ACTIONS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-2, 400),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([None, "0", "e4", "stop", b"1", [], [1], (1,), {}, math.nan, object()]),
    st.integers(0, 400).map(np.int64),
    st.integers(0, 400).map(lambda a: np.array(a)),
    st.integers(0, 400).map(lambda a: np.array([a])),
    st.integers(0, 400).map(np.float32),
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def _integer(value) -> int | None:
    """The integer our rule accepts for ``value`` (NumPy ints and 0-d int arrays)."""
    if isinstance(value, bool | np.bool_) or isinstance(value, float | np.floating):
        return None
    if isinstance(value, np.ndarray):
        return int(value) if value.ndim == 0 and value.dtype.kind in "iu" else None
    return int(value) if isinstance(value, int | np.integer) else None


def _view(env) -> tuple:
    raw = env.unwrapped
    obs = env.observe(env.agent_selection)
    return raw.game_state.to_json(), env.agent_selection, obs["action_mask"].tobytes()


@pytest.mark.slow
@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
@SETTINGS
@given(action=ACTIONS, plies=st.integers(0, 30), seed=st.integers(0, 1000))
def test_raw_env_plays_legal_actions_and_refuses_the_rest(game, n, action, plies, seed) -> None:
    env = make_raw_env(game, n)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        legal = env.game_state.legal_actions()
        if not legal:
            break
        env.step(rng.choice(legal))
    if not env.game_state.legal_actions():
        return
    before = _view(env)
    legal = env.game_state.legal_actions()
    if _integer(action) in legal:
        env.step(action)
        assert env.game_state.to_json() != before[0]
        return
    with pytest.raises(TabletopZooError):
        env.step(action)
    assert _view(env) == before


@pytest.mark.slow
@pytest.mark.parametrize(("game", "n"), CASES, ids=IDS)
@SETTINGS
@given(action=ACTIONS, seed=st.integers(0, 1000))
def test_wrapped_env_follows_pettingzoo_classic_rules(game, n, action, seed) -> None:
    env = make_env(game, n)
    env.reset(seed=seed)
    agent = env.agent_selection
    before = _view(env)
    legal = env.unwrapped.game_state.legal_actions()
    try:
        env.step(action)
    except Exception:  # PettingZoo's AssertOutOfBoundsWrapper, or our error for a non-int
        assert _view(env) == before
        return
    if _integer(action) in legal:
        assert not any(env.terminations.values())
    else:  # an illegal action in the space: the game ends, -1 for the offender
        assert all(env.terminations.values())
        assert env.rewards[agent] == -1
