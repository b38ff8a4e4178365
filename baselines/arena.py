"""Former home of the arena, kept so code written for it keeps working: import from
:mod:`tabletop_zoo.baselines.evaluation.arena` (or :mod:`tabletop_zoo.baselines.evaluation`)."""

from tabletop_zoo.baselines.evaluation.arena import GameResult, agent_seeds, make_env, play_game

__all__ = ["GameResult", "agent_seeds", "make_env", "play_game"]
