"""A trained MaskablePPO policy (sb3-contrib) behind the common agent interface; torch and
SB3 are imported only when a :class:`PPOAgent` loads a model file (:mod:`.ppo_file`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.envs.errors import InvalidOptionError


class PPOAgent:
    """Plays with a MaskablePPO model (loaded, or the path of a ``.zip`` from ``model.save``),
    always restricted to the legal actions; ``deterministic``: the most probable one instead
    of a sample. ``trust``: load a file with ``MaskablePPO.load``, which unpickles (and so
    can run code from the file), instead of :func:`~.ppo_file.load_ppo_model` without it."""

    def __init__(
        self,
        model_or_path: Any,
        deterministic: bool = True,
        name: str | None = None,
        trust: bool = False,
    ) -> None:
        if isinstance(model_or_path, (str, Path)):
            path = Path(model_or_path)
            self.model = load_ppo_model(path, trust=trust)
            default_name = f"ppo:{path.stem}"
        else:
            self.model = model_or_path
            default_name = "ppo"
        self.deterministic = deterministic
        self.name = name or default_name
        self.keep_analysis = False  # True: act() keeps its policy in last_analysis
        self.last_analysis: dict[str, Any] | None = None
        limit_threads()  # a small network: one torch / BLAS thread (TABLETOP_ZOO_THREADS)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """The policy's action for ``observation``, masked to the legal actions."""
        mask = np.asarray(action_mask, dtype=bool)
        if self.keep_analysis:
            self.last_analysis = self._policy(observation, mask)
        action, _ = self.model.predict(
            observation, deterministic=self.deterministic, action_masks=mask
        )
        if not mask[int(action)]:  # legal logits below the mask's -1e8: weights out of range
            message = "its network's outputs are out of range (did its training diverge?)"
            raise InvalidOptionError(f"{self.name} chose an illegal action: {message}")
        return int(action)

    def _policy(self, observation: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
        """The policy's probability of each legal action (it draws nothing)."""
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            probs = policy.get_distribution(tensor, action_masks=mask).distribution.probs[0]
        legal = np.flatnonzero(mask)
        return {"actions": legal.tolist(), "probs": probs.numpy()[legal].tolist()}
