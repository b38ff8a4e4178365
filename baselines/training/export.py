"""Export a trained MaskablePPO model's actor as a NumPy network (reference models).

Only what playing needs is kept: SB3's ``MlpPolicy`` actor (the policy half of the
``mlp_extractor``, tanh, and the ``action_net``), without the critic and the optimizer
state, as float16 :class:`~tabletop_zoo.baselines.agents.numpy_net.DenseNet` weights. The
exported network picks the same action as the deterministic ``PPOAgent`` (up to float16
rounding of near-equal logits). Needs the ``train`` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import require_extra

__all__ = ["export_ppo_actor"]


def export_ppo_actor(model_or_path: Any, meta: dict[str, Any], trust: bool = False) -> DenseNet:
    """The actor of a MaskablePPO model (instance or ``.zip`` path) as a :class:`DenseNet`.

    ``meta`` describes it (``game``, ``num_players``, ...); ``kind``, ``observation_shape``
    and ``num_actions`` are filled in from the model. A path is read without unpickling
    (:func:`~tabletop_zoo.baselines.agents.ppo_file.load_ppo_model`) unless ``trust``.
    """
    require_extra("train", "exporting a PPO model", ("torch", "sb3_contrib"))
    from torch import nn

    if isinstance(model_or_path, (str, Path)):
        from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model

        model = load_ppo_model(model_or_path, trust=trust)
    else:
        model = model_or_path
    policy = model.policy
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        raise InvalidOptionError("only MlpPolicy models (flattened observations) can be exported")
    layers = list(policy.mlp_extractor.policy_net)
    activations = {type(m).__name__ for m in layers if not isinstance(m, nn.Linear)}
    if activations - {"Tanh"} and activations - {"ReLU"}:
        raise InvalidOptionError(f"unsupported activations {sorted(activations)}")
    activation = "relu" if activations == {"ReLU"} else "tanh"

    def pair(linear: Any) -> tuple[np.ndarray, np.ndarray]:
        return linear.weight.detach().numpy().T.copy(), linear.bias.detach().numpy().copy()

    trunk = [pair(m) for m in layers if isinstance(m, nn.Linear)]
    info = dict(meta)
    info["kind"] = "ppo"
    info["observation_shape"] = list(model.observation_space.shape)
    info["num_actions"] = int(model.action_space.n)
    return DenseNet(trunk, {"policy": pair(policy.action_net)}, activation, info)
