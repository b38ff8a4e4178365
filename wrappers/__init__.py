"""tabletop_zoo.wrappers: single-agent Gymnasium views of our AEC envs."""

from tabletop_zoo.wrappers.single_agent import SingleAgentEnv, make_env

__all__ = ["SingleAgentEnv", "make_env"]
