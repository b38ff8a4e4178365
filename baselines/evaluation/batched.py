"""The batched arena: many games of a match at once on a game's compiled engine.

:func:`~.arena.play_tasks` hands the games whose every seat :func:`acts_on_rows` to
:class:`LockstepGames` (when :func:`compiled_engine` can play them), the others to
:func:`~.arena.play_game`, with the same records: the same start (``env.reset(seed)`` as a
row), agents made and seeded alike, the same random opening, each decision
``act(None, mask, state)`` on the game's row, truncation and scores as the env's. Live
games share one compiled ``legal_mask`` and ``step`` per round (at most :data:`SLOTS`);
``TABLETOP_ZOO_BATCH=0`` keeps every game serial.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import spec_of
from tabletop_zoo.envs.results import final_result

#: Environment variable that keeps every game of a match on the serial path (``0``), e.g.
#: to measure the batched arena against it; the agents still search on the compiled engine.
BATCH_SWITCH = "TABLETOP_ZOO_BATCH"

SLOTS = 64  # games played at once by one LockstepGames


def opening_generator(seed: int | None) -> np.random.Generator:
    """The generator of a game's random opening actions, seeded by the game's seed: the
    serial arena (:func:`~.arena.play_game`) and the batched one draw the same openings."""
    return np.random.default_rng(None if seed is None else [seed, 0x09E1])


Outcome = tuple[list[float], list[int], list[int]]  # returns, scores, moves


def batch_switch_on() -> bool:
    """Whether the batched arena may be used: ``TABLETOP_ZOO_BATCH`` is not ``0`` (a value
    other than ``0``, ``1`` or empty is an ``InvalidOptionError``)."""
    switch = os.environ.get(BATCH_SWITCH, "").strip()
    if switch not in ("", "0", "1"):
        raise InvalidOptionError(f"{BATCH_SWITCH} must be 0 (off) or 1 (on), got {switch!r}")
    return switch != "0"


def compiled_engine(env: Any) -> Any | None:
    """The compiled batched engine playing the configuration of ``env`` (its Game object and
    its ``max_turns``), or ``None`` when the batched path cannot play it (no compiled engine,
    an option the compiled engine does not take, a Python whose ``random`` draws differ from
    the compiled stream); the caller checks that the fast path and the batch switch are on."""
    spec = spec_of(env.unwrapped.engine)
    if spec.fast_engine is None:
        return None
    engine_class = spec.fast_engine_class()
    from tabletop_zoo.envs.fast_random import matches_python  # numba is loaded by now

    if not matches_python():
        return None
    max_turns = getattr(env.unwrapped, "max_turns", None)
    try:
        options = {} if max_turns is None else {"max_turns": max_turns}
        return engine_class(env.unwrapped.engine, **options)
    except InvalidOptionError:  # e.g. a turn limit the compiled engine does not keep
        return None


def acts_on_rows(agent: Any) -> bool:
    """Whether ``agent`` can act on a compiled one-row state without observation planes
    (``acts_on_compiled_state`` and not ``reads_observation``)."""
    on_rows = getattr(agent, "acts_on_compiled_state", False)
    return bool(on_rows) and not getattr(agent, "reads_observation", True)


class LockstepGames:
    """Play games of one env configuration in lockstep on ``engine`` (:func:`compiled_engine`
    of ``env``, an AEC env of the configuration whose ``reset(seed)`` makes each game's first
    position), as the module docstring says."""

    def __init__(self, env: Any, engine: Any) -> None:
        self.env = env
        self.engine = engine
        self.wrap = type(engine.new_initial_state())  # the one-row state class

    def play(
        self,
        games: Iterable[tuple[Any, list[Any], int, int]],
        reset_agents: Callable[[list[Any], int], None],
    ) -> Iterator[tuple[Any, Outcome]]:
        """Yield ``(key, (returns, scores, moves))`` for every ``(key, agents, seed,
        random_opening)`` of ``games`` as it finishes (``agents`` made as
        :func:`~.arena.play_task` makes them, seeded by ``reset_agents(agents, seed)``)."""
        engine, wrap = self.engine, self.wrap
        pending = iter(games)
        states: np.ndarray | None = None
        live: list[Any] = [None] * SLOTS  # per slot: [key, agents, moves, opening, rng]
        active = np.zeros(SLOTS, dtype=bool)
        actions = np.zeros(SLOTS, dtype=np.int64)
        while True:
            free = np.flatnonzero(~active).tolist()  # filled in schedule order
            for slot, (key, agents, seed, opening) in zip(free, pending, strict=False):
                reset_agents(agents, seed)
                self.env.reset(seed=seed)  # the game's first position, as a compiled row
                row = engine.from_state(self.env.unwrapped.game_state)
                if states is None:
                    states = np.repeat(row[None], SLOTS, axis=0)
                states[slot] = row
                live[slot] = [key, agents, [], opening, opening_generator(seed)]
                active[slot] = True
            if states is None or not active.any():
                return
            masks = engine._legal_mask(states)  # rows made by the engine: no re-check
            players = states[:, engine.player_column]
            for slot in np.flatnonzero(active).tolist():
                _key, agents, moves, opening, rng = live[slot]
                if len(moves) < opening:
                    actions[slot] = int(rng.choice(np.flatnonzero(masks[slot])))
                else:
                    view = wrap(engine, states[slot], trusted=True)
                    actions[slot] = int(agents[players[slot]].act(None, masks[slot], view))
                moves.append(int(actions[slot]))
            result = engine._step(states, actions, autoreset=False, active=active)
            for slot in np.flatnonzero(result.terminated | result.truncated).tolist():
                key, _agents, moves, _opening, _rng = live[slot]
                active[slot] = False
                yield key, (*final_result(wrap(engine, states[slot], trusted=True)), moves)
