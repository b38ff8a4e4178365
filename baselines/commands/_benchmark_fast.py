"""The fast-path rows of ``tabletop-zoo benchmark`` (the ``fast`` extra; see docs/fast.md)
with pgx / OpenSpiel anchors, and the measuring every row shares (:func:`measure`).
Importing it imports no numba; the rows do."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_zoo.envs.extras import install_command
from tabletop_zoo.envs.registry import GAMES, new_game

if TYPE_CHECKING:
    from tabletop_zoo.envs.compiled.protocol import FastEngine

BATCH_SIZES = (1, 64, 1024, 4096)
VECTOR_SIZES = (64, 1024)
MCTS_SIMULATIONS = 200


def _fast_plan() -> Iterator[tuple[str, str, str, int, Any]]:
    """``(name, kind, game, players, size)`` of every fast-path row of our games, in table
    order (``size``: the batch size and threads, the batch size, or compiled MCTS or not)."""
    for spec in GAMES.values():
        for n in spec.benchmark_players if spec.fast_engine is not None else ():
            label = spec.label(n)
            yield f"{label} compiled", "compiled", spec.name, n, None
            for batch, threads in [(b, 1) for b in BATCH_SIZES] + [(BATCH_SIZES[-1], 2)]:
                name = f"{label} batched B={batch}" + (f" threads={threads}" if threads > 1 else "")
                yield name, "batched", spec.name, n, (batch, threads)
            for batch in VECTOR_SIZES:
                yield f"{label} vector B={batch}", "vector", spec.name, n, batch
            for how in ("python", "compiled"):
                yield f"{label} mcts({MCTS_SIMULATIONS}) {how}", "mcts", spec.name, n, how


PGX_GAMES = ("connect_four", "go_9x9")
SPIEL_GAMES = ("connect_four", "go(board_size=9)")


def timed(run_once: Callable[[int], tuple[int, int]], seconds: float, cpu: bool = True) -> dict:
    """Call ``run_once(call_number) -> (steps, games)`` until ``seconds`` have passed; the
    totals and rates. ``cpu``: also the CPU time of this process (all threads) and steps per
    CPU second: on a shared machine the wall-clock rate understates single-thread speed."""
    steps = games = calls = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        done_steps, done_games = run_once(calls)
        steps, games, calls = steps + done_steps, games + done_games, calls + 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    result = {
        "steps": steps,
        "games": games,
        "seconds": round(elapsed, 4),
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "steps_per_game": steps / max(games, 1),
    }
    if cpu:
        used = time.process_time() - cpu_start
        result.update(cpu_seconds=round(used, 4), steps_per_cpu_s=steps / used if used else None)
    return result


def measure_batched(
    engine: FastEngine, batch: int, seconds: float, seed: int, threads: int
) -> dict:
    """Random play inside compiled code on ``batch`` games until ``seconds`` have passed."""
    per_call = max(20, 400_000 // batch)  # steps per game per call: ~0.1-1 s a call
    parallel = threads > 1
    engine.random_play(batch, 2, seed, parallel)  # compile / load the cache, untimed
    result = timed(lambda k: engine.random_play(batch, per_call, seed + k, parallel), seconds)
    return {**result, "threads": threads}


def measure_vector(game: str, n: int, batch: int, seconds: float, seed: int) -> dict:
    """Learner steps/s of the vector env: random learner actions, random opponents inside."""
    from tabletop_zoo.wrappers.vector import make_vector_env

    envs = make_vector_env(game, batch, n, opponent="random", seed=seed)
    envs.reset()
    for _ in range(3):  # compile / load the cache, untimed
        envs.step(envs.sample_legal_actions())

    def step(_call: int) -> tuple[int, int]:
        _obs, _rewards, terminated, truncated, _infos = envs.step(envs.sample_legal_actions())
        return batch, int((terminated | truncated).sum())

    return timed(step, seconds)


def measure_mcts(game: str, n: int, fast: bool, seconds: float, seed: int) -> dict:
    """Seconds per MCTS(200) decision from positions a few random plies into games."""
    from tabletop_zoo.baselines.agents.search import MCTSAgent

    rng = np.random.default_rng(seed)
    agent = MCTSAgent(MCTS_SIMULATIONS, seed=seed, fast=fast)

    def decide(_call: int) -> tuple[int, int]:
        while True:  # a live position a few random plies into a game
            state = new_game(game, n).new_initial_state(int(rng.integers(2**31)))
            for _ in range(int(rng.integers(2, 12))):
                if state.is_terminal():
                    break
                state.apply_action(int(rng.choice(state.legal_actions())))
            if not state.is_terminal():
                break
        mask = np.zeros(max(state.legal_actions()) + 1, dtype=bool)
        mask[state.legal_actions()] = True
        agent.act(None, mask, state)
        return 1, 1  # every decision in a game of its own: "games" counts positions

    if fast:
        decide(-1)  # loads the compiled code, untimed
    result = timed(decide, seconds)
    moves = result["steps"]
    return {
        **result,
        "games_per_s": 0.0,
        "steps_per_game": 0.0,
        "seconds_per_move": result["seconds"] / moves,
        "simulations": MCTS_SIMULATIONS,
        "cpu_seconds_per_move": result["cpu_seconds"] / moves,
    }


def fast_rows(seconds: float, seed: int, only: list[str] | None) -> tuple[list[dict], list[str]]:
    """The fast-path rows (see the module docstring); notes say what was skipped."""
    from tabletop_zoo.envs.registry import fast_engine, fast_path_available

    def wanted(name: str) -> bool:
        return only is None or only == ["batched"] or any(o in name for o in only)

    if not fast_path_available():
        return [], [f"skipped the fast-path rows: numba missing ({install_command('fast')})"]
    rows: list[dict] = []
    for name, kind, game, n, size in _fast_plan():
        if not wanted(name):
            continue
        if kind == "compiled":
            result = measure(
                functools.partial(play_engine_game, fast_engine(game, n)), seconds, seed
            )
        elif kind == "batched":
            result = measure_batched(fast_engine(game, n), size[0], seconds, seed, size[1])
        elif kind == "vector":
            result = measure_vector(game, n, size, seconds, seed)
        else:
            result = measure_mcts(game, n, size == "compiled", seconds, seed)
        rows.append({"name": name, "kind": kind, **result})
        python = rows[-2] if len(rows) > 1 else {}
        if size == "compiled" and python.get("name") == name.replace("compiled", "python"):
            rows[-1]["speedup"] = python["seconds_per_move"] / result["seconds_per_move"]
    notes: list[str] = []  # the anchors: pgx (batched, jit) and OpenSpiel random play
    pgx_games = [game for game in PGX_GAMES if wanted(f"pgx {game} batched B=1024")]
    spiel_games = [game for game in SPIEL_GAMES if wanted(f"open_spiel {game} (python loop)")]
    for games, library, measure_rows in (
        (pgx_games, "pgx", _pgx_rows),
        (spiel_games, "open_spiel", _spiel_rows),
    ):
        if not games:
            continue
        try:
            rows += measure_rows(games, seconds, seed)
        except ImportError as exc:
            notes.append(f"skipped the {library} rows: {exc}")
    return rows, notes


def _pgx_rows(games: list[str], seconds: float, seed: int) -> list[dict]:
    """pgx's batched random play of ``games`` (1,024 at once, jit); ImportError without pgx."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    def row(game: str) -> dict:
        env = pgx.make(game)
        step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

        @jax.jit
        def random_step(state: Any, key: Any) -> Any:
            act_key, step_key = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(act_key, logits, axis=-1)
            return step(state, action, jax.random.split(step_key, 1024))

        key = jax.random.PRNGKey(seed)
        state = jax.jit(jax.vmap(env.init))(jax.random.split(key, 1024))
        state = random_step(state, key)  # compile, untimed
        jax.block_until_ready(state)

        def play_20_steps(_call: int) -> tuple[int, int]:
            nonlocal key, state
            finished = jnp.zeros((), dtype=jnp.int32)
            for _ in range(20):
                key, sub = jax.random.split(key)
                state = random_step(state, sub)
                finished += state.terminated.sum()  # auto_reset keeps the flag
            jax.block_until_ready(state)
            return 20 * 1024, int(finished)

        result = timed(play_20_steps, seconds, cpu=False)
        return {"name": f"pgx {game} batched B=1024", "kind": "batched", **result}

    return [row(game) for game in games]


