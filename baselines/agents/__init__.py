"""The agents layer: the :class:`Agent` protocol, the baselines and :func:`make_agent`, the
one place that turns a spec string into an agent. Importing it does not import torch."""

from __future__ import annotations

import importlib
import os
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tabletop_zoo.baselines.agents.search import GreedyAgent, MCTSAgent, RandomAgent
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.protocol import EngineState

__all__ = [
    "AGENT_SPECS",
    "Agent",
    "GreedyAgent",
    "HumanAgent",
    "MCTSAgent",
    "PPOAgent",
    "RandomAgent",
    "absolute_spec",
    "agent_spec_forms",
    "make_agent",
    "parse_agent_spec",
    "runs_code",
]

AGENT_SPECS = ("random", "greedy", "mcts", "mcts:N", "ppo:PATH", "az:PATH", "az:PATH:N")
AGENT_SPECS += ("ref:NAME", "ref:NAME:N", "rllib:PATH", "py:FILE:FACTORY", "human")
"""The spec forms :func:`make_agent` accepts (``human`` only where a person can type)."""
CODE_REFUSED = "'py:' is not allowed here (the spec is kept, read again, and a read runs no code)"


@runtime_checkable
class Agent(Protocol):
    """What every agent offers: a name and ``act(observation, action_mask, state)``, where
    ``state`` is the live engine state (never mutated) and ``observation`` the acting seat's
    planes. Optional: ``reset(seed)``, called at the start of every game, and
    ``reads_observation = False`` (the single-agent wrapper then passes ``None``)."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: EngineState) -> int:
        """Return a legal action (``action_mask[action]`` is true) for the acting seat."""
        ...


#: Spec kinds whose argument starts with a file path (``kind:PATH``, ``az:PATH:N``,
#: ``rllib:PATH#MODULE``, ``py:FILE:FACTORY``).
PATH_KINDS = ("ppo", "az", "rllib", "py")


def absolute_spec(spec: str) -> str:
    """``spec`` with its file path made absolute (from the current folder); others unchanged:
    work sent elsewhere (Ray workers, process pools) and RLlib's checkpoint reader need it."""
    if not isinstance(spec, str):
        return spec
    kind, sep, arg = spec.strip().partition(":")
    if kind.lower() not in PATH_KINDS or not sep or not arg:
        return spec
    suffix = ""
    if kind.lower() == "rllib":
        arg, hash_sign, module_id = arg.partition("#")
        suffix = hash_sign + module_id
    elif kind.lower() == "az":
        path, colon, sims = arg.rpartition(":")
        if colon and path and sims.isascii() and sims.isdigit():
            arg, suffix = path, colon + sims
    elif kind.lower() == "py":
        arg, colon, factory = arg.rpartition(":")
        suffix = colon + factory
    return f"{kind}:{os.path.abspath(os.path.expanduser(arg))}{suffix}"


def runs_code(spec: str) -> bool:
    """Whether ``spec`` runs code from its file (``py:``): writing it is the opt-in, so one
    read from a file (a record, a checkpoint, the manifest) is never run."""
    return spec.strip().partition(":")[0].lower() == "py"


def agent_spec_forms(human: bool = False) -> str:
    """The spec forms of :data:`AGENT_SPECS` as one comma-separated string (``human`` only
    when asked): what every script's ``--help`` and every bad-spec message lists."""
    return ", ".join(s for s in AGENT_SPECS if human or s != "human")


