"""Fuzzed flags: every valued flag of every command and lab tool (read from its ``--help``)
given a bad or odd value in a subprocess. A run that ends by itself prints no traceback and
exits 0, 1 or 2 (an error being one line naming the program); a run that accepted its flags
and is still working after a few seconds is stopped (a valid value: not this test's
business). A few seeded draws in the default run, every flag once with the long tests."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tabletop_zoo.baselines.commands import COMMANDS
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
    "network_batches": ["--game", GAME],
    "bench_single_agent": ["--game", GAME],
    "time_agent": ["--game", GAME, "--agent", "random"],
    "mutation_score": ["--module", "{file}", "--tests", "{file}"],
}
#: skipped: a window or the terminal (play), a cluster (train-rllib: Ray), the package's own
#: manifest, which make-reference rewrites once its flags are accepted
SKIP = {"play", "train-rllib", "make-reference"}
LAB = sorted(p.stem for p in (SCRIPTS / "lab").glob("*.py"))
PROGRAMS = sorted(set(COMMANDS) - SKIP) + LAB
VALUES = ["-1", "0", "nan", "inf", "", "abc", "1e999", "9" * 30, "{dir}", "{file}/x",
          "az:{empty}", "ppo:{empty}", "random,", ",", "-"]  # fmt: skip
VALUED = re.compile(r"\[?(--[a-z][a-z-]*) ([A-Z][A-Z_=]*|\{[^}]*\})")
STOP_AFTER = 4.0  # seconds: a run still going by then accepted its flags (no start-up)


def command_line(program: str) -> list[str]:
    if program in COMMANDS:
        return [str(Path(sys.executable).parent / "tabletop-zoo"), program]
    return [sys.executable, str(SCRIPTS / "lab" / f"{program}.py")]


def run(argv: list[str], cwd: Path) -> tuple[int | None, str]:
    """``argv`` in ``cwd``, started from a pre-imported interpreter (``tests/served.py``):
    (exit code, stderr), or (None, stderr) if stopped."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "SDL_VIDEODRIVER": "dummy"}
    runner = served.shared(env)
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


def valued_flags(program: str) -> list[str]:
    """The flags of ``program`` that take a value, from its ``--help`` usage lines."""
    out = subprocess.run(
        [*command_line(program), "--help"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    usage = out.stdout.split("\n\n")[0]
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


def check(program: str, flag: str, value: str, cwd: Path, inputs: dict[str, str]) -> None:
    base = [a.format(**inputs) for a in BASE.get(program, [])]
    argv = [*command_line(program), *base, flag, value.format(**inputs)]
    code, err = run(argv, cwd)
    shown = f"{' '.join(argv[1:])!r}:\n{err[-1500:]}"
    assert "Traceback" not in err, shown
    if code is None:
        return
    assert code in (0, 1, 2), shown
    if code:
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and ": error: " in lines[-1], shown


def draws(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` seeded (program, value) pairs; the flag is drawn when the test runs."""
    rng = random.Random(seed)
    return [(rng.choice(PROGRAMS), rng.choice(VALUES)) for _ in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize(("program", "value"), draws(2, 0))
def test_a_few_fuzzed_flags(program, value, inputs, tmp_path) -> None:
    flags = valued_flags(program)
    flag = random.Random(f"{program}{value}").choice(flags)
    check(program, flag, value, tmp_path, inputs)


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS)
def test_every_valued_flag_fuzzed(program, inputs, tmp_path) -> None:
    """Every valued flag once, with a value drawn per flag; two runs at a time."""
    rng = random.Random(program)
    flags = valued_flags(program)
    assert flags or program == "rules", program  # rules: a positional game only
    cases = [(flag, rng.choice(VALUES), tmp_path / str(i)) for i, flag in enumerate(flags)]
    for *_, cwd in cases:
        cwd.mkdir()
    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(check, program, *case, inputs=inputs) for case in cases]:
            done.result()
