"""tabletop_zoo.baselines: agents (random, greedy, MCTS, PPO) and the arena.

``make_agent(spec, seed)`` builds an agent from a short spec string. Importing this
package does not import torch; only :mod:`tabletop_zoo.baselines.ppo` does, lazily.
"""

from __future__ import annotations

from tabletop_zoo.baselines.agents import (
    Agent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    returns_from_scores,
)

__all__ = [
    "AGENT_SPECS",
    "Agent",
    "GreedyAgent",
    "MCTSAgent",
    "PPOAgent",
    "RandomAgent",
    "make_agent",
    "returns_from_scores",
]

AGENT_SPECS = ("random", "greedy", "mcts", "mcts:N", "ppo:PATH")


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string.

    Specs: ``"random"``, ``"greedy"``, ``"mcts"`` (200 simulations), ``"mcts:N"``
    (N simulations), ``"ppo:PATH"`` (a saved MaskablePPO model). A bad spec raises
    ``ValueError`` listing the allowed forms.
    """
    allowed = ", ".join(repr(s) for s in AGENT_SPECS)
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}; allowed: {allowed}")
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "random" and not sep:
        return RandomAgent(seed=seed)
    if kind == "greedy" and not sep:
        return GreedyAgent(seed=seed)
    if kind == "mcts":
        if not sep:
            return MCTSAgent(seed=seed)
        if arg.isdigit() and int(arg) > 0:
            return MCTSAgent(n_simulations=int(arg), seed=seed)
        raise ValueError(
            f"bad agent spec {spec!r}: 'mcts:N' needs a positive integer N; allowed: {allowed}"
        )
    if kind == "ppo" and sep and arg:
        from tabletop_zoo.baselines.ppo import PPOAgent

        return PPOAgent(arg)
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {allowed}")


def __getattr__(name: str):
    """``PPOAgent`` is imported on first use, so importing this package skips torch."""
    if name == "PPOAgent":
        from tabletop_zoo.baselines.ppo import PPOAgent

        return PPOAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
