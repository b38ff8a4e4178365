"""The compiled engines check every row and argument they are given (in process: each
refusal is our error and changes nothing; the crash-proofing itself is fuzzed in a
subprocess by the last tests, with ``fast_fuzz.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled engines need the 'fast' extra")

from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    WrongConfigurationError,
)
from tabletop_zoo.envs.registry import fast_engine, new_game

FUZZ = Path(__file__).with_name("fast_fuzz.py")
CONFIGS = [
    ("mole_hill", 2, {}),
    ("mole_hill", 2, {"random_flowers": True}),
    ("arktia", 2, {}),
    ("arktia", 3, {"neutral_pieces": True}),
    ("arktia", 4, {}),
]


def played(engine, count: int = 8, steps: int = 30):
    engine.seed(0)
    states = engine.new_states(count, seed=0)
    for _ in range(steps):
        engine.step(states, engine.random_actions(states))
    return states


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS)
def test_every_row_of_random_play_passes_the_check(game, players, options) -> None:
    engine = fast_engine(game, players, max_turns=40, **options) if game == "arktia" else (
        fast_engine(game, players, **options)
    )  # fmt: skip
    engine.seed(1)
    states = engine.new_states(32, seed=1)
    for _ in range(150):  # autoreset and truncation included
        assert engine.check_states(states) is states
        engine.step(states, engine.random_actions(states))
    view = engine.new_initial_state()
    for _ in range(300):  # the one-row view has no truncation: a bounded walk
        if view.is_terminal():
            break
        engine.check_row(view.row)
        view.apply_action(view.legal_actions()[-1])


def test_the_reported_mole_hill_row_is_refused_and_nothing_changes() -> None:
    engine = fast_engine("mole_hill")
    states = played(engine)
    states[0, 8] = -(2**63)  # the trail length column, used as an index
    before = states.copy()
    for call in (
        lambda: engine.legal_mask(states),
        lambda: engine.step(states, np.zeros(len(states), dtype=np.int64)),
        lambda: engine.observe(states, 0),
        lambda: engine.random_actions(states),
        lambda: engine.play_opponents(states, 0),
        lambda: engine.wrap(states[0]),
        lambda: engine.to_state(states[0]),
    ):
        with pytest.raises(InvalidStateError, match="game row 0 .*LENGTH"):
            call()
    assert np.array_equal(states, before)


def test_a_four_player_arktia_row_is_refused_by_name() -> None:
    two, four = fast_engine("arktia", 2), fast_engine("arktia", 4)
    rows = four.new_states(3)
    with pytest.raises(WrongConfigurationError, match="num_players=4.*this engine.*num_players=2"):
        two.legal_mask(rows)
    with pytest.raises(WrongConfigurationError, match="num_players=4"):
        two.wrap(rows[0])
    # same width, other options: refused by the configuration column as well
    plain, neutral = fast_engine("arktia", 3), fast_engine("arktia", 3, neutral_pieces=True)
    assert plain.state_width == neutral.state_width
    with pytest.raises(WrongConfigurationError, match="neutral_pieces=True"):
        plain.step(neutral.new_states(2), np.zeros(2, dtype=np.int64))
    with pytest.raises(WrongConfigurationError, match="num_players=4"):
        two.from_state(new_game("arktia", 4).new_initial_state())


def test_mole_hill_rows_of_the_other_flower_variant_are_refused() -> None:
    printed, drawn = fast_engine("mole_hill"), fast_engine("mole_hill", random_flowers=True)
    with pytest.raises(WrongConfigurationError, match="random_flowers=True"):
        printed.legal_mask(drawn.new_states(2, seed=0))


def test_an_unknown_configuration_column_is_named_as_such() -> None:
    engine = fast_engine("mole_hill")
    states = engine.new_states(2)
    states[1, engine.config_column] = 12345
    with pytest.raises(WrongConfigurationError, match="game row 1 .*no compiled engine"):
        engine.legal_mask(states)


@pytest.mark.parametrize("game", ["mole_hill", pytest.param("arktia", marks=pytest.mark.slow)])
def test_arrays_that_are_not_rows_are_refused(game: str) -> None:
    engine = fast_engine(game)
    states = played(engine, 4)
    read_only = states.copy()
    read_only.flags.writeable = False
    for bad, message in [
        (states.astype(np.int32), "int64"),
        (states.astype(np.float64), "int64"),
        (states[0], "int64 array of shape"),
        (states[:, :-1], "columns"),
        (np.asfortranarray(states), "C-contiguous"),
        (states.tolist(), "NumPy"),
    ]:
        with pytest.raises(InvalidStateError, match=message):
            engine.legal_mask(bad)
    with pytest.raises(InvalidStateError, match="writeable"):
        engine.step(read_only, engine.random_actions(states))
    engine.legal_mask(read_only)  # reading a read-only array is fine


def _read_only(argument) -> bool:
    """Whether a numba argument type is (or holds) a read-only array."""
    from numba import types

    if isinstance(argument, types.BaseTuple):
        return any(_read_only(item) for item in argument.types)
    return isinstance(argument, types.Array) and not argument.mutable


@pytest.mark.parametrize(("game", "players"), [("mole_hill", 2), ("arktia", 3)])
def test_read_only_rows_and_seats_compile_no_second_version(game: str, players: int) -> None:
    """The vector env hands out its rows read-only; numba would compile every kernel
    that reads them a second time (for read-only arrays). The engine reads them through
    writeable copies instead: the same answers, one compiled version."""
    engine = fast_engine(game, players)
    states = played(engine, 4)
    read_only = states.copy()
    read_only.flags.writeable = False
    seats = np.zeros(4, dtype=np.int64)
    seats.flags.writeable = False
    assert np.array_equal(engine.legal_mask(read_only), engine.legal_mask(states))
    assert np.array_equal(engine.observe(read_only, seats), engine.observe(states, 0))
    assert np.array_equal(engine.scores(read_only), engine.scores(states))
    engine.wrap(read_only[1]).legal_actions()
    engine.check_row(read_only[2])
    engine.to_state(read_only[3])
    engine.greedy_actions(read_only)
    compiled = [
        value
        for module in {
            sys.modules[type(engine).__module__.rsplit(".", 1)[0] + "." + name]
            for name in ("batch", "kernels", "state")
        }
        for value in vars(module).values()
        if hasattr(value, "signatures")
    ]
    assert compiled
    read_only_versions = [
        (function.py_func.__name__, signature)
        for function in compiled
        for signature in function.signatures
        if any(_read_only(argument) for argument in signature)
    ]
    assert not read_only_versions


@pytest.mark.parametrize("game", ["mole_hill", "arktia"])
def test_arguments_beside_the_rows_are_checked(game: str) -> None:
    engine = fast_engine(game)
    states = played(engine, 4)
    before = states.copy()
    with pytest.raises(InvalidOptionError, match="seats"):
        engine.observe(states, np.full(4, 0.5))  # no float truncation
    with pytest.raises(InvalidOptionError, match="seats"):
        engine.observe(states, np.zeros(3, dtype=np.int64))  # no broadcasting of wrong lengths
    with pytest.raises(InvalidOptionError, match="seats"):
        engine.play_opponents(states, 7)
    with pytest.raises(InvalidOptionError, match="active"):
        engine.random_actions(states, [1, 0, 1, 0])
    with pytest.raises(InvalidOptionError, match="which"):
        engine.reset_games(states, np.ones(5, dtype=bool))
    for call in (
        lambda: engine.new_states(-1),
        lambda: engine.new_states(2.0),
        lambda: engine.seed(-1),
        lambda: engine.random_play(2, -3),
    ):
        with pytest.raises(InvalidOptionError):
            call()
    assert np.array_equal(states, before)


@pytest.mark.parametrize("game", ["mole_hill", "arktia"])
def test_actions_beyond_int64_are_refused(game: str) -> None:
    engine = fast_engine(game)
    view = engine.new_initial_state()
    for action in (2**70, -(2**70), 2**64 - 1, np.uint64(2**64 - 1)):
        with pytest.raises(IllegalActionError):
            view.apply_action(action)
    with pytest.raises(IllegalActionError, match="18446744073709551615"):
        engine.step(engine.new_states(2), np.full(2, 2**64 - 1, dtype=np.uint64))
    assert view.legal_actions() == engine.new_initial_state().legal_actions()


@pytest.mark.parametrize("game", ["mole_hill", "arktia"])
def test_rollout_refuses_a_generator_state_it_would_index_outside(game: str) -> None:
    import random

    from tabletop_zoo.envs.compiled.random_stream import PythonStream

    view = fast_engine(game).new_initial_state()
    good = PythonStream(random.Random(0)).words
    for position in (-1, -(2**40), 625, 2**62):
        words = good.copy()
        words[-1] = position
        with pytest.raises(InvalidOptionError, match="position"):
            view.clone().rollout(words)
    for bad in (good[:-1], good.astype(np.int32), good.astype(float), list(good), good[::2]):
        with pytest.raises(InvalidOptionError, match="625 entries"):
            view.clone().rollout(bad)
    before = good.copy()
    assert len(view.clone().rollout(good)) == view.num_players and not np.array_equal(good, before)


def run_fuzz(rounds: int, seed: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(FUZZ), "--rounds", str(rounds), "--seed", str(seed)],
        capture_output=True,
        text=True,
        timeout=1200,
    )


@pytest.mark.slow
def test_one_round_of_fuzzed_rows_and_actions_in_a_child_process() -> None:
    """The fuzz below, one round (a few seconds): in the default run, so that a crash or a
    new kind of failure shows up there too."""
    out = run_fuzz(1, 2)
    assert out.returncode >= 0, f"killed by signal {-out.returncode}: {out.stderr[-2000:]}"
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    calls, refused = (int(x) for x in out.stdout.split()[1:4:2])
    assert calls > 500 and 0 < refused < calls


@pytest.mark.slow
def test_fuzzed_rows_never_kill_the_process() -> None:
    """Mutated, extreme and foreign rows through every public entry, fuzzed actions and
    opponent outputs through the vector env, in a child process: no signal (a negative
    return code) and no error other than ours."""
    out = run_fuzz(4, 0)
    assert out.returncode >= 0, f"killed by signal {-out.returncode}: {out.stderr[-2000:]}"
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    calls, refused = (int(x) for x in out.stdout.split()[1:4:2])
    assert calls > 1000 and 0 < refused < calls


@pytest.mark.slow
def test_fuzzed_rows_never_kill_the_process_longer() -> None:
    out = run_fuzz(150, 1)
    assert out.returncode >= 0, f"killed by signal {-out.returncode}: {out.stderr[-2000:]}"
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
