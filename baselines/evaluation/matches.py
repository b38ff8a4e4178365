"""The match model: a schedule of seatings, played into one record per game.

Every match of the evaluation layer is a list of :class:`Seating` (agents by seat, seed,
random opening) played by :func:`play_seatings` into :class:`MatchRecord` (seats, returns,
scores, steps, seed). What a match reports is a *view* of its records alone (tournaments,
seated matches, a training evaluation, the ladder), so it does not matter where the games
were played (this process, workers, Ray, the batched arena). The argument checks every
match shares live here once (:func:`check_match`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any, TypeVar

from tabletop_zoo.baselines.agents import absolute_spec
from tabletop_zoo.baselines.agents.checks import check_agent_fits, check_seed
from tabletop_zoo.baselines.evaluation.arena import (
    IncompleteRunError,
    check_random_opening,
    forget_model_agents,
    make_env,
    play_on_ray,
    play_tasks,
    seeded_agent,
)
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import get_spec

BACKENDS = ("local", "ray")  # where the games of a match are played


@dataclass(frozen=True)
class Seating:
    """One scheduled game: ``agents[s]`` is the index (into the match's agent list) of the
    agent in seat ``s``; ``seed`` seeds the game and its agents; the first
    ``random_opening`` actions are random legal actions (:func:`~.arena.play_game`)."""

    agents: tuple[int, ...]
    seed: int
    random_opening: int = 0


@dataclass(frozen=True)
class MatchRecord:
    """One played game, per seat (seat i = ``player_i``): the agent (index into the match's
    agent list) and its name, ``returns`` (+1 sole top scorer, 0 tied top, -1 others), the
    engine's final ``scores``; ``steps`` taken, the actions in order (``moves``; empty in a
    record made before moves were kept); ``seed`` and ``random_opening`` set it up
    (replaying the seating, or the moves on an env reset with ``seed``, gives the same game)."""

    game: str
    num_players: int
    agents: tuple[int, ...]
    seats: tuple[str, ...]
    returns: tuple[float, ...]
    scores: tuple[int, ...]
    steps: int
    seed: int
    random_opening: int = 0
    moves: tuple[int, ...] = ()


def check_count(value: Any, what: str) -> None:
    """Refuse a count (games, rounds, workers) that is not an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOptionError(f"{what} must be an integer >= 1, got {value!r}")
    if value < 1:
        raise InvalidOptionError(f"{what} must be >= 1, got {value!r}")


def _agent_name(agent: Any) -> str:
    return agent if isinstance(agent, str) else type(agent).__name__


def check_match(
    game: str,
    num_players: int | None,
    agents: Sequence[Any],
    seed: Any = 0,
    random_opening: Any = 0,
    counts: Mapping[str, Any] | None = None,
    workers: Any = 1,
    env_options: Mapping[str, Any] | None = None,
    backend: str = "local",
    names: Sequence[str] | None = None,
    trust: bool = False,
) -> int:
    """Before a game is played, check the game, each of ``counts`` (``{"games per pairing":
    games}``) and ``workers`` (integers >= 1), ``seed``, ``random_opening``, ``backend``, the
    player count and env options (by making the env), and that every agent (a spec, loaded
    with ``trust``, or an object; named by ``names`` in messages) can play this game, raising
    ``InvalidOptionError`` naming what is allowed; return the player count."""
    if backend not in BACKENDS:
        raise InvalidOptionError(f"backend must be one of {BACKENDS}, got {backend!r}")
    spec = get_spec(game)  # InvalidOptionError listing the games
    players = spec.default_players if num_players is None else num_players
    for what, value in {**(counts or {}), "workers": workers}.items():
        check_count(value, what)
    check_seed(seed)
    check_random_opening(random_opening)
    env = make_env(game, num_players=players, **dict(env_options or {}))  # bad count/options
    forget_model_agents()  # a model file may have changed since an earlier call
    labels = list(names) if names is not None else [_agent_name(a) for a in agents]
    for agent, label in zip(agents, labels, strict=True):
        # a bad spec (listing the forms), model path or model for another game: fail up front
        agent_object = seeded_agent(agent, 0, trust) if isinstance(agent, str) else agent
        check_agent_fits(agent_object, env, label)
    env.close()
    return players


def _check_line_ups(
    agents: Sequence[Any],
    seatings: Sequence[Seating],
    names: Sequence[str] | None,
    num_players: int,
    in_this_process: bool,
) -> list[str]:
    """The agents' names in the records (default: the specs); InvalidOptionError on a
    seating that does not fit the table or on agent objects played outside this process."""
    names = [_agent_name(a) for a in agents] if names is None else list(names)
    if len(names) != len(agents):
        raise InvalidOptionError(f"{len(agents)} agents but {len(names)} names")
    indices = set(range(len(agents)))
    for seating in seatings:
        if len(seating.agents) != num_players or not indices.issuperset(seating.agents):
            raise InvalidOptionError(
                f"line-up {tuple(seating.agents)} needs {num_players} agent indices in "
                f"0..{len(agents) - 1}"
            )
    if not in_this_process and not all(isinstance(a, str) for a in agents):
        raise InvalidOptionError(
            "agent objects play in this process only: pass agent specs to play with "
            "workers > 1 or on Ray"
        )
    return names


