"""tabletop_zoo.wrappers: single-agent Gymnasium views of our AEC envs."""

from types import ModuleType

from tabletop_zoo.envs._lazy import import_submodule
from tabletop_zoo.wrappers.single_agent import SingleAgentEnv, make_env

__all__ = ["SingleAgentEnv", "make_env"]


def __getattr__(name: str) -> ModuleType:
    """Sub-modules on first use: ``tabletop_zoo.wrappers.vector`` with no import of its own."""
    return import_submodule(__name__, name)
