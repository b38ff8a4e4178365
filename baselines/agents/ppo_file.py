"""Read a MaskablePPO ``.zip`` without running code from it (``MaskablePPO.load`` unpickles
the zip's ``:serialized:`` entries, so a crafted file runs code on load).

:func:`load_ppo_model` reads only the plain JSON fields of ``data`` (policy class
``MaskableActorCriticPolicy``, plain ``policy_kwargs``, a float32 ``Box`` observation space
and a ``Discrete`` action space) and ``policy.pth`` as tensors only, and rebuilds the policy
with SB3's classes, its weights loaded strictly. Needs the ``train`` extra.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines.agents.checks import MAX_LAYER
from tabletop_zoo.envs.errors import InvalidOptionError, UntrustedModelError
from tabletop_zoo.envs.extras import require_extra

TRUST_HELP = (
    "load ppo: and rllib: model files even if that unpickles content of the file, which can "
    "run code from it: only for files from a source you trust (default: ppo: files are read "
    "without unpickling, rllib: refused)"
)
"""The help text of the scripts' ``--trust-model`` flag."""

_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_POLICY_CLASS = "MaskableActorCriticPolicy"
_BOX = "<class 'gymnasium.spaces.box.Box'>"
_DISCRETE = "<class 'gymnasium.spaces.discrete.Discrete'>"
_PLAIN_KWARGS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}
_IGNORED_KWARGS = {"optimizer_kwargs"}  # training only; ignored when plain JSON
_MAX_DATA_BYTES = 64 * 1024 * 1024  # the JSON record (a trained model's is ~40 kB)
_MAX_WEIGHTS_BYTES = 1024 * 1024 * 1024
_MAX_LAYERS = 32
_MAX_INPUTS = 1 << 24  # observation entries


def untrusted(path: str | Path, why: str) -> UntrustedModelError:
    """The refusal of a model file that needs unpickling (``why``), naming the opt-in."""
    return UntrustedModelError(
        f"{str(path)!r} can only be loaded by unpickling content of the file ({why}), which "
        "can run code from it; load it only if you trust its source: trust=True in Python, "
        "--trust-model on the scripts"
    )


def _bad(path: Path, reason: str) -> InvalidOptionError:
    """The refusal of a file that is not a MaskablePPO model we can play (``reason``)."""
    return InvalidOptionError(
        f"cannot load a MaskablePPO model from {str(path)!r} ({reason}); expected a .zip "
        "saved by MaskablePPO.save (e.g. runs/<name>/final_model.zip)"
    )


def find_model_file(path: str | Path) -> Path:
    """``path`` or ``path.zip`` (SB3 appends ``.zip``); ``InvalidOptionError`` if neither
    is a file."""
    path = Path(path)
    for candidate in (path, path.with_name(path.name + ".zip")):
        if candidate.is_file():
            return candidate
    raise InvalidOptionError(f"no saved MaskablePPO model at {str(path)!r}")


@dataclass(eq=False)  # compared and hashed by identity
class SafePPOModel:
    """A MaskablePPO policy read by :func:`load_ppo_model` (no optimizer, no rollout state):
    what playing and exporting need, with ``MaskablePPO``'s ``predict`` signature."""

    policy: Any
    observation_space: Any
    action_space: Any
    path: Path

    def predict(
        self,
        observation: Any,
        state: Any = None,
        episode_start: Any = None,
        deterministic: bool = False,
        action_masks: Any = None,
    ) -> tuple[Any, Any]:
        """The policy's action (as ``MaskablePPO.predict``)."""
        return self.policy.predict(
            observation, state, episode_start, deterministic, action_masks=action_masks
        )


def _serialized(value: Any) -> bool:
    return isinstance(value, dict) and ":serialized:" in value


def _layers(value: Any, path: Path, what: str) -> list[int]:
    """A list of layer sizes, checked (else ``InvalidOptionError``)."""
    if (
        not isinstance(value, list)
        or len(value) > _MAX_LAYERS
        or not all(type(n) is int and 1 <= n <= MAX_LAYER for n in value)
    ):
        raise _bad(
            path,
            f"{what} must be at most {_MAX_LAYERS} layer sizes in 1..{MAX_LAYER}, "
            f"got {str(value)[:80]}",
        )
    return list(value)


