"""Fuzzed flags: every valued flag of every command and lab tool (read from its ``--help``)
given a bad or odd value. argparse's own refusals are read in this process (the program's
``main`` up to its ``parse_args``); a value argparse accepts runs the program in a
subprocess. A refusal is one line naming the program (exit 2); a run that ends by itself
prints no traceback and exits 0, 1 or 2 (an error being one such line); a run that accepted
its flags and is still working after a few seconds is stopped (a valid value: not this
test's business). A few seeded draws, and every flag once, with the long tests."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import random
import re
import runpy
import signal
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

import pytest

from tabletop_zoo.baselines.commands import COMMANDS, command_module
from tests import served

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
GAME = "mole_hill"

#: the flags (and positionals) a program needs before its valued flags are looked at
BASE: dict[str, list[str]] = {
    "record": ["--game", GAME, "--agents", "greedy,random", "--out", "x.gif"],
    "rate": ["--game", GAME, "--agent", "random"],
    "train-alphazero": ["--game", GAME],
    "rules": [GAME],
    "az_curve": ["--game", GAME, "{network}"],
    "seeds": ["--values", "0.5,0.6"],
    "bridge_speed": ["openspiel"],
    "time_agent": ["--game", GAME, "--agent", "random"],
    "leaderboard": [
        "entry",
        "--agent",
        "random",
        "--game",
        GAME,
        "--budget",
        "env_steps=1",
        "--cpu-seconds",
        "1",
        "--out",
        "o",
    ],
    "mutation_score": ["--module", "{file}", "--tests", "{file}"],
}
#: skipped: a window or the terminal (play), a cluster (train-rllib: Ray), the package's own
#: manifest, which make-reference rewrites once its flags are accepted
SKIP = {"play", "train-rllib", "make-reference"}
LAB = sorted(p.stem for p in (SCRIPTS / "lab").glob("*.py"))
#: the subcommand whose flags are fuzzed, for a program with subcommands
SUBCOMMAND = {"leaderboard": ["entry"]}
PROGRAMS = sorted(set(COMMANDS) - SKIP) + LAB
VALUES = ["-1", "0", "nan", "inf", "", "abc", "1e999", "9" * 30, "{dir}", "{file}/x",
          "az:{empty}", "ppo:{empty}", "random,", ",", "-"]  # fmt: skip
VALUED = re.compile(r"\[?(--[a-z][a-z-]*) ([A-Z][A-Z_=]*|\{[^}]*\})")
#: seconds: a run still going by then accepted its flags (served: no start-up; a real
#: interpreter first imports numpy, torch and the package)
STOP_AFTER = 4.0 if served.enabled() else 15.0


class _Parsed(Exception):
    """argparse accepted the flags: what the program does with them is for a real run."""


@functools.cache
def main_of(program: str) -> Callable[[list[str]], object]:
    """The ``main(argv)`` of a command or lab tool (a lab tool's module is run once, not as
    ``__main__``)."""
    if program in COMMANDS:
        return command_module(program).main
    return runpy.run_path(str(SCRIPTS / "lab" / f"{program}.py"))["main"]


def parse_here(program: str, argv: list[str], cwd: Path) -> tuple[int, str, str] | None:
    """``(exit code, stdout, stderr)`` of ``program``'s argparse refusing (or answering, as
    ``--help``) ``argv`` in this process; ``None`` when it accepted them or the program
    stopped before."""
    parse_args = argparse.ArgumentParser.parse_args

    def parse_only(self, *args, **kwargs):
        parse_args(self, *args, **kwargs)
        raise _Parsed

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(argparse.ArgumentParser, "parse_args", parse_only),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        contextlib.chdir(cwd),
    ):
        try:
            main_of(program)(argv)
        except SystemExit as stop:
            return stop.code, out.getvalue(), err.getvalue()
        except Exception:
            return None
    return None


def command_line(program: str) -> list[str]:
    if program in COMMANDS:
        return [str(Path(sys.executable).parent / "tabletop-zoo"), program]
    return [sys.executable, str(SCRIPTS / "lab" / f"{program}.py")]


def run(runner: served.Runner | served.Real, argv: list[str], cwd: Path) -> tuple[int | None, str]:
    """``argv`` in ``cwd`` in a subprocess of ``runner`` (``tests/served.py``): (exit code,
    stderr), or (None, stderr) if stopped."""
    process = subprocess.Popen(
        runner.command(argv), cwd=cwd, env=runner.env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        _out, err = process.communicate(timeout=STOP_AFTER)
        return process.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its workers too
        _out, err = process.communicate()
        return None, err


def valued_flags(program: str, cwd: Path) -> list[str]:
    """The flags of ``program`` that take a value, from its ``--help`` usage lines."""
    answer = parse_here(program, [*SUBCOMMAND.get(program, []), "--help"], cwd)
    assert answer and answer[0] == 0, f"{program} --help: {answer}"
    usage = answer[1].split("\n\n")[0]
    return sorted({m.group(1) for m in VALUED.finditer(usage)})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    from tabletop_zoo.baselines.agents.reference import REFERENCE_DIR

    folder = tmp_path_factory.mktemp("flag_inputs")
    (folder / "empty.npz").write_bytes(b"")
    (folder / "a_file").write_text("x")
    (folder / "a_dir").mkdir()
    return {
        "empty": str(folder / "empty.npz"),
        "file": str(folder / "a_file"),
        "dir": str(folder / "a_dir"),
        "network": str(REFERENCE_DIR / f"{GAME}-2p-alphazero.npz"),
    }


def checked_here(program: str, flag: str, value: str, cwd: Path, inputs: dict[str, str]):
    """Check ``flag value`` in this process if argparse refuses it; else the argv to run."""
    args = [a.format(**inputs) for a in BASE.get(program, [])] + [flag, value.format(**inputs)]
    refused = parse_here(program, args, cwd)
    if refused is None:
        return [*command_line(program), *args]
    code, _out, err = refused
    shown = f"{program} {' '.join(args)!r}:\n{err[-1500:]}"
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and lines and ": error: " in lines[-1], shown
    return None


def check_run(runner: served.Runner | served.Real, argv: list[str], cwd: Path) -> None:
    code, err = run(runner, argv, cwd)
    shown = f"{' '.join(argv[1:])!r}:\n{err[-1500:]}"
    assert "Traceback" not in err, shown
    if code is None:
        return
    assert code in (0, 1, 2), shown
    if code:
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and ": error: " in lines[-1], shown


def fuzz(program: str, cases: list[tuple[str, str]], tmp_path: Path, inputs) -> None:
    """Each ``(flag, value)``: refused here, or run (two at a time), each in its own folder."""
    runs = []
    for i, (flag, value) in enumerate(cases):
        cwd = tmp_path / str(i)
        cwd.mkdir()
        argv = checked_here(program, flag, value, cwd, inputs)
        runs += [(argv, cwd)] if argv else []
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "SDL_VIDEODRIVER": "dummy"}
    runner = served.shared(env)  # pre-imported unless the switch is off; here, not in a thread
    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(check_run, runner, *one) for one in runs]:
            done.result()


def draws(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` seeded (program, value) pairs; the flag is drawn when the test runs."""
    rng = random.Random(seed)
    return [(rng.choice(PROGRAMS), rng.choice(VALUES)) for _ in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize(("program", "value"), draws(2, 0))
def test_a_few_fuzzed_flags(program, value, inputs, tmp_path) -> None:
    flag = random.Random(f"{program}{value}").choice(valued_flags(program, tmp_path))
    fuzz(program, [(flag, value)], tmp_path, inputs)


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS)
def test_every_valued_flag_fuzzed(program, inputs, tmp_path) -> None:
    """Every valued flag once, with a value drawn per flag."""
    rng = random.Random(program)
    flags = valued_flags(program, tmp_path)
    assert flags or program == "rules", program  # rules: a positional game only
    fuzz(program, [(flag, rng.choice(VALUES)) for flag in flags], tmp_path, inputs)
