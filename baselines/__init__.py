"""tabletop_zoo.baselines: the agents layer (:mod:`.agents`, whose names it re-exports),
evaluation (arena, tournaments, reports) and self-play training, one sub-package each.
Importing it does not import torch; only creating a ``PPOAgent`` does."""

from __future__ import annotations

from typing import Any

from tabletop_zoo.baselines import agents
from tabletop_zoo.baselines.agents import (
    AGENT_SPECS,
    Agent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    make_agent,
)
from tabletop_zoo.envs._lazy import import_submodule

__all__ = [
    "AGENT_SPECS",
    "Agent",
    "GreedyAgent",
    "HumanAgent",
    "MCTSAgent",
    "PPOAgent",
    "RandomAgent",
    "make_agent",
]


def __getattr__(name: str) -> Any:
    """``PPOAgent`` and ``HumanAgent`` are imported on first use, so importing skips torch;
    sub-modules too (``.evaluation``)."""
    lazy = name in ("PPOAgent", "HumanAgent")
    return getattr(agents, name) if lazy else import_submodule(__name__, name)
