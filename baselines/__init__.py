"""tabletop_zoo.baselines: agents, evaluation (arena, tournaments) and self-play training.

Three layers, each a sub-package:

* :mod:`~tabletop_zoo.baselines.agents`: the ``Agent`` protocol, random / greedy / MCTS /
  PPO / human agents, ``make_agent(spec, seed)`` and agent checks;
* :mod:`~tabletop_zoo.baselines.evaluation`: the arena (``play_game``), statistics,
  round-robin tournaments and their reports;
* :mod:`~tabletop_zoo.baselines.training`: MaskablePPO self-play (config, opponent pool,
  callbacks, ``train``).

``from tabletop_zoo.baselines import make_agent`` gives the agents layer's names.
Importing this package does not import torch; only creating a ``PPOAgent`` does.
"""

from __future__ import annotations

from typing import Any

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
    """``PPOAgent`` and ``HumanAgent`` are imported on first use, so importing skips torch."""
    if name in ("PPOAgent", "HumanAgent"):
        from tabletop_zoo.baselines import agents

        return getattr(agents, name)
    return import_submodule(__name__, name)  # sub-modules on first use (``.tournament``)
