"""The reproducible mode: a seed trains the same network bytes on Intel and AMD x86-64 CPUs.

torch's CPU build picks its kernels (``ATEN_CPU_CAPABILITY``) and MKL its code path
(``MKL_CBWR``) by the CPU, and the paths round differently; both are read once, when torch
loads. The mode pins them (:data:`PINNED`) before torch is imported. It is off by default
(:data:`DEFAULT`): every program of ours calls :func:`configure` at start-up
(``cli.run_main``), which turns it on for ``--reproducible`` or ``TABLETOP_ZOO_REPRODUCIBLE=1``;
a program of your own calls ``configure(sys.argv[1:])`` or :func:`pin` before importing
torch. Child processes inherit the variables. MKL's portable path takes ``torch.sqrt`` from
the CPU's ``rsqrtps`` estimate, whose last bits differ by maker: Adam is fused (:data:`ADAM`),
with an exact square root. ``docs/reproducibility.md`` says what holds where, and the cost.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from tabletop_zoo.envs.errors import InvalidOptionError

VARIABLE = "TABLETOP_ZOO_REPRODUCIBLE"
FLAG = "--reproducible"
PINNED = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}
"""The variables the mode sets: torch's kernels and MKL's path that every x86-64 CPU runs."""

DEFAULT = False
"""Off unless asked for: on an Intel CPU with AVX-512 torch's part of a run costs about 2x."""
ADAM = {"eps": 1e-5, "fused": True}
"""MaskablePPO's Adam (SB3's ``eps``), fused: ``policy_kwargs={"optimizer_kwargs": ADAM}``."""

_ON = {"1", "true", "yes", "on"}
_OFF = {"0", "false", "no", "off"}
_SAVED: dict[str, str | None] = {}
"""The values :func:`pin` replaced (``None``: unset), for :func:`release`."""


def requested(argv: Sequence[str] = (), default: bool = DEFAULT) -> bool:
    """Whether the mode is asked for: the last ``--reproducible`` / ``--no-reproducible``
    of ``argv`` (before a ``--``), else ``TABLETOP_ZOO_REPRODUCIBLE`` (``1``/``0``, ``on``/
    ``off``, ...; :class:`InvalidOptionError` for another value), else ``default``."""
    args = list(argv)
    for arg in reversed(args[: args.index("--")] if "--" in args else args):
        if arg in (FLAG, "--no-" + FLAG[2:]):
            return arg == FLAG
    text = os.environ.get(VARIABLE, "").strip().lower()
    if not text:
        return default
    if text not in _ON | _OFF:
        raise InvalidOptionError(f"{VARIABLE} must be 1 or 0 (on or off), got {text!r}")
    return text in _ON


def is_pinned() -> bool:
    """True when the environment holds every value of :data:`PINNED`."""
    return all(os.environ.get(name) == value for name, value in PINNED.items())


def pin() -> None:
    """Set :data:`PINNED` in ``os.environ`` before torch is imported (torch reads them when
    it loads); once torch is loaded, :class:`InvalidOptionError` unless they were set."""
    if "torch" in sys.modules:
        import torch

        if is_pinned() and str(torch.backends.cpu.get_cpu_capability()) == "DEFAULT":
            return
        raise InvalidOptionError(
            f"the reproducible mode must be set before torch is imported: set {VARIABLE}=1 "
            "or call tabletop_zoo.baselines.reproducible.pin() first"
        )
    for name, value in PINNED.items():
        if os.environ.get(name) != value:
            _SAVED.setdefault(name, os.environ.get(name))
            os.environ[name] = value


def release() -> None:
    """Undo :func:`pin` before torch is imported (:class:`InvalidOptionError` after)."""
    if not _SAVED:
        return
    if "torch" in sys.modules:
        raise InvalidOptionError(
            "--no-reproducible: torch was already loaded in the reproducible mode; set "
            f"{VARIABLE}=0 instead"
        )
    for name, value in _SAVED.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _SAVED.clear()


def configure(argv: Sequence[str] = (), default: bool = DEFAULT) -> bool:
    """Start-up of a command, before torch is imported: :func:`pin` when the mode is
    :func:`requested`, else :func:`release`; returns whether it is on."""
    on = requested(argv, default)
    pin() if on else release()
    return on


class _ModeAction(argparse.BooleanOptionalAction):
    """``--reproducible`` / ``--no-reproducible``, applied again after the start-up did
    (:func:`configure`): catches an abbreviation it did not see, or torch loaded too early."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *args: Any
    ) -> None:
        super().__call__(parser, namespace, *args)
        try:
            pin() if getattr(namespace, self.dest) else release()
        except InvalidOptionError as exc:
            parser.error(str(exc))


def add_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--reproducible`` / ``--no-reproducible`` to a command that trains or plays
    networks."""
    parser.add_argument(
        FLAG,
        action=_ModeAction,
        help="torch's and MKL's code paths that every x86-64 CPU runs alike: a seed gives the "
        "same numbers on Intel and AMD CPUs, at up to 2.4x the CPU time (default: off, the "
        "CPU's own paths: the same numbers on this machine, other digits on another CPU; "
        "TABLETOP_ZOO_REPRODUCIBLE=1 turns the mode on for every command)",
    )
