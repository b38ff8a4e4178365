"""A trained MaskablePPO policy (sb3-contrib) behind the common agent interface.

stable-baselines3 / sb3-contrib (and so torch) are imported only when a
:class:`PPOAgent` loads a model file; without the ``train`` extra that is a one-line
:class:`~tabletop_zoo.baselines.extras.MissingExtraError` naming the install command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.extras import require_extra
from tabletop_zoo.envs.errors import InvalidOptionError

__all__ = ["PPOAgent"]


class PPOAgent:
    """Plays with a MaskablePPO model, always restricted to the legal actions.

    Args:
        model_or_path: a ``sb3_contrib.MaskablePPO`` instance or the path of a model
            saved with ``model.save(path)`` (``.zip``).
        deterministic: take the most probable legal action (default) instead of
            sampling from the policy.
        name: display name (default ``"ppo"`` or ``"ppo:<file stem>"``).

    A missing file or a file that is not a MaskablePPO model raises
    :class:`~tabletop_zoo.envs.errors.InvalidOptionError` (a ``ValueError``).
    """

    def __init__(
        self, model_or_path: Any, deterministic: bool = True, name: str | None = None
    ) -> None:
        if isinstance(model_or_path, (str, Path)):
            path = Path(model_or_path)
            candidates = [path, path.with_name(path.name + ".zip")]
            if not any(p.is_file() for p in candidates):
                raise InvalidOptionError(f"no saved MaskablePPO model at {str(path)!r}")
            require_extra("train", "a PPO agent (ppo:PATH)", ("torch", "sb3_contrib"))
            from sb3_contrib import MaskablePPO

            try:
                self.model = MaskablePPO.load(str(path), device="cpu")
            except Exception as exc:  # noqa: BLE001 - SB3 raises assorted errors for bad files
                raise InvalidOptionError(
                    f"cannot load a MaskablePPO model from {str(path)!r} "
                    f"({type(exc).__name__}: {exc}); expected a .zip saved by "
                    "MaskablePPO.save (e.g. runs/<name>/final_model.zip)"
                ) from None
            default_name = f"ppo:{path.stem}"
        else:
            self.model = model_or_path
            default_name = "ppo"
        self.deterministic = deterministic
        self.name = name or default_name
        limit_threads()  # a small network: one torch / BLAS thread (TABLETOP_ZOO_THREADS)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """The policy's action for ``observation``, masked to the legal actions."""
        mask = np.asarray(action_mask, dtype=bool)
        action, _ = self.model.predict(
            observation, deterministic=self.deterministic, action_masks=mask
        )
        return int(action)
