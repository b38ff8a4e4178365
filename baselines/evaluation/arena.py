"""The arena: play one full game between agents on one of our AEC envs::

    env = make_env(game)  # a name of tabletop_zoo.envs.registry.GAMES
    result = play_game(env, [make_agent("greedy", seed=1), make_agent("random", seed=2)], seed=0)
    print(result.returns, result.scores, result.num_steps)

Every match of the evaluation layer and the terminal game of ``play`` is a :func:`play_game`
call. :func:`play_tasks` plays a schedule's games (:data:`GameTask`) in this process or in
worker processes, :func:`play_on_ray` as Ray tasks, with the same results: every game and
agent is seeded from the task, and an agent that loads a model is built once per process
(:func:`seeded_agent`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents import Agent, make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_fits
from tabletop_zoo.baselines.agents.threads import end_with_parent, limit_threads
from tabletop_zoo.baselines.evaluation.batched import (
    LockstepGames,
    acts_on_rows,
    batch_switch_on,
    compiled_engine,
    opening_generator,
)
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.protocol import EngineState
from tabletop_zoo.envs.registry import fast_path_available, make_raw_env
from tabletop_zoo.envs.results import final_result

MODEL_KINDS = ("ppo", "rllib", "az", "ref", "py")  # agents that load a model: one per process
INTERACTIVE_SPECS = ("human",)  # agents that wait for a person: not for automatic matches

GameTask = tuple[str, int, dict[str, Any], list[Any], int, int, bool]
"""One game to play: ``(game, num_players, env_options, agent spec per seat, game_seed,
random_opening, trust)``; a seat may hold an agent object (played in this process only);
``trust`` (``make_agent``'s) may be left out."""


class IncompleteRunError(RuntimeError):
    """Worker processes of a parallel match died (killed, out of memory; one that played a
    dead one's games again too) before every game was played. ``result``: the games played
    until then (the match's result object, its ``incomplete`` field saying why), for the
    caller to keep; ``None`` from :func:`play_tasks` itself."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class GameResult:
    """The outcome of one game, per seat (seat i = ``agents[i]`` = ``player_i``): ``returns``
    +1 sole top scorer, 0 tied top, -1 others (a truncated game is scored by the position
    as it stands), the engine's final ``scores``, ``num_steps`` actions taken: ``moves``."""

    returns: list[float]
    scores: list[int]
    num_steps: int
    moves: list[int] = field(default_factory=list)


make_env = make_raw_env
"""The raw AEC env of ``game`` (``num_players``: the game's smallest count by default);
bad values or env options raise ``InvalidOptionError`` naming what is allowed."""


def live_state(env: Any) -> EngineState:
    """The live rules-engine state of an AEC env: ``env.unwrapped.game_state``."""
    return env.unwrapped.game_state


def agent_seeds(seed: int | None, count: int) -> list[int | None]:
    """``count`` independent seeds derived from ``seed`` (all ``None`` if it is ``None``)."""
    if seed is None:
        return [None] * count
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count)]


def check_random_opening(value: Any) -> None:
    """Refuse a ``random_opening`` that is not an integer >= 0 (``InvalidOptionError``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidOptionError(f"random_opening must be an integer >= 0, got {value!r}")


def _seat_agents(env: Any, agents: Sequence[Agent], seed: int | None) -> None:
    """Refuse an agent holding a model made for another game than ``env``'s, and re-seed
    every agent that has a ``reset(seed)`` from the game's ``seed``."""
    for agent, agent_seed in zip(agents, agent_seeds(seed, len(agents)), strict=True):
        check_agent_fits(agent, env)
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(seed=agent_seed)


def play_game(
    env: Any,
    agents: Sequence[Agent],
    seed: int | None = None,
    on_step: Callable[[Any, int, int], None] | None = None,
    on_start: Callable[[Any], None] | None = None,
    random_opening: int = 0,
) -> GameResult:
    """Play one full game on ``env`` (an AEC env of ours); ``agents[i]`` plays seat i.
    ``seed`` seeds ``env.reset`` and the agents (:func:`_seat_agents`): a seeded game is
    reproducible. The first ``random_opening`` actions are random legal ones (seeded by
    ``seed``), so that deterministic agents in a game without chance do not play the same
    game over and over. ``on_start(env)`` runs after the reset, ``on_step(env, seat,
    action)`` after every action (e.g. to render or record the game)."""
    names = list(env.possible_agents)
    if len(agents) != len(names):
        raise ValueError(
            f"this env has {len(names)} seats ({', '.join(names)}) but {len(agents)} agents "
            "were given; pass exactly one agent per seat"
        )
    _seat_agents(env, agents, seed)
    check_random_opening(random_opening)
    opening_rng = opening_generator(seed)
    seat_of = {name: i for i, name in enumerate(names)}
    env.reset(seed=seed)
    if on_start is not None:
        on_start(env)
    moves: list[int] = []
    for name in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = seat_of[name]
        if len(moves) < random_opening:
            action = int(opening_rng.choice(np.flatnonzero(obs["action_mask"])))
        else:
            action = int(agents[seat].act(obs["observation"], obs["action_mask"], live_state(env)))
        env.step(action)
        moves.append(action)
        if on_step is not None:
            on_step(env, seat, action)
    returns, scores = final_result(live_state(env))
    return GameResult(returns, scores, len(moves), moves)


