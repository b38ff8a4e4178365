"""Checks shared by every entry point that takes agents: does an agent fit the env, is a
seed usable. Each raises :class:`~tabletop_zoo.envs.errors.InvalidOptionError` (a
``ValueError``) saying what was wrong and what is allowed."""

from __future__ import annotations

from typing import Any

from tabletop_zoo.envs._json import short
from tabletop_zoo.envs.errors import InvalidOptionError, as_integer

__all__ = ["SEED_LIMIT", "check_agent_fits", "check_seed"]

SEED_LIMIT = 2**32
"""Seeds are ints in ``0 .. SEED_LIMIT - 1`` (NumPy's legacy global seed, which SB3 uses)."""


def check_agent_fits(agent: Any, env: Any, spec: str | None = None) -> None:
    """Raise if ``agent`` holds a model made for another game or player count.

    Only agents with a ``model`` (PPO) are checked: the model's observation shape and
    number of actions must be the env's (a model trained on one game cannot play another).
    ``env`` is an AEC env of ours (raw or wrapped); ``spec`` names the agent in the message.
    """
    model = getattr(agent, "model", None)
    if model is None:
        return
    first = env.possible_agents[0]
    want_shape = env.observation_space(first)["observation"].shape
    want_actions = env.action_space(first).n
    got_shape = getattr(getattr(model, "observation_space", None), "shape", None)
    got_actions = getattr(getattr(model, "action_space", None), "n", None)
    if (got_shape, got_actions) != (want_shape, want_actions):
        label = spec if spec is not None else getattr(agent, "name", type(agent).__name__)
        game = (getattr(env, "metadata", None) or {}).get("name", type(env).__name__)
        raise InvalidOptionError(
            f"agent {label!r} was trained on observations of shape {got_shape} with "
            f"{got_actions} actions, but this game ({game}, {len(env.possible_agents)} "
            f"players) has shape {want_shape} with {want_actions} actions: use a model "
            "trained on the same game and number of players"
        )


def check_seed(seed: Any, flag: str = "seed", limit: int | None = SEED_LIMIT) -> int | None:
    """``seed`` as an int, or ``None``; :class:`InvalidOptionError` for anything else.

    Allowed: ``None`` or a Python/NumPy integer in ``0 .. limit - 1`` (no upper bound with
    ``limit=None``); bools, floats and strings are refused, as everywhere in the package
    (``errors.as_integer``).
    """
    if seed is None:
        return None
    number = as_integer(seed)
    if limit is None:
        if number is None or number < 0:
            raise InvalidOptionError(
                f"{flag} must be None or a non-negative integer (Python or NumPy int; not a "
                f"bool, float or string), got {short(seed, 40)}"
            )
    elif number is None or not 0 <= number < limit:
        raise InvalidOptionError(
            f"{flag} must be an integer in 0..{limit - 1} (or None), got {short(seed, 40)}"
        )
    return number
