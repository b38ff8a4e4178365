"""A policy written outside our code as an agent (``py:FILE:FACTORY``): FACTORY, a
module-level callable of the Python file FILE, called with no arguments, returns
``policy(observation, action_mask) -> int``; optional ``policy.probabilities(observation,
action_mask)`` (one number per action, for ``record --analysis``) and ``policy.reset(seed)``
(at the start of every game). Importing FILE runs its code: writing ``py:`` is the opt-in."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.envs._json import short
from tabletop_zoo.envs.errors import IllegalActionError, ModelFileError, as_integer

_MODULES: dict[tuple[Path, int], Any] = {}  # by path and modification time


class PolicyAgent:
    """Plays ``policy(observation, action_mask)`` (the acting seat's planes and int8 mask, as
    the AEC env gives them); an answer that is not a legal action raises
    :class:`IllegalActionError` naming the agent and the answer."""

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any], name: str = "policy"):
        self.policy, self.name = policy, name
        self.keep_analysis = False  # True: act() keeps the policy's probabilities, if any
        self.last_analysis: dict[str, Any] | None = None

    def reset(self, seed: int | None = None) -> None:
        """The policy's own ``reset(seed)``, if it has one."""
        if callable(reset := getattr(self.policy, "reset", None)):
            reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """The policy's action, checked against ``action_mask``."""
        answer = self.policy(observation, action_mask)
        action, mask = as_integer(answer), np.asarray(action_mask)
        if action is None or not 0 <= action < mask.size or not mask[action]:
            what = "not an integer" if action is None else "not a legal action now"
            raise IllegalActionError(f"agent {self.name!r} chose {short(answer, 40)}: {what}")
        probabilities = getattr(self.policy, "probabilities", None)
        if self.keep_analysis and callable(probabilities):
            probs = np.asarray(probabilities(observation, action_mask), float).reshape(-1)
            if probs.size != mask.size:
                raise IllegalActionError(
                    f"agent {self.name!r}: probabilities() gave {probs.size} numbers for "
                    f"{mask.size} actions"
                )
            legal = np.flatnonzero(mask)
            self.last_analysis = {"actions": legal.tolist(), "probs": probs[legal].tolist()}
        return action


def _last_line(exc: BaseException) -> str:
    """The last line of ``exc``'s report, as Python prints it (``ValueError: ...``)."""
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def _module(path: Path, spec: str) -> Any:
    """The module of the Python file ``path``, imported once per process and version of the
    file (its folder first on ``sys.path`` meanwhile, as when it runs as a script)."""
    if not path.is_file() or path.suffix != ".py":
        what = "not a .py file" if path.is_file() else "no such file"
        raise ModelFileError(f"agent spec {spec!r}: {str(path)!r}: {what}")
    key = (path, path.stat().st_mtime_ns)
    if key not in _MODULES:
        name = "tabletop_zoo_py_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))
        sys.modules[name] = module  # classes in it (dataclasses, pickled ones) find their module
        sys.path.insert(0, str(path.parent))
        try:
            module.__spec__.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ModelFileError(
                f"agent spec {spec!r}: importing it failed: {_last_line(exc)}"
            ) from None
        finally:
            sys.path.remove(str(path.parent))
        _MODULES[key] = module
    return _MODULES[key]


def load_policy(argument: str, spec: str | None = None) -> Callable[..., Any]:
    """The policy of ``FILE:FACTORY`` (a ``py:`` spec's argument; ``spec`` names it in
    messages): FILE imported, FACTORY called with no arguments; a
    :class:`~tabletop_zoo.envs.errors.ModelFileError` in one line if any step fails."""
    spec = spec or f"py:{argument}"
    file, _, name = argument.rpartition(":")
    factory = getattr(_module(Path(file).expanduser().resolve(), spec), name, None)
    problem = f"{file} has no {name!r}" if factory is None else f"{name} is not callable"
    if callable(factory):
        try:
            policy = factory()
        except Exception as exc:
            raise ModelFileError(
                f"agent spec {spec!r}: {name}() raised {_last_line(exc)}"
            ) from None
        problem = f"{name}() returned {short(policy, 40)}, not a policy"
        if callable(policy):
            return policy
    raise ModelFileError(f"agent spec {spec!r}: {problem}")