def play_seatings(
    game: str,
    num_players: int,
    agents: Sequence[Any],
    seatings: Sequence[Seating],
    names: Sequence[str] | None = None,
    env_options: Mapping[str, Any] | None = None,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    on_game: Callable[[MatchRecord], None] | None = None,
    progress: bool | None = None,
    trust: bool = False,
    log: Any = None,
) -> list[MatchRecord]:
    """Play every seating (arguments checked by :func:`check_match`) and return its
    :class:`MatchRecord`, in schedule order.

    ``agents``: ``make_agent`` specs (loaded with ``trust``) or agent objects (played in
    this process only), ``names`` in the records (default: the specs). ``workers > 1`` plays
    in that many processes, ``backend="ray"`` as Ray tasks (the cluster at ``ray_address``),
    with the same records. ``on_game(record)`` is called as each game finishes; ``log`` (a
    :class:`~.game_log.GameLog`): its games are kept, the others added as they finish.
    ``progress``: a tqdm bar on stderr (``train`` extra; None: if stderr is a terminal and
    tqdm is installed). Worker processes that die raise :class:`~.arena.IncompleteRunError`
    whose ``result`` is the list of records played until then.
    """
    if progress is None:  # automatic: when stderr is a terminal and tqdm is installed
        isatty = getattr(sys.stderr, "isatty", None)
        progress = bool(callable(isatty) and isatty()) and find_spec("tqdm") is not None
    if progress:
        from tabletop_zoo.envs.extras import require_extra

        require_extra("train", "the match progress bar", ("tqdm",))
    in_this_process = workers <= 1 and backend == "local"
    names = _check_line_ups(agents, seatings, names, num_players, in_this_process)
    records = _recorded(log, seatings)
    todo = [slot for slot in range(len(seatings)) if slot not in records]
    options = dict(env_options or {})
    # absolute model paths: a worker process, a Ray worker or RLlib reads them from elsewhere
    paths = [absolute_spec(agent) for agent in agents]
    tasks = [
        (game, num_players, options, [paths[a] for a in s.agents], s.seed, s.random_opening, trust)
        for s in (seatings[slot] for slot in todo)
    ]
    on_ray = backend == "ray"
    stream = outcomes = play_on_ray(tasks, ray_address) if on_ray else play_tasks(tasks, workers)
    if progress:
        from tqdm import tqdm

        stream = tqdm(stream, total=len(tasks), desc="games")
    try:
        for k, (returns, scores, moves) in stream:
            slot, seating = todo[k], seatings[todo[k]]
            records[slot] = MatchRecord(
                game,
                num_players,
                tuple(seating.agents),
                tuple(names[a] for a in seating.agents),
                tuple(float(r) for r in returns),
                tuple(int(s) for s in scores),
                len(moves),
                int(seating.seed),
                seating.random_opening,
                tuple(int(m) for m in moves),
            )
            if log is not None:
                log.add(slot, records[slot])
            if on_game is not None:
                on_game(records[slot])
    except IncompleteRunError as exc:
        message = f"{exc}; {len(records)} of {len(seatings)} games played"
        raise IncompleteRunError(message, [records[s] for s in sorted(records)]) from None
    finally:
        outcomes.close()  # shuts down the worker processes or Ray
    return [records[slot] for slot in range(len(seatings))]


def _recorded(log: Any, seatings: Sequence[Seating]) -> dict[int, MatchRecord]:
    """The games of ``log`` (``None``: none) by slot; ``InvalidOptionError`` if one does not
    fit its seating (another schedule)."""
    records = {} if log is None else log.played()
    for slot, record in records.items():
        seating = seatings[slot] if 0 <= slot < len(seatings) else None
        if seating is None or (record.agents, record.seed) != (seating.agents, seating.seed):
            raise InvalidOptionError(f"{log.path}: game {slot} is not one of this schedule")
    return records


ResultT = TypeVar("ResultT")


def play_into(
    result: ResultT, agents: Sequence[Any], seatings: Sequence[Seating], **options: Any
) -> ResultT:
    """Set ``result.games`` (a view with ``game``, ``num_players``, ``games`` and
    ``incomplete``) to :func:`play_seatings` of ``seatings`` (``options``: its keywords) and
    return ``result``. A worker process that dies: ``result`` holds the games played until
    then, marked ``incomplete``, and the :class:`~.arena.IncompleteRunError` is raised again
    with ``result`` as its result."""
    try:
        result.games = play_seatings(result.game, result.num_players, agents, seatings, **options)
    except IncompleteRunError as exc:
        result.games, result.incomplete = list(exc.result), str(exc)
        raise IncompleteRunError(result.incomplete, result) from None
    return result


def view_fields(
    records: Sequence[MatchRecord], game: str | None, num_players: int | None, view: str
) -> dict[str, Any]:
    """The ``game``, ``num_players``, ``games`` and ``random_opening`` of the ``view`` (e.g.
    "seated view") of ``records``: ``game`` and ``num_players`` unless None, else the first
    record's; the random opening the first record's (0 without records). ValueError when
    there are no records and ``game`` or ``num_players`` is None."""
    if records:
        game = records[0].game if game is None else game
        num_players = records[0].num_players if num_players is None else num_players
    if game is None or num_players is None:
        raise ValueError(f"a {view} of no games needs the game and player count")
    opening = records[0].random_opening if records else 0
    return dict(game=game, num_players=num_players, games=list(records), random_opening=opening)