# Per-process caches (each worker process of a parallel match has its own).
_ENVS: dict[tuple[str, int, str], Any] = {}
_MODEL_AGENTS: dict[tuple[str, bool], Any] = {}


def seeded_agent(spec: str, seed: int, trust: bool = False) -> Any:
    """The agent of ``spec`` seeded with ``seed`` (``trust``: ``make_agent``'s): a fresh one,
    except agents that load a model (:data:`MODEL_KINDS`), built once per process and spec
    (:func:`play_game` re-seeds every agent anyway). ``human`` is refused."""
    if spec.strip().lower() in INTERACTIVE_SPECS:
        raise InvalidOptionError(
            f"agent spec {spec!r} waits for a person at the terminal: it plays only in "
            "scripts/play.py, not in automatic matches"
        )
    if spec.strip().partition(":")[0].lower() in MODEL_KINDS:
        if (spec, trust) not in _MODEL_AGENTS:
            _MODEL_AGENTS[spec, trust] = make_agent(spec, seed=seed, trust=trust)
        return _MODEL_AGENTS[spec, trust]
    return make_agent(spec, seed=seed)


def forget_model_agents() -> None:
    """Drop this process's model agents (a model file may have changed since)."""
    _MODEL_AGENTS.clear()


def _task_env(task: GameTask) -> tuple[tuple[str, int, str], Any]:
    """The key of a task's env configuration and this process's env of it."""
    game, num_players, env_options = task[0], task[1], task[2]
    key = (game, num_players, repr(sorted(env_options.items())))  # options may be unhashable
    if key not in _ENVS:
        _ENVS[key] = make_env(game, num_players=num_players, **env_options)
    return key, _ENVS[key]


def _task_agents(task: GameTask) -> list[Any]:
    """The agents of a task, made and seeded from its seed (objects are taken as they are)."""
    seat_specs, game_seed = task[3], task[4]
    trust = bool(task[6]) if len(task) > 6 else False
    seeds = np.random.SeedSequence(game_seed).generate_state(len(seat_specs))
    return [
        seeded_agent(spec, int(s), trust) if isinstance(spec, str) else spec
        for spec, s in zip(seat_specs, seeds, strict=True)
    ]


def play_task(task: GameTask) -> tuple[list[float], list[int], list[int]]:
    """Play one :data:`GameTask`; return ``(returns, scores, moves)``."""
    _key, env = _task_env(task)
    result = play_game(env, _task_agents(task), seed=task[4], random_opening=task[5])
    return list(result.returns), list(result.scores), result.moves


_LOCKSTEP: dict[tuple[str, int, str], Any] = {}  # env key -> LockstepGames or None
_ROW_AGENTS: dict[tuple[str, bool], tuple[bool, bool]] = {}  # see _spec_on_rows
#: Fewer games than this are batched only if numba is loaded or an agent loads it anyway
#: (a few random games are not worth the seconds of loading the compiled engine).
MIN_BATCH = 200


def _spec_on_rows(spec: Any, trust: bool) -> tuple[bool, bool]:
    """Whether the agent of a spec plays in the batched arena (objects never: one object
    may sit in several games at once), and whether it searches on the compiled engine
    anyway (``fast``, e.g. greedy and MCTS)."""
    if not isinstance(spec, str):
        return False, False
    kind = spec.strip().partition(":")[0].lower()
    if kind in MODEL_KINDS or spec.strip().lower() in INTERACTIVE_SPECS:
        return False, False
    if (spec, trust) not in _ROW_AGENTS:
        agent = seeded_agent(spec, 0, trust)
        _ROW_AGENTS[spec, trust] = acts_on_rows(agent), bool(getattr(agent, "fast", False))
    return _ROW_AGENTS[spec, trust]


def _batch_of(tasks: Sequence[GameTask]) -> tuple[Any, list[int]]:
    """The :class:`~.batched.LockstepGames` and the indices of the tasks it plays: every
    seat an agent spec that acts on compiled rows, the env configuration of the first such
    task, worth the compiled engine's loading (:data:`MIN_BATCH`); ``(None, [])`` if none."""
    if not (fast_path_available() and batch_switch_on()):  # read on every call
        return None, []
    candidates, compiled = [], "numba" in sys.modules
    for index, task in enumerate(tasks):
        trust = bool(task[6]) if len(task) > 6 else False
        seats = [_spec_on_rows(spec, trust) for spec in task[3]]
        if task[4] is not None and all(on_rows for on_rows, _fast in seats):
            candidates.append(index)  # (an unseeded game draws from the system)
            compiled = compiled or any(fast for _on_rows, fast in seats)
    if not candidates or not (compiled or len(candidates) >= MIN_BATCH):
        return None, []
    key, env = _task_env(tasks[candidates[0]])
    if key not in _LOCKSTEP:
        engine = compiled_engine(env)
        _LOCKSTEP[key] = None if engine is None else LockstepGames(env, engine)
    batch = [i for i in candidates if _task_env(tasks[i])[0] == key]
    for i in batch:
        check_random_opening(tasks[i][5])
    return _LOCKSTEP[key], batch


