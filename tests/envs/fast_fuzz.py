"""Fuzz driver of the compiled engines: mutated and extreme rows through every public entry.

    python tests/envs/fast_fuzz.py --rounds 40 --seed 0

Run in a subprocess by ``test_fast_row_checks.py`` (a crash there kills only the child, and the
test sees the signal). For every configuration (Mole Hill with both flower variants,
Arktia 2p, 2p without neutral pieces, 3p, 3p with neutral pieces, 4p) each round takes
rows from random play and mutates them (one column or several set to extreme or random
int64 values, bits flipped, whole random rows, rows of another configuration), then calls
every public entry of the batched engine and of the one-row view with them, and also
passes arrays of the wrong dtype, shape, order or mutability; and steps the vector env with
fuzzed learner actions and a batched opponent policy whose outputs are fuzzed (its rows must
still pass the engine's check after every call). Every call must return or
raise one of our errors (``TabletopZooError``); anything else is printed and the driver
exits 2. Prints how many calls were made and how many were refused.
"""

from __future__ import annotations

import argparse
import random
import sys
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_zoo.envs.compiled.random_stream import PythonStream
from tabletop_zoo.envs.errors import TabletopZooError
from tabletop_zoo.envs.registry import fast_engine

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("mole_hill", 2, {}),
    ("mole_hill", 2, {"random_flowers": True}),
    ("arktia", 2, {}),
    ("arktia", 2, {"neutral_pieces": False}),
    ("arktia", 3, {}),
    ("arktia", 3, {"neutral_pieces": True}),
    ("arktia", 4, {}),
]
EXTREMES = np.array(
    [-(2**63), 2**63 - 1, -(2**31), 2**31, -2, -1, 0, 1, 2, 3, 4, 5, 21, 22, 23, 62, 63, 64,
     65, 109, 110, 172, 173, 1000],
    dtype=np.int64,
)  # fmt: skip
MAX_TURNS = 60  # Arktia truncation in the fuzz engines: short games, quick opponents


class Tally:
    """Calls made and refused (our errors)."""

    def __init__(self) -> None:
        self.calls = 0
        self.refused = 0
        self.failures: list[str] = []

    def call(self, what: str, function: Callable[[], Any]) -> Any:
        """Run ``function``; our errors count as refusals, anything else as a failure."""
        self.calls += 1
        try:
            return function()
        except TabletopZooError:
            self.refused += 1
        except Exception:
            self.failures.append(f"{what}:\n{traceback.format_exc()}")
        return None


def engine_of(game: str, players: int, options: dict[str, Any]) -> Any:
    """The fuzzed engine of one configuration."""
    if game == "arktia":
        return fast_engine(game, players, max_turns=MAX_TURNS, **options)
    return fast_engine(game, players, **options)


def played_rows(engine: Any, count: int, steps: int, seed: int) -> np.ndarray:
    """``count`` rows after ``steps`` random batched steps (autoreset): varied positions."""
    engine.seed(seed)
    states = engine.new_states(count, seed=seed)
    for _ in range(steps):
        engine.step(states, engine.random_actions(states))
    return states


def mutate(row: np.ndarray, rng: np.random.Generator, foreign: list[np.ndarray]) -> np.ndarray:
    """One mutated copy of ``row`` (same width unless a foreign row is taken as is)."""
    out = row.copy()
    kind = int(rng.integers(6))
    if kind == 0:  # one column, an extreme value
        out[rng.integers(len(out))] = rng.choice(EXTREMES)
    elif kind == 1:  # one column, any int64
        out[rng.integers(len(out))] = rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)
    elif kind == 2:  # a few columns
        for _ in range(int(rng.integers(2, 6))):
            out[rng.integers(len(out))] = rng.choice(EXTREMES)
    elif kind == 3:  # one bit flipped
        column = rng.integers(len(out))
        out[column] ^= np.int64(1) << np.int64(rng.integers(64))
    elif kind == 4:  # a whole random row
        out = rng.integers(-(2**63), 2**63 - 1, size=len(out), dtype=np.int64)
    else:  # a row of another configuration, cut or padded to this width
        other = foreign[int(rng.integers(len(foreign)))]
        out = np.zeros_like(row)
        width = min(len(row), len(other))
        out[:width] = other[:width]
    return out


