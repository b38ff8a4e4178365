"""Export a trained PPO actor (a MaskablePPO model's or :mod:`.ppo_vector`'s weights) as a
NumPy :class:`~tabletop_zoo.baselines.agents.numpy_net.DenseNet` (reference models): only
the actor, as float16 weights, picking the same action as the deterministic ``PPOAgent``
(up to float16 rounding of near-equal logits). Needs the ``train`` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.ppo_file import load_tensors_only
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tabletop_zoo.envs.extras import require_extra

#: The layers of :class:`~tabletop_zoo.baselines.training.ppo_vector.ActorCritic`: a trunk
#: (flatten, linear, relu, linear, relu), the policy logits (``actor``) and the value
#: (``critic``, not exported).
_PPO_VECTOR_LAYERS = ("trunk.1", "trunk.3", "actor", "critic")


def linear_pair(weight: Any, bias: Any) -> tuple[np.ndarray, np.ndarray]:
    """A linear layer's torch tensors as float32 ``(weight (inputs, outputs), bias)``."""
    return weight.detach().float().numpy().T.copy(), bias.detach().float().numpy().copy()


def _ppo_net(
    trunk: list,
    policy: tuple,
    activation: str,
    meta: dict[str, Any],
    shape: tuple[int, ...],
    num_actions: int,
) -> DenseNet:
    """A PPO actor as a :class:`DenseNet`, ``meta`` completed with its kind and sizes."""
    info = {"kind": "ppo", "observation_shape": list(shape), "num_actions": int(num_actions)}
    return DenseNet(trunk, {"policy": policy}, activation, {**meta, **info})


def export_ppo_actor(model_or_path: Any, meta: dict[str, Any], trust: bool = False) -> DenseNet:
    """The actor of a MaskablePPO model (instance or ``.zip`` path, read without unpickling
    unless ``trust``) as a :class:`DenseNet`: SB3's ``MlpPolicy`` policy half of the
    ``mlp_extractor`` and its ``action_net``. ``meta`` describes it (``game``, ...)."""
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
    trunk = [linear_pair(m.weight, m.bias) for m in layers if isinstance(m, nn.Linear)]
    actor = linear_pair(policy.action_net.weight, policy.action_net.bias)
    shape, num_actions = model.observation_space.shape, model.action_space.n
    return _ppo_net(trunk, actor, activation, meta, shape, num_actions)


def read_ppo_vector_weights(path: str | Path) -> dict[str, Any]:
    """The tensors of ``ppo-vector --save`` weights by layer name, read as tensors only
    (nothing in the file runs); a file that is not torch weights of ppo_vector's layers (a
    weight matrix and a bias of matching length each) is a
    :class:`~tabletop_zoo.envs.errors.ModelFileError`, a missing file an ``OSError``."""
    require_extra("train", "reading ppo_vector weights", ("torch",))
    import torch

    try:
        weights = load_tensors_only(path)
    except OSError:
        raise  # a missing or unreadable file: the scripts say so in one line
    except Exception as exc:  # torch raises several kinds for a file that is not weights
        raise ModelFileError(f"{path}: not ppo_vector weights ({type(exc).__name__})") from None
    expected = {f"{layer}.{part}" for layer in _PPO_VECTOR_LAYERS for part in ("weight", "bias")}
    if not isinstance(weights, dict) or set(weights) != expected:
        raise ModelFileError(
            f"{path}: not ppo_vector weights (its layers are not {sorted(expected)})"
        )
    for layer in _PPO_VECTOR_LAYERS:
        weight, bias = weights[f"{layer}.weight"], weights[f"{layer}.bias"]
        if not (isinstance(weight, torch.Tensor) and isinstance(bias, torch.Tensor)):
            raise ModelFileError(f"{path}: layer {layer} holds something other than tensors")
        if weight.ndim != 2 or bias.shape != (weight.shape[0],):
            raise ModelFileError(
                f"{path}: layer {layer} has shapes {weight.shape} and {bias.shape}"
            )
    return weights


def export_ppo_vector(
    path: str | Path, meta: dict[str, Any], observation_shape: tuple[int, ...], num_actions: int
) -> DenseNet:
    """The actor of :func:`read_ppo_vector_weights` weights as a relu :class:`DenseNet`
    (``meta`` describes it); weights that do not take ``observation_shape`` and give
    ``num_actions`` are a :class:`~tabletop_zoo.envs.errors.ModelFileError`."""
    weights = read_ppo_vector_weights(path)
    layers = [
        linear_pair(weights[f"{n}.weight"], weights[f"{n}.bias"]) for n in _PPO_VECTOR_LAYERS[:3]
    ]
    *trunk, policy = layers
    inputs = int(np.prod(observation_shape))
    chain = [inputs, *(w.shape[1] for w, _ in trunk)]
    shapes = [w.shape for w, _ in layers]
    if shapes != [(chain[0], chain[1]), (chain[1], chain[2]), (chain[2], num_actions)]:
        raise ModelFileError(
            f"{path}: its layers {shapes} do not take {inputs} inputs and give {num_actions} "
            "actions (another game or player count?)"
        )
    return _ppo_net(trunk, policy, "relu", meta, observation_shape, num_actions)