def _play_as_finished(tasks: Sequence[GameTask]) -> Iterator[tuple[int, tuple]]:
    """``(index, play_task(task))`` of every task as it finishes, the games that can be
    batched (:func:`_batch_of`) played in lockstep on the compiled engine (:mod:`.batched`)
    after the others."""
    lockstep, batch = _batch_of(tasks)
    members = set(batch) if lockstep is not None else set()  # None: no compiled engine
    for index, task in enumerate(tasks):
        if index not in members:
            yield index, play_task(task)
    if lockstep is not None:
        games = ((i, _task_agents(tasks[i]), tasks[i][4], tasks[i][5]) for i in batch)
        # closing this generator closes the lockstep one too (yield from)
        yield from lockstep.play(games, functools.partial(_seat_agents, lockstep.env))


def _play_chunk(tasks: Sequence[GameTask]) -> list[tuple[int, tuple]]:
    """A worker process's share of a match: :func:`_play_as_finished` of consecutive tasks."""
    return list(_play_as_finished(tasks))


def _pool_worker_start() -> None:
    """Process pool initialiser: Ctrl-C is the parent's to handle (it stops the pool and
    says so in one line), so workers ignore SIGINT; one torch thread each; a worker ends
    with its parent."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_threads()  # the network agents limit torch's threads again when they load it
    end_with_parent()


def play_tasks(tasks: Sequence[GameTask], workers: int = 1) -> Iterator[tuple[int, tuple]]:
    """Yield ``(index, play_task(tasks[index]))`` for every task as its game finishes (games
    that can be batched many at once, :func:`_play_as_finished`), in this process
    (``workers=1``) or in ``workers`` spawned processes (one torch thread each, runs of up to
    :data:`CHUNK` tasks) that closing the generator shuts down. A worker process that dies
    has its games played again in new processes; if one of those dies too,
    :class:`IncompleteRunError` follows."""
    if workers == 1:
        yield from _play_as_finished(tasks)
        return
    from concurrent.futures.process import BrokenProcessPool

    played: set[int] = set()
    for attempt in range(2):
        left = [i for i in range(len(tasks)) if i not in played]
        outcomes = _play_in_pool([tasks[i] for i in left], workers)
        try:
            for k, outcome in outcomes:
                played.add(left[k])
                yield left[k], outcome
            return
        except BrokenProcessPool:
            if attempt:
                raise IncompleteRunError(
                    "worker processes died twice (killed or out of memory) before every game "
                    "was played"
                ) from None
        finally:
            outcomes.close()


CHUNK = 32  # the most games a worker process plays before it hands them back


def _play_in_pool(tasks: Sequence[GameTask], workers: int) -> Iterator[tuple[int, tuple]]:
    """:func:`play_tasks` in one pool of ``workers`` processes; ``BrokenProcessPool`` when
    one of them dies."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_pool_worker_start
    )
    played_all = False
    try:
        size = max(1, min(CHUNK, len(tasks) // (4 * workers)))
        starts = {
            pool.submit(_play_chunk, tasks[i : i + size]): i for i in range(0, len(tasks), size)
        }
        for future in as_completed(starts):
            for k, outcome in future.result():
                yield starts[future] + k, outcome
        played_all = True
    finally:
        if not played_all:
            # stopped early (closed, Ctrl-C, a worker died): a killed worker may have died
            # holding the task queue's lock, and the others would wait for it forever
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
        pool.shutdown(cancel_futures=True)


def _ray_game(task: GameTask) -> tuple[list[float], list[int], list[int]]:
    """:func:`play_task` inside a Ray worker (one torch thread, like the process pool)."""
    limit_threads()
    return play_task(task)


def play_on_ray(
    tasks: Sequence[GameTask], address: str | None = None
) -> Iterator[tuple[int, tuple]]:
    """:func:`play_tasks` as Ray tasks, one per game, in task order (extra ``rllib``): the
    same outcomes, as every game and agent is seeded from its task. Starts a local Ray
    instance (``address=None``) or joins a cluster (``"auto"`` or ``"ray://host:10001"``;
    every node needs this package installed, the same version: docs/ecosystem.md) unless
    Ray is already initialised, and shuts down only what it started."""
    require_extra("rllib", "the Ray tournament backend", ("ray",))
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(_ray_game)
        refs = [remote.remote(task) for task in tasks]  # Ray spreads them over the free CPUs
        for index, ref in enumerate(refs):
            yield index, ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished worker processes
    (:func:`play_tasks` with ``workers > 1``): the honest cost of a match."""
    import resource
    import time

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