def _spiel_rows(games: list[str], seconds: float, seed: int) -> list[dict]:
    """OpenSpiel's random play of ``games`` through its Python API; ImportError without it."""
    import pyspiel

    rows = []
    for game in games:
        spiel_game = pyspiel.load_game(game)

        def play(rng: np.random.Generator, _seed: int, g: Any = spiel_game) -> int:
            state, steps = g.new_initial_state(), 0
            while not state.is_terminal():
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                steps += 1
            return steps

        name = f"open_spiel {game} (python loop)"
        rows.append({"name": name, "kind": "env", **measure(play, seconds, seed)})
    return rows


def play_engine_game(engine: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game on the bare rules engine; returns the number of actions applied."""
    state = engine.new_initial_state(seed=seed)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        steps += 1
    return steps


def measure(play_one: Callable[[np.random.Generator, int], int], seconds: float, seed: int) -> dict:
    """Play games until ``seconds`` have passed; steps/s and games/s."""
    rng = np.random.default_rng(seed)
    play_one(rng, seed)  # warm-up, untimed
    return timed(lambda k: (play_one(rng, seed + 1 + k), 1), seconds, cpu=False)


FAST_ROW_NAMES = [name for name, *_ in _fast_plan()]
FAST_ROW_NAMES += [f"pgx {game} batched B=1024" for game in PGX_GAMES]
FAST_ROW_NAMES += [f"open_spiel {game} (python loop)" for game in SPIEL_GAMES]
"""Names of the fast-path rows (listing them imports no numba)."""
