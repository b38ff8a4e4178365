"""What every command shares (``tabletop-zoo COMMAND``, ``scripts/*.py``, the lab tools):
flag types, output checks and the main wrapper.

Bad input gets one line on stderr and a non-zero exit, never a traceback, and every flag is
checked before the work starts: argparse ``type=`` functions (:func:`integer`,
:func:`number`, :data:`SEED`, :func:`output_file`, :func:`output_folder`) exit 2 with
argparse's usage line; checks of several flags (:func:`players`, :func:`check_agents`)
raise our documented errors (:mod:`tabletop_zoo.envs.errors`). :func:`run_main` turns
those, a missing extra, an unwritable file and Ctrl-C into one line::

      prog: error: <message>          exit 2  (TabletopZooError: bad flag, spec, file)
      prog: error: <message>          exit 1  (MissingExtraError, Failed, OSError, MemoryError)
      prog: interrupted: <message>    exit 130 (Ctrl-C; the message says what was saved)

A script that keeps partial results catches ``KeyboardInterrupt``, saves them and raises
:class:`Interrupted` saying what it wrote.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from tabletop_zoo._startup import INTERRUPTED
from tabletop_zoo.baselines import reproducible
from tabletop_zoo.baselines.agents import CODE_REFUSED, agent_spec_forms, runs_code
from tabletop_zoo.baselines.agents.checks import MAX_LAYER, MAX_PROCESSES, SEED_LIMIT
from tabletop_zoo.envs._files import check_output_file, check_output_folder
from tabletop_zoo.envs.errors import InvalidOptionError, TabletopZooError
from tabletop_zoo.envs.extras import MissingExtraError

USAGE_ERROR = 2
FAILURE = 1

_PROGRAM: str | None = None
"""``"tabletop-zoo train"`` while the console script runs a command, else ``None``."""


def program(script: str) -> str:
    """How a command names itself in messages: ``tabletop-zoo <command>`` from the console
    script, else ``script`` (``"train.py"`` or ``"scripts/train.py"``)."""
    return _PROGRAM or script


@contextmanager
def running_as(prog: str, args: Sequence[str] | None = None) -> Iterator[None]:
    """Within the block, :func:`program` gives ``prog`` and ``sys.argv`` is ``[prog, *args]``
    (``args`` by default: the present ones), so usage lines name the command as typed."""
    global _PROGRAM
    saved = _PROGRAM, sys.argv
    _PROGRAM, sys.argv = prog, [prog, *(sys.argv[1:] if args is None else args)]
    try:
        yield
    finally:
        _PROGRAM, sys.argv = saved


class Interrupted(Exception):
    """Ctrl-C after the script saved what was complete; the message says what it saved."""


class Failed(Exception):
    """A run that cannot go on for a reason other than bad input (exit 1)."""


def command(main: Callable[[list[str] | None], int]) -> Callable[[list[str] | None], int]:
    """A command's ``main`` where a missing extra or :class:`Failed` is one line, exit 1."""
    script = Path(inspect.getfile(main)).name

    @functools.wraps(main)
    def run(argv: list[str] | None = None) -> int:
        try:
            return main(argv)
        except (MissingExtraError, Failed) as exc:
            return _say(program(script), f"error: {exc}", FAILURE)

    return run


@contextmanager
def usage_errors(
    parser: argparse.ArgumentParser, errors: tuple[type[Exception], ...] = (ValueError,)
) -> Iterator[None]:
    """Within the block, ``errors`` (our bad-input errors are ``ValueError``) are
    ``parser.error``: the usage line and the message on one line, exit 2."""
    try:
        yield
    except errors as exc:
        parser.error(one_line(exc))


@contextmanager
def recorded_games(log: Any, script: str, argv: Sequence[str], note: str = "") -> Iterator[None]:
    """Play a run's games into ``log`` (a ``GameLog``, finished after the block); dead workers
    (:class:`Failed`) and Ctrl-C say, after ``note``, what was recorded and how to resume."""
    from tabletop_zoo.baselines.evaluation.arena import IncompleteRunError

    again = program(f"python scripts/{script}")
    try:
        yield
    except IncompleteRunError as exc:
        raise Failed(f"{exc}; {note}{log.stopped(again, argv)}") from None
    except KeyboardInterrupt:
        raise Interrupted(note + log.stopped(again, argv)) from None
    log.finish()


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines too) turned into one space."""
    return " ".join(str(text).split())


def run_main(main: Callable[[], int | None], prog: str | None = None) -> NoReturn:
    """Run a script's ``main()`` (the reproducible mode set first) and exit with its code; bad
    input and Ctrl-C end in one line on stderr (the module docstring has the codes)."""
    prog = prog or Path(sys.argv[0]).name
    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _ctrl_c)  # only Python's own handler is replaced
    try:
        reproducible.configure(sys.argv[1:])
        code = main()
    except Interrupted as exc:
        code = _say(prog, f"interrupted: {exc}", INTERRUPTED)
    except KeyboardInterrupt:
        code = _say(prog, "interrupted", INTERRUPTED)
    except (MissingExtraError, Failed) as exc:
        code = _say(prog, f"error: {exc}", FAILURE)
    except TabletopZooError as exc:
        code = _say(prog, f"error: {exc}", USAGE_ERROR)
    except OSError as exc:
        code = _say(prog, f"error: {os_error_text(exc)}", FAILURE)
    except MemoryError:
        message = "not enough memory for this run (do the flags ask for too much?)"
        code = _say(prog, f"error: {message}", FAILURE)
    sys.exit(0 if code is None else code)


_COMPILER = re.compile(r"[/\\](numba|llvmlite)[/\\]")  # a frame of numba's compiler
_RETRY_SECONDS = 0.05


def _ctrl_c(signum: int, frame: FrameType | None) -> None:
    """SIGINT while a command runs: ``KeyboardInterrupt``, except inside numba or llvmlite,
    whose ctypes callbacks print it as ignored and go on: there it is sent again shortly,
    until it lands after the compiler step."""
    while frame is not None:
        if _COMPILER.search(frame.f_code.co_filename):
            retry = threading.Timer(_RETRY_SECONDS, os.kill, (os.getpid(), signum))
            retry.daemon = True
            retry.start()
            return
        frame = frame.f_back
    raise KeyboardInterrupt


def _say(prog: str, message: str, code: int) -> int:
    sys.stdout.flush()
    print(one_line(f"{prog}: {message}"), file=sys.stderr, flush=True)
    return code


def os_error_text(exc: OSError) -> str:
    """``exc`` as ``'<file>': <reason>`` (e.g. a full disk or a missing permission)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{exc.filename!r}: {reason}" if exc.filename is not None else reason


