"""The ``tabletop-zoo`` console script: one command with subcommands (docs/DESIGN.md, "The
commands layer"). :func:`main` imports only the command asked for and runs its
``main(argv) -> int`` through :func:`tabletop_zoo.baselines.cli.run_main`; in a clone,
``python scripts/<module>.py`` runs the same code (:func:`run_script`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NamedTuple, NoReturn

__all__ = ["COMMANDS", "Command", "command_module", "main", "run_script"]

PROG = "tabletop-zoo"


class Command(NamedTuple):
    """One subcommand: its module in this package and its line in ``--help``."""

    module: str
    summary: str


COMMANDS: dict[str, Command] = {
    "play": Command("play", "play against agents in the terminal or a window, or watch them"),
    "rules": Command("rules", "show a game's rules and the project's rulings"),
    "record": Command("record", "record a game between agents as a GIF or MP4"),
    "evaluate": Command("evaluate", "round-robin tournament between agents: tables, CSVs, chart"),
    "rate": Command("rate", "rate an agent on the shipped ladder of a game"),
    "train": Command("train", "MaskablePPO self-play training (train extra)"),
    "train-alphazero": Command(
        "train_alphazero", "AlphaZero-style self-play training (train extra)"
    ),
    "train-rllib": Command("train_rllib", "PPO with RLlib, evaluated by our tournament (rllib)"),
    "ppo-vector": Command("ppo_vector", "masked PPO on the compiled vector env (train, fast)"),
    "benchmark": Command("benchmark", "random-play speed of the envs, engines and fast path"),
    "make-reference": Command("make_reference", "maintain the reference models and ladders"),
}
"""Every subcommand, in the order ``--help`` lists them."""


def command_module(name: str) -> ModuleType:
    """Import the module of the command ``name`` (a key of :data:`COMMANDS`)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name].module}")


def _parser() -> argparse.ArgumentParser:
    from tabletop_zoo import __version__
    from tabletop_zoo.envs.registry import GAMES

    games = ", ".join(spec.title for spec in GAMES.values())
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in COMMANDS.items()]
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} [-h] [--version] COMMAND [ARGS ...]",
        description=f"Board-game environments, agents and tools: {games}.",
        epilog="commands:\n" + "\n".join(lines) + f"\n\n'{PROG} COMMAND --help' shows a "
        "command's flags.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "command", metavar="COMMAND", choices=list(COMMANDS), help="one of the commands below"
    )
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The console script: ``tabletop-zoo COMMAND ARGS``; exits with the command's code
    (2 and one line for an unknown command, as argparse does)."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not args:
        parser.print_help(sys.stderr)
        sys.exit(2)
    chosen = parser.parse_args(args[:1])  # --help, --version, an unknown command: exits
    name, rest = chosen.command, args[1:]
    prog = f"{PROG} {name}"
    from tabletop_zoo.baselines import cli

    with cli.running_as(prog, rest):  # usage lines and messages name the command as typed
        cli.run_main(lambda: command_module(name).main(rest), prog=prog)


def run_script(module: str) -> NoReturn:
    """``python scripts/<module>.py ARGS`` in a clone: the command of ``module`` with
    ``sys.argv``, named after the script (``rate.py``) in its messages."""
    from tabletop_zoo.baselines import cli

    name = next(name for name, command in COMMANDS.items() if command.module == module)
    cli.run_main(lambda: command_module(name).main(sys.argv[1:]))