def _policy_kwargs(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The JSON ``policy_kwargs`` we rebuild the policy with; refuse pickled ones."""
    kwargs = data.get("policy_kwargs", {}) or {}
    if _serialized(kwargs):
        raise untrusted(path, "policy_kwargs are stored pickled (e.g. an activation_fn)")
    if not isinstance(kwargs, dict):
        raise _bad(path, "policy_kwargs is not a JSON object")
    unknown = sorted(set(kwargs) - _PLAIN_KWARGS - _IGNORED_KWARGS)
    unknown += sorted(k for k in _IGNORED_KWARGS if _serialized(kwargs.get(k)))
    if unknown:
        raise untrusted(path, f"policy_kwargs {', '.join(map(repr, unknown))}")
    out: dict[str, Any] = {}
    for key in ("ortho_init", "share_features_extractor", "normalize_images"):
        if key in kwargs:
            if not isinstance(kwargs[key], bool):
                raise _bad(path, f"policy_kwargs {key!r} is not a bool")
            out[key] = kwargs[key]
    arch = kwargs.get("net_arch")
    if isinstance(arch, dict):
        if set(arch) - {"pi", "vf"}:
            raise _bad(path, "net_arch keys must be 'pi' and 'vf'")
        out["net_arch"] = {k: _layers(v, path, f"net_arch[{k!r}]") for k, v in arch.items()}
    elif arch is not None:
        out["net_arch"] = _layers(arch, path, "net_arch")
    return out


def _check_policy_class(data: dict[str, Any], path: Path) -> None:
    """The policy class must be sb3-contrib's ``MaskableActorCriticPolicy`` (by the JSON
    names SB3 stores beside the pickled class; nothing is unpickled)."""
    entry = data.get("policy_class")
    methods = [v for k, v in entry.items() if k == "__init__"] if isinstance(entry, dict) else []
    ok = (
        isinstance(entry, dict)
        and entry.get("__module__") == _POLICY_MODULE
        and len(methods) == 1
        and isinstance(methods[0], str)
        and methods[0].startswith(f"<function {_POLICY_CLASS}.__init__ ")
    )
    if not ok:
        module = entry.get("__module__") if isinstance(entry, dict) else None
        raise untrusted(path, f"its policy class is not {_POLICY_CLASS} (module {module!r})")


def _spaces(data: dict[str, Any], path: Path) -> tuple[Any, Any]:
    """The observation and action spaces, rebuilt from their JSON fields."""
    import numpy as np
    from gymnasium import spaces

    obs, act = data.get("observation_space"), data.get("action_space")
    if not isinstance(obs, dict) or obs.get(":type:") != _BOX or obs.get("dtype") != "float32":
        raise untrusted(path, "its observation space is not a float32 Box")
    shape = obs.get("_shape")
    if (
        not isinstance(shape, list)
        or not shape
        or not all(type(n) is int and n >= 1 for n in shape)
        or int(np.prod(shape)) > _MAX_INPUTS
    ):
        raise _bad(path, f"bad observation shape {str(shape)[:80]}")
    if not isinstance(act, dict) or act.get(":type:") != _DISCRETE:
        raise untrusted(path, "its action space is not Discrete")
    n, start = str(act.get("n", "")), str(act.get("start", "0"))
    if not (n.isascii() and n.isdigit() and 1 <= int(n) <= MAX_LAYER) or start != "0":
        raise _bad(path, f"bad action space n={n[:20]!r} start={start!r}")
    observation_space = spaces.Box(-np.inf, np.inf, tuple(shape), np.float32)
    return observation_space, spaces.Discrete(int(n))


def _read(archive: zipfile.ZipFile, name: str, limit: int, path: Path) -> bytes:
    """Member ``name`` of the zip, at most ``limit`` bytes (``InvalidOptionError``)."""
    if name not in archive.namelist():
        raise _bad(path, f"the zip has no {name!r}")
    if archive.getinfo(name).file_size > limit:
        raise _bad(path, f"its {name!r} is over {limit} bytes")
    return archive.read(name)


def load_tensors_only(source: Any) -> Any:
    """``torch.load(source, map_location="cpu", weights_only=True)``: tensors and plain
    containers only, nothing in the file runs; torch's pickle-protocol warning silenced, its
    errors raised as they are (the callers say what the file should have been)."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.load(source, map_location="cpu", weights_only=True)


def _load_safely(path: Path) -> SafePPOModel:
    """:func:`load_ppo_model` without trust."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        with zipfile.ZipFile(path) as archive:
            data_bytes = _read(archive, "data", _MAX_DATA_BYTES, path)
            weights_bytes = _read(archive, "policy.pth", _MAX_WEIGHTS_BYTES, path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        if isinstance(exc, InvalidOptionError):
            raise
        raise _bad(path, f"{type(exc).__name__}: {exc}") from None
    try:
        data = json.loads(data_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise _bad(path, "its 'data' record is not a JSON object")
    _check_policy_class(data, path)
    kwargs = _policy_kwargs(data, path)
    observation_space, action_space = _spaces(data, path)
    try:
        weights = load_tensors_only(io.BytesIO(weights_bytes))
    except Exception as exc:
        if "weights_only" in str(exc) or "Unsupported global" in str(exc):
            raise untrusted(path, "its policy.pth holds more than tensors") from None
        raise _bad(path, f"cannot read policy.pth: {type(exc).__name__}") from None
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()
    ):
        raise _bad(path, "policy.pth is not a dict of tensors")
    with torch.random.fork_rng(devices=[]):  # building the policy draws initial weights
        policy = MaskableActorCriticPolicy(
            observation_space, action_space, lr_schedule=lambda _: 0.0, **kwargs
        )
    try:
        policy.load_state_dict(weights, strict=True)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()
        detail = " ".join(first[1:2] or first[:1])[:200]
        raise _bad(
            path, f"its weights do not fit the policy its data describes: {detail}"
        ) from None
    policy.set_training_mode(False)
    return SafePPOModel(policy, observation_space, action_space, path)


def load_ppo_model(path: str | Path, trust: bool = False) -> Any:
    """The MaskablePPO model saved at ``path`` (or ``path.zip``), on the CPU: without
    ``trust`` a :class:`SafePPOModel` read without unpickling (a file that needs it raises
    :class:`~tabletop_zoo.envs.errors.UntrustedModelError`, one that is no model
    ``InvalidOptionError``); with it ``MaskablePPO.load``, which runs what the file holds."""
    file = find_model_file(path)
    require_extra("train", "a PPO agent (ppo:PATH)", ("torch", "sb3_contrib"))
    if not trust:
        return _load_safely(file)
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(str(file), device="cpu")
    except Exception as exc:
        raise _bad(file, f"{type(exc).__name__}: {exc}") from None