def integer(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """argparse type: an integer in ``low..high`` (either end open when ``None``)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_wanted(low, high)}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{_wanted(low, high)}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def _wanted(
    low: float | None, high: float | None, kind: str = "an integer", low_open: bool = False
) -> str:
    if low_open:
        return f"must be {kind} > {low}" + (f" and <= {high}" if high else "")
    if low is not None and high is not None:
        return f"must be {kind} in {low}..{high}"
    above = "" if low is None else f" >= {low}"
    return f"must be {kind}{above}" + ("" if high is None else f" <= {high}")


SEED = integer(0, SEED_LIMIT - 1)
"""argparse type of every ``--seed``: ``0..2**32-1`` (the seeds NumPy and SB3 take)."""
PROCESSES = integer(1, MAX_PROCESSES)
"""argparse type of ``--workers`` and ``--torch-threads``: ``1..MAX_PROCESSES``."""


def number(
    low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[str], float]:
    """argparse type: a finite number in ``[low, high]`` (``(low, high]`` if ``low_open``)."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            value = math.nan
        too_low = low is not None and (value <= low if low_open else value < low)
        if not math.isfinite(value) or too_low or (high is not None and value > high):
            wanted = _wanted(low, high, "a number", low_open)
            raise argparse.ArgumentTypeError(f"{wanted}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def _argparse_type(check: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """An argparse type from a check that raises ``InvalidOptionError``."""

    def parse(text: str) -> Any:
        try:
            return check(text)
        except InvalidOptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def layer_sizes(text: str) -> tuple[int, ...]:
    """argparse type of ``--hidden``: comma separated layer sizes in 1..:data:`MAX_LAYER`."""
    width = integer(1, MAX_LAYER)
    return tuple(width(part) for part in text.split(",") if part.strip()) or (width(text),)


def key_values(items: Iterable[str], flag: str) -> dict[str, Any]:
    """A repeated ``KEY=VALUE`` flag (``--env-option``) as a dict, a value JSON when it
    parses (``true``, ``3``), else text; ``InvalidOptionError`` naming ``flag`` for a bad item."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidOptionError(f"{flag} needs KEY=VALUE, got {item!r}")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def output_file(*suffixes: str) -> Callable[[str], str]:
    """argparse type: a file name we can write (:func:`check_output_file`), kept as given."""
    return _argparse_type(lambda text: str(check_output_file(text, suffixes) and text), "file")


def output_folder() -> Callable[[str], str]:
    """argparse type: a folder we can make or write in (:func:`check_output_folder`)."""
    return _argparse_type(lambda text: str(check_output_folder(text) and text), "folder")


def players(game: str, num_players: int | None, flag: str = "--num-players") -> int:
    """The player count of ``game`` (its default for ``None``); ``InvalidOptionError``
    naming the counts the game allows."""
    from tabletop_zoo.envs.registry import get_spec

    spec = get_spec(game)
    count = spec.default_players if num_players is None else num_players
    if count not in spec.players:
        allowed = ", ".join(map(str, spec.players))
        raise InvalidOptionError(f"{flag} {count}: {spec.title} is played by {allowed} players")
    return count


def check_agents(
    specs: str | Iterable[str],
    game: str | None = None,
    num_players: int | None = None,
    flag: str = "--agents",
    code: bool = True,
    human: bool = False,
) -> list[str]:
    """The agent specs (a comma-separated string or a list), each checked by
    :func:`~tabletop_zoo.baselines.agents.checks.check_agent_spec`; errors name ``flag``.
    ``code=False``: ``py:`` refused (specs kept in a file and read again)."""
    from tabletop_zoo.baselines.agents.checks import check_agent_spec

    items = specs.split(",") if isinstance(specs, str) else list(specs)
    items = [s.strip() for s in items if s.strip()]
    if not items:
        raise InvalidOptionError(f"{flag}: no agent spec given; allowed: {agent_help()}")
    checked = []
    for spec in items:
        try:
            if runs_code(spec) and not code:
                raise InvalidOptionError(f"agent spec {spec!r}: {CODE_REFUSED}")
            checked.append(check_agent_spec(spec, game, num_players, human=human))
        except InvalidOptionError as exc:
            raise type(exc)(f"{flag}: {exc}") from None
    return checked


def check_agent(
    spec: str, game: str | None = None, num_players: int | None = None, flag: str = "--agent"
) -> str:
    """One agent spec (not a list), checked as by :func:`check_agents`."""
    specs = check_agents(spec, game, num_players, flag=flag)
    if len(specs) != 1:
        raise InvalidOptionError(f"{flag} takes one agent spec, got {spec!r}")
    return specs[0]


agent_help = agent_spec_forms
"""The agent spec forms for ``--help`` texts (``human=True``: with ``human``)."""
