"""The flag builders the commands (and the lab scripts) share: the fields of a config
dataclass (:func:`config_flags`: each flag's default is its field's; :func:`call` reads them
back), ``--game`` and ``--num-players``, repeatable ``KEY=VALUE`` options, the
trainers' resumable checkpoints (``--checkpoint-every``, ``--resume RUN``) and the record of
a run's games (``--out``, ``--resume``, ``--no-progress``). The flags' types are in
:mod:`tabletop_zoo.baselines.cli`."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.evaluation.game_log import FILE_NAME
from tabletop_zoo.baselines.training.checkpoint import DEFAULT_EVERY
from tabletop_zoo.envs.registry import GAMES


def config_flags(parser: argparse.ArgumentParser, config: type) -> Callable[..., None]:
    """``add(field, *flags, **options)`` adds the flag of a field of the dataclass ``config``
    (``--field`` with dashes, unless ``flags`` names it), its default the field's (a tuple
    or a list as a comma list, given to the flag's ``type``): the config is the one source
    of the defaults."""
    fields = {field.name: field for field in dataclasses.fields(config)}

    def add(name: str, *flags: str, **options: Any) -> None:
        field = fields[name]
        value = field.default_factory() if field.default is dataclasses.MISSING else field.default
        value = ",".join(map(str, value)) if isinstance(value, tuple | list) else value
        parser.add_argument(*(flags or ["--" + name.replace("_", "-")]), default=value, **options)

    return add


def call(function: Callable[..., Any], args: argparse.Namespace, **given: Any) -> Any:
    """``function(**given)`` with each of its other parameters that ``args`` has a flag of
    (a config dataclass: its fields) set from the flag."""
    names = inspect.signature(function).parameters
    return function(**{name: value for name, value in vars(args).items() if name in names} | given)


def pick(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The flags ``names`` of ``args`` as a dict (e.g. a run's settings, kept with its games)."""
    return {name: getattr(args, name) for name in names}


def add_game_flags(
    parser: argparse.ArgumentParser, game: str | None = None, players_help: str = ""
) -> None:
    """``--game`` (one of the registry's games; default ``game``, required when None) and
    ``--num-players`` (default: the game's smallest count; ``players_help`` says more)."""
    parser.add_argument("--game", choices=sorted(GAMES), default=game, required=game is None)
    help_text = "default: the game's smallest count" + players_help
    parser.add_argument("--num-players", type=cli.integer(1), default=None, help=help_text)


def add_key_values(parser: argparse.ArgumentParser, flag: str, what: str) -> None:
    """A repeatable ``flag KEY=VALUE`` (read by :func:`~tabletop_zoo.baselines.cli.key_values`);
    ``what`` starts its help."""
    help_text = f"{what}; values parsed as JSON if possible"
    parser.add_argument(flag, action="append", default=[], metavar="KEY=VALUE", help=help_text)


def add_checkpoint_flags(parser: argparse.ArgumentParser, run: str) -> None:
    """``--checkpoint-every SECONDS`` and ``--resume RUN`` (``run``: what RUN names)."""
    parser.add_argument(
        "--checkpoint-every",
        type=cli.number(0),
        default=DEFAULT_EVERY,
        metavar="SECONDS",
        help=f"wall seconds between resumable checkpoints (default {DEFAULT_EVERY:g}; 0: at "
        "every chance)",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN",
        help=f"continue the run {run} from its last checkpoint, with its own settings",
    )


def refuse_other_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """With ``--resume``, a settings flag is an error: the checkpoint holds the settings
    (``--checkpoint-every``, ``--no-progress``, ``--[no-]reproducible`` may change)."""
    keep, defaults = {"resume", "checkpoint_every", "no_progress", "reproducible"}, {}
    if args.resume is not None:
        defaults = vars(parser.parse_args([]))
    for key in (k for k in defaults if k not in keep and defaults[k] != vars(args)[k]):
        parser.error(f"--resume keeps the run's own settings; leave out --{key.replace('_', '-')}")


def add_game_log_flags(parser: argparse.ArgumentParser, default: str, tables: bool = False) -> None:
    """``--out FOLDER`` (``default``; the record of the games, and the tables if ``tables``),
    ``--resume`` and ``--no-progress``, as every command that records its games has them."""
    holds = f"the record of the games ({FILE_NAME})" + (" and the tables" if tables else "")
    parser.add_argument(
        "--out",
        type=cli.output_folder(),
        default=default,
        help=f"output folder: {holds} (default {default})",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help=f"play only the games not yet recorded in --out's {FILE_NAME} (a run stopped by "
        "Ctrl-C, a kill or a dead worker): the same tables as an uninterrupted run",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown where tqdm is installed)"
    )


def progress(args: argparse.Namespace) -> bool:
    """Whether the games show a progress bar (tqdm, on stderr): unless ``--no-progress``, and
    where tqdm is installed (the ``train`` extra); a base install plays without a bar."""
    return not args.no_progress and find_spec("tqdm") is not None