def fuzz_batch(engine: Any, states: np.ndarray, rng: np.random.Generator, tally: Tally) -> None:
    """Every batched entry with ``states`` (copies for the ones that change rows)."""
    b = len(states)
    seats = rng.integers(engine.num_players, size=b)
    actions = rng.integers(-2, engine.num_actions + 2, size=b)
    active = rng.random(b) < 0.7
    tally.call("check_states", lambda: engine.check_states(states))
    tally.call("legal_mask", lambda: engine.legal_mask(states))
    tally.call("random_actions", lambda: engine.random_actions(states, active))
    tally.call("greedy_actions", lambda: engine.greedy_actions(states))
    tally.call("current_players", lambda: engine.current_players(states))
    tally.call("is_terminal", lambda: engine.is_terminal(states))
    tally.call("scores", lambda: engine.scores(states))
    tally.call("observe", lambda: engine.observe(states, seats))
    tally.call("step", lambda: engine.step(states.copy(), actions, bool(rng.integers(2)), active))
    legal = tally.call("random_actions", lambda: engine.random_actions(states))
    if legal is not None:
        tally.call("step legal", lambda: engine.step(states.copy(), np.maximum(legal, 0), True))
    for opponent in ("random", "greedy"):
        tally.call(
            "play_opponents", lambda o=opponent: engine.play_opponents(states.copy(), seats, o)
        )
    tally.call("reset_games", lambda: engine.reset_games(states.copy(), active))
    tally.call("to_state", lambda: engine.to_state(states[0]))


def fuzz_view(engine: Any, row: np.ndarray, rng: np.random.Generator, tally: Tally) -> None:
    """The one-row view of ``row``: made by ``wrap`` and by its class, then every method."""
    view = tally.call("wrap", lambda: engine.wrap(row))
    tally.call("view class", lambda: type(engine.new_initial_state())(engine, row.copy()))
    if view is None:
        return
    tally.call("legal_actions", view.legal_actions)
    tally.call("current_player", lambda: view.current_player)
    tally.call("is_terminal", view.is_terminal)
    tally.call("scores", view.scores)
    tally.call("returns", view.returns)
    tally.call("apply_action fuzz", lambda: view.clone().apply_action(int(rng.choice(EXTREMES))))
    for huge in (2**70, -(2**70), 2**64 - 1, np.uint64(2**64 - 1), 1.0, True, "1"):
        tally.call("apply_action huge", lambda a=huge: view.clone().apply_action(a))
    if not view.is_terminal():
        tally.call("greedy_best", view.greedy_best)
        legal = view.legal_actions()
        child = view.clone()
        tally.call("apply_action", lambda: child.apply_action(legal[0]))
        words = PythonStream(random.Random(int(rng.integers(2**31)))).words
        tally.call("rollout", lambda: view.clone().rollout(words, 200))


def fuzz_shapes(engine: Any, states: np.ndarray, tally: Tally) -> None:
    """Arrays that are not rows of this engine: other dtypes, shapes, order, mutability."""
    read_only = states.copy()
    read_only.flags.writeable = False
    bad = [
        states.astype(np.int32),
        states.astype(np.float64),
        states.astype(np.uint64),
        states[0],
        states[:, :-1],
        np.asfortranarray(states),
        states[::2] if len(states) > 2 else states.T,
        states.tolist(),
        None,
    ]
    for array in bad:
        tally.call("legal_mask bad array", lambda a=array: engine.legal_mask(a))
        tally.call("observe bad array", lambda a=array: engine.observe(a, 0))
    tally.call("step read-only", lambda: engine.step(read_only, engine.random_actions(states)))
    tally.call("observe float seats", lambda: engine.observe(states, np.full(len(states), 0.5)))
    tally.call("step float actions", lambda: engine.step(states.copy(), np.zeros(len(states))))
    huge = np.full(len(states), 2**64 - 1, dtype=np.uint64)
    tally.call("step uint64 actions", lambda: engine.step(states.copy(), huge))
    tally.call("random_actions int mask", lambda: engine.random_actions(states, [1] * len(states)))
    tally.call("new_states", lambda: engine.new_states(-1))
    tally.call("seed", lambda: engine.seed(-5))
    tally.call("random_play", lambda: engine.random_play(2, -1))


