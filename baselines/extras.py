"""Optional extras for the baselines layer: the helpers of :mod:`tabletop_zoo.envs.extras`
(one implementation for every layer), re-exported under their old import path."""

from tabletop_zoo.envs.extras import (
    EXTRAS,
    MissingExtraError,
    install_command,
    missing_modules,
    require_extra,
)

__all__ = ["EXTRAS", "MissingExtraError", "install_command", "missing_modules", "require_extra"]
