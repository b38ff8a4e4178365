"""A policy trained with RLlib (``tabletop-zoo train-rllib``) as an agent (``rllib:PATH``,
``rllib:PATH#MODULE``): a saved RLModule folder or an algorithm checkpoint, observations
flattened as :class:`tabletop_zoo.wrappers.rllib.TurnBasedMultiAgentEnv` feeds them to
RLlib (:func:`flat_observation`). ray and torch load only with an agent (``rllib`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.search import legal_from_mask
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.envs.errors import InvalidOptionError, UntrustedModelError
from tabletop_zoo.envs.extras import require_extra

DEFAULT_MODULE = "main"
_MODULES_IN_CHECKPOINT = Path("learner_group", "learner", "rl_module")


def flat_observation(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """An AEC observation dict as RLlib's action-masking modules read it: ``{"observations":
    flat float32 planes, "action_mask": float32 0/1}``."""
    return {
        "observations": np.asarray(observation["observation"], np.float32).reshape(-1),
        "action_mask": np.asarray(observation["action_mask"], np.float32),
    }


def module_path(path: str | Path, module_id: str = DEFAULT_MODULE) -> Path:
    """The saved RLModule folder behind ``path`` (a module folder or an algorithm checkpoint)."""
    path = Path(path)
    inside = path / _MODULES_IN_CHECKPOINT / module_id
    if inside.is_dir():
        return inside
    if (path / "module_state.pkl").exists() or (path / "module_state").exists():
        return path
    raise InvalidOptionError(
        f"no RLlib module at {str(path)!r}: expected a module folder written by "
        "tabletop-zoo train-rllib (OUT/module_main) or an RLlib checkpoint folder"
        f" containing {(_MODULES_IN_CHECKPOINT / module_id).as_posix()}"
    )


class RLlibAgent:
    """Plays the most probable legal action of an RLlib action-masking RLModule at ``path``
    (:func:`module_path`; ``module_id`` of a checkpoint). ``trust`` is required: RLlib
    checkpoints load by unpickling (:class:`UntrustedModelError` without it)."""

    def __init__(
        self,
        path: str | Path,
        module_id: str = DEFAULT_MODULE,
        name: str | None = None,
        trust: bool = False,
    ) -> None:
        # absolute: RLModule.from_checkpoint reads a URI ("runs/x" has no scheme)
        folder = module_path(Path(path).expanduser().resolve(), module_id)
        if not trust:
            raise UntrustedModelError(
                f"{str(path)!r} is an RLlib checkpoint, which loads by unpickling (it can run "
                "code from the files); load it only if you trust its source: trust=True in "
                "Python, --trust-model on the scripts"
            )
        require_extra("rllib", "an RLlib agent (rllib:PATH)", ("ray", "torch"))
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        self._torch = torch
        self.module = RLModule.from_checkpoint(str(folder))
        self.name = name or f"rllib:{Path(path).name}"
        limit_threads()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """The module's greedy action for ``observation``, restricted to the mask."""
        legal = legal_from_mask(action_mask)
        flat = flat_observation({"observation": observation, "action_mask": action_mask})
        torch = self._torch
        batch = {"obs": {key: torch.from_numpy(value[None]) for key, value in flat.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        return int(legal[np.argmax(logits[legal])])