def bad_actions(rng: np.random.Generator, legal: np.ndarray, num_actions: int) -> Any:
    """Actions for a batch whose legal choice is ``legal``: legal ones, or (most of the
    time) a fuzzed array: extreme or illegal values, floats, bools, uint64, wrong length."""
    kind = int(rng.integers(8))
    size = len(legal)
    if kind == 0:
        return legal
    if kind == 1:
        return rng.choice(EXTREMES, size=size)
    if kind == 2:
        out = legal.copy()
        out[rng.integers(size)] = rng.integers(-2, num_actions + 2)
        return out
    if kind == 3:
        return legal.astype(np.float64) + 0.25
    if kind == 4:
        return np.ones(size, dtype=bool)
    if kind == 5:
        return np.full(size, 2**64 - 1, dtype=np.uint64)
    if kind == 6:
        return legal[: int(rng.integers(size))] if size > 1 else np.append(legal, 0)
    return [int(a) for a in legal] + [None]


def fuzz_vector(engine: Any, rng: np.random.Generator, tally: Tally) -> None:
    """The vector env with fuzzed learner actions and an opponent policy whose outputs are
    fuzzed the same way; after every call its rows must still pass the engine's check."""
    from tabletop_zoo.wrappers.vector import BatchedVectorEnv

    def opponent(observations: np.ndarray, masks: np.ndarray) -> Any:
        legal = masks.argmax(axis=1).astype(np.int64)
        return bad_actions(rng, legal, engine.num_actions) if rng.random() < 0.1 else legal

    seat = None if rng.random() < 0.5 else int(rng.integers(engine.num_players))
    envs = BatchedVectorEnv(engine, 4, opponent, learner_seat=seat, seed=int(rng.integers(99)))
    for _ in range(5):  # a failed reset leaves the env unready: try again
        if tally.call("vector reset", envs.reset) is not None:
            break
    else:
        return

    def rows_still_valid() -> None:
        try:
            engine.check_states(envs.states.copy())
        except TabletopZooError as exc:  # not a refusal: the env broke its own rows
            raise AssertionError(f"the vector env left a bad row: {exc}") from None

    for _ in range(20):
        actions = envs.sample_legal_actions()
        if rng.random() < 0.5:  # half the steps legal, so that the games move on
            actions = bad_actions(rng, actions, engine.num_actions)
        tally.call("vector step", lambda a=actions: envs.step(a))
        tally.call("vector rows still valid", rows_still_valid)


def run(rounds: int, seed: int) -> Tally:
    """The fuzz (see the module docstring)."""
    rng = np.random.default_rng(seed)
    tally = Tally()
    engines = [engine_of(*config) for config in CONFIGS]
    pools = [played_rows(engine, 16, 40, seed) for engine in engines]
    for _ in range(rounds):
        for index, engine in enumerate(engines):
            pool = pools[index]
            foreign = [p[int(rng.integers(len(p)))] for j, p in enumerate(pools) if j != index]
            rows = np.stack([mutate(pool[int(rng.integers(len(pool)))], rng, foreign)
                             for _ in range(4)])  # fmt: skip
            fuzz_batch(engine, rows, rng, tally)
            fuzz_batch(engine, np.concatenate([pool[:3], rows[:1]]), rng, tally)
            for row in rows[:2]:
                fuzz_view(engine, row, rng, tally)
            fuzz_view(engine, pool[int(rng.integers(len(pool)))], rng, tally)
            other = pools[(index + 1) % len(pools)]
            tally.call("foreign rows", lambda e=engine, o=other: e.legal_mask(o.copy()))
            fuzz_vector(engine, rng, tally)
    for engine, pool in zip(engines, pools, strict=True):
        fuzz_shapes(engine, pool[:4].copy(), tally)
    return tally


def main(argv: list[str] | None = None) -> int:
    """Entry point: 0 if every call returned or raised our error, 2 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="rounds per configuration")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tally = run(args.rounds, args.seed)
    print(f"calls {tally.calls} refused {tally.refused} failures {len(tally.failures)}")
    for failure in tally.failures[:5]:
        print(failure)
    return 2 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
