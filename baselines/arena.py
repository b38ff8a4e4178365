"""The arena: build one of our AEC envs and play a full game between agents.

Example::

    from tabletop_zoo.baselines import make_agent
    from tabletop_zoo.baselines.arena import make_env, play_game

    env = make_env("mole_hill")
    result = play_game(env, [make_agent("greedy", seed=1), make_agent("random", seed=2)], seed=0)
    print(result.returns, result.scores, result.num_steps)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents import Agent, returns_from_scores
from tabletop_zoo.envs.errors import InvalidOptionError

__all__ = ["GAMES", "GameResult", "make_env", "play_game"]

GAMES = ("mole_hill", "arktia")


@dataclass
class GameResult:
    """The outcome of one game, per seat (seat i = ``agents[i]`` = ``player_i``).

    ``returns``: +1 sole top scorer, 0 tied top, -1 others (the engine's
    ``returns()``; a truncated game is scored by the position as it stands).
    ``scores``: the engine's final scores. ``num_steps``: actions taken.
    """

    returns: list[float]
    scores: list[int]
    num_steps: int


def make_env(game: str, num_players: int = 2, render_mode: str | None = None, **env_kwargs: Any):
    """A raw AEC env of ours: ``mole_hill_v0.raw_env`` or ``arktia_v0.raw_env``.

    ``game`` is one of :data:`GAMES`. Mole Hill is a 2-player game only; Arktia takes
    2-4 players. Extra keyword arguments are env options (``layout``, ``reward_mode``...).
    """
    if game == "mole_hill":
        if num_players != 2:
            raise InvalidOptionError(
                f"mole_hill is a 2-player game; got num_players={num_players!r}"
            )
        from tabletop_zoo.envs import mole_hill_v0

        return mole_hill_v0.raw_env(render_mode=render_mode, **env_kwargs)
    if game == "arktia":
        from tabletop_zoo.envs import arktia_v0

        return arktia_v0.raw_env(num_players=num_players, render_mode=render_mode, **env_kwargs)
    raise InvalidOptionError(f"unknown game {game!r}; allowed: {', '.join(GAMES)}")


def agent_seeds(seed: int | None, count: int) -> list[int | None]:
    """``count`` independent seeds derived from ``seed`` (all ``None`` if it is ``None``)."""
    if seed is None:
        return [None] * count
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count)]


def play_game(
    env: Any,
    agents: Sequence[Agent],
    seed: int | None = None,
    on_step: Callable[[Any, int, int], None] | None = None,
) -> GameResult:
    """Play one full game on ``env`` (an AEC env of ours); ``agents[i]`` plays seat i.

    ``seed`` seeds ``env.reset`` and re-seeds every agent that has a ``reset(seed)``
    method, so a seeded game is reproducible. ``on_step(env, seat, action)`` is called
    after every action is applied (e.g. to render or record the game).
    """
    names = list(env.possible_agents)
    if len(agents) != len(names):
        raise ValueError(
            f"this env has {len(names)} seats ({', '.join(names)}) but {len(agents)} agents "
            "were given; pass exactly one agent per seat"
        )
    seat_of = {name: i for i, name in enumerate(names)}
    for agent, agent_seed in zip(agents, agent_seeds(seed, len(agents)), strict=True):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(seed=agent_seed)
    env.reset(seed=seed)
    num_steps = 0
    for name in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = seat_of[name]
        action = int(agents[seat].act(obs["observation"], obs["action_mask"], env.unwrapped.game))
        env.step(action)
        num_steps += 1
        if on_step is not None:
            on_step(env, seat, action)
    state = env.unwrapped.game
    scores = [int(s) for s in state.scores()]
    returns = list(state.returns()) if state.is_terminal() else returns_from_scores(scores)
    return GameResult(returns=[float(r) for r in returns], scores=scores, num_steps=num_steps)
