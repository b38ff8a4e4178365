"""Checks shared by every entry point that takes agents: does an agent fit the env, is a
seed usable. Each raises :class:`~tabletop_zoo.envs.errors.InvalidOptionError` (a
``ValueError``) saying what was wrong and what is allowed."""

from __future__ import annotations

from typing import Any

from tabletop_zoo.envs._json import short
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError, as_integer

SEED_LIMIT = 2**32
"""Seeds are ints in ``0 .. SEED_LIMIT - 1`` (NumPy's legacy global seed, which SB3 uses)."""


def check_agent_fits(agent: Any, env: Any, spec: str | None = None) -> None:
    """Raise if ``agent``'s ``model`` (PPO agents have one) was made for another
    observation shape or number of actions than ``env``'s (an AEC env of ours); ``spec``
    names the agent in the message."""
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
    """``seed`` as an int (a Python/NumPy integer in ``0 .. limit - 1``, no upper bound with
    ``limit=None``), or ``None``; :class:`InvalidOptionError` for anything else."""
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


def check_agent_spec(
    spec: str, game: str | None = None, num_players: int | None = None, human: bool = False
) -> str:
    """``spec`` stripped, once its form is valid and the file behind it is usable, checked
    without playing or importing torch or ray; with ``game`` / ``num_players`` an ``az:`` or
    ``ref:`` model of another game or count is refused, ``human`` only with ``human=True``.
    Raises :class:`InvalidOptionError` (or :class:`ModelFileError`)."""
    from pathlib import Path

    from tabletop_zoo.baselines.agents import parse_agent_spec

    kind, arg, _number = parse_agent_spec(spec)
    made_for: tuple[Any, Any] | None = None
    if kind == "human" and not human:
        raise InvalidOptionError(f"agent spec {spec!r}: 'human' is not allowed here")
    if kind == "az":
        from tabletop_zoo.baselines.agents.alphazero import check_network_meta
        from tabletop_zoo.baselines.agents.numpy_net import DenseNet

        net = DenseNet.load(arg)
        check_network_meta(net, f"az:{arg}")
        made_for = (net.meta["game"], int(net.meta["num_players"]))
    elif kind == "ref":
        from tabletop_zoo.baselines.agents.reference import reference_entry, reference_path

        entry = reference_entry(arg)
        reference_path(arg)
        made_for = (entry.get("game"), entry.get("num_players"))
    elif kind == "ppo":
        path = Path(arg)
        if not (path.is_file() or path.with_name(path.name + ".zip").is_file()):
            raise ModelFileError(f"agent spec {spec!r}: no saved MaskablePPO model at {arg!r}")
    elif kind == "rllib":
        from tabletop_zoo.baselines.agents.rllib import DEFAULT_MODULE, module_path

        path, _, module_id = arg.partition("#")
        module_path(path, module_id or DEFAULT_MODULE)
    elif kind == "py":  # imported, its factory called
        from tabletop_zoo.baselines.agents.outside import load_policy

        load_policy(arg, spec.strip())
    if made_for is not None and game is not None and made_for[0] != game:
        raise ModelFileError(f"agent spec {spec!r}: a model of {made_for[0]}, not of {game}")
    if made_for is not None and num_players is not None and made_for[1] != num_players:
        raise ModelFileError(
            f"agent spec {spec!r}: a model for {made_for[1]} players, not {num_players}"
        )
    return spec.strip()