def parse_agent_spec(spec: Any) -> tuple[str, str, int | None]:
    """``(kind, argument, number)`` of an agent spec, without building the agent: the kind
    (``random``, ``mcts``, ``az``, ...), the path or name (``""`` if none) and the simulations
    of ``mcts:N`` / ``az:PATH:N`` / ``ref:NAME:N`` (``None``: the default). A malformed spec
    raises :class:`~tabletop_zoo.envs.errors.InvalidOptionError` listing the allowed forms."""
    allowed = ", ".join(repr(s) for s in AGENT_SPECS)
    if not isinstance(spec, str):
        raise InvalidOptionError(f"agent spec must be a string, got {spec!r}; allowed: {allowed}")
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("random", "greedy", "human") and not sep:
        return kind, "", None
    if kind == "mcts":
        if not sep:
            return kind, "", None
        if arg.isascii() and arg.isdigit() and int(arg) > 0:
            return kind, "", int(arg)
        raise InvalidOptionError(
            f"bad agent spec {spec!r}: 'mcts:N' needs a positive integer N; allowed: {allowed}"
        )
    if kind == "az" and sep and arg:
        path, colon, sims = arg.rpartition(":")
        if colon and sims.isascii() and sims.isdigit() and int(sims) > 0 and path:
            return kind, path, int(sims)
        return kind, arg, None
    if kind == "ref" and sep and arg:
        name, colon, sims = arg.partition(":")
        if not colon:
            return kind, arg, None
        if name and sims.isascii() and sims.isdigit() and int(sims) > 0:
            return kind, name, int(sims)
        raise InvalidOptionError(
            f"bad agent spec {spec!r}: 'ref:NAME:N' needs a positive integer N; allowed: {allowed}"
        )
    if kind in ("ppo", "rllib") and sep and arg:
        return kind, arg, None
    if kind == "py" and sep:
        file, colon, factory = arg.rpartition(":")
        if file and factory.isidentifier():
            return kind, arg, None
        raise InvalidOptionError(
            f"bad agent spec {spec!r}: 'py:FILE:FACTORY' needs a Python file and the name of "
            f"a function in it; allowed: {allowed}"
        )
    raise InvalidOptionError(f"unknown agent spec {spec!r}; allowed: {allowed}")


def make_agent(spec: str, seed: int | None = None, trust: bool = False) -> Agent:
    """Build an agent from a spec string, one of :data:`AGENT_SPECS` (``docs/baselines.md``
    describes each; :func:`parse_agent_spec` refuses bad ones). ``ppo:`` needs the ``train``
    extra, ``rllib:`` the ``rllib`` one. ``trust``: load model files even by unpickling, which
    can run code from the file; without it a ``ppo:`` file that needs unpickling and every
    ``rllib:`` one are refused (:class:`~tabletop_zoo.envs.errors.UntrustedModelError`).
    ``py:FILE:FACTORY`` imports FILE (running its code) and plays ``FACTORY()``'s policy
    (:mod:`.outside`)."""
    kind, arg, number = parse_agent_spec(spec)
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "greedy":
        return GreedyAgent(seed=seed)
    if kind == "mcts":
        return MCTSAgent(seed=seed, **({} if number is None else {"n_simulations": number}))
    if kind == "ppo":
        from tabletop_zoo.baselines.agents.ppo import PPOAgent

        return PPOAgent(arg, trust=trust)
    if kind == "az":
        from tabletop_zoo.baselines.agents.alphazero import DEFAULT_SIMULATIONS, AlphaZeroAgent

        return AlphaZeroAgent(arg, num_simulations=number or DEFAULT_SIMULATIONS, seed=seed)
    if kind == "ref":
        from tabletop_zoo.baselines.agents.reference import reference_agent

        return reference_agent(arg, seed=seed, simulations=number)
    if kind == "rllib":
        from tabletop_zoo.baselines.agents.rllib import DEFAULT_MODULE, RLlibAgent

        path, _, module_id = arg.partition("#")
        return RLlibAgent(path, module_id=module_id or DEFAULT_MODULE, trust=trust)
    if kind == "py":
        from tabletop_zoo.baselines.agents.outside import PolicyAgent, load_policy

        return PolicyAgent(load_policy(arg, spec.strip()), name=spec.strip())
    from tabletop_zoo.baselines.agents.human import HumanAgent

    return HumanAgent()


def __getattr__(name: str) -> Any:
    """``PPOAgent`` and ``HumanAgent`` are imported on first use (no torch at import)."""
    module = {"PPOAgent": "ppo", "HumanAgent": "human"}.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
