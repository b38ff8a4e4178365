"""The reproducible mode (``tabletop_zoo.baselines.reproducible``): the switch itself, its
place in the commands' start-up, and child processes that train the same seeded run with
torch's kernels and MKL's code path forced to different instruction sets."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_zoo.baselines import commands, reproducible
from tabletop_zoo.envs.errors import InvalidOptionError

ROOT = Path(__file__).resolve().parents[2]
CLEARED = (reproducible.VARIABLE, *reproducible.PINNED, "GLIBC_TUNABLES")
NO_FMA = "glibc.cpu.hwcaps=-AVX2,-FMA"
"""The C library's maths as on a CPU without AVX2 and FMA (its ``expf``, ``logf``... pick
other code by the CPU; the ``default`` kernels call them)."""


@pytest.mark.parametrize(
    ("argv", "variable", "expected"),
    [
        ([], None, True),
        ([], "0", False),
        ([], " Off ", False),
        (["--no-reproducible"], "1", False),
        (["--reproducible", "--no-reproducible"], None, False),
        (["--no-reproducible", "--reproducible"], "no", True),
        (["--", "--no-reproducible"], None, True),  # after "--" it is not a flag
    ],
)
def test_the_flag_wins_over_the_variable_over_the_default(
    monkeypatch, argv, variable, expected
) -> None:
    if variable is None:
        monkeypatch.delenv(reproducible.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(reproducible.VARIABLE, variable)
    assert reproducible.requested(argv, default=True) is expected


def test_a_bad_variable_is_one_line_of_the_commands(monkeypatch, capsys) -> None:
    monkeypatch.setenv(reproducible.VARIABLE, "maybe")
    with pytest.raises(InvalidOptionError, match="must be 1 or 0"):
        reproducible.requested()
    with pytest.raises(SystemExit) as exit_info:
        commands.main(["rules", "--help"])
    assert exit_info.value.code == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "TABLETOP_ZOO_REPRODUCIBLE must be 1 or 0" in message


def test_pin_and_release_before_torch_loads(monkeypatch) -> None:
    monkeypatch.setenv("MKL_CBWR", "AVX2")
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    monkeypatch.delitem(sys.modules, "torch", raising=False)  # as before torch loads
    reproducible.pin()
    assert reproducible.is_pinned()
    reproducible.release()
    assert os.environ["MKL_CBWR"] == "AVX2" and "ATEN_CPU_CAPABILITY" not in os.environ


def test_too_late_once_torch_loaded_without_the_mode(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", object())
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    with pytest.raises(InvalidOptionError, match="before torch is imported"):
        reproducible.pin()


@pytest.mark.parametrize("console", [False, True])
def test_the_start_up_configures_before_the_command_is_imported(monkeypatch, console) -> None:
    """On by default when the console script is the program, off when a test calls main."""
    calls = []
    monkeypatch.setattr(
        reproducible, "configure", lambda argv, default: calls.append(("mode", argv, default))
    )

    def command_module(name: str) -> object:
        calls.append(("import", name))
        return type("Command", (), {"main": staticmethod(lambda argv: 0)})

    monkeypatch.setattr(commands, "command_module", command_module)
    if console:
        monkeypatch.setattr(sys, "argv", ["/venv/bin/tabletop-zoo", "train", "--seed", "1"])
    with pytest.raises(SystemExit):
        commands.main(["train", "--seed", "1"])
    assert calls == [("mode", ["--seed", "1"], console), ("import", "train")]


def test_every_network_command_has_the_flag() -> None:
    for name in ("train", "train-alphazero", "evaluate", "rate", "play", "record"):
        parser = commands.command_module(name).build_parser()
        assert any(reproducible.FLAG in action.option_strings for action in parser._actions)


# ------------------------------------------------------------- child processes (slow)


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in
            line.split(":", 1)[1].split()}  # fmt: skip


def _need(*flags: str) -> None:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"torch's x86-64 kernel paths; this CPU is {platform.machine()}")
    missing = sorted(set(flags) - _cpu_flags())
    if missing:
        pytest.skip(f"this CPU lacks {', '.join(missing)}")


_RUNS: dict[tuple, dict[str, str]] = {}


def run_child(mode: bool, **forced: str) -> dict[str, str]:
    """The child's JSON (kernel path, weights hash), with the mode on or off and the
    variables ``forced`` (none of the caller's); each run once per test session."""
    key = (mode, tuple(sorted(forced.items())))
    if key not in _RUNS:
        env = {name: value for name, value in os.environ.items() if name not in CLEARED}
        env.update(forced, OMP_NUM_THREADS="1", TABLETOP_ZOO_THREADS="1")
        flag = "--reproducible" if mode else "--no-reproducible"
        child = [sys.executable, "-m", "tests.baselines.reproducible_child", flag]
        done = subprocess.run(child, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        _RUNS[key] = json.loads(done.stdout.strip().splitlines()[-1])
    return _RUNS[key]


AVX2 = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
DEFAULT_NO_FMA = {"ATEN_CPU_CAPABILITY": "default", "GLIBC_TUNABLES": NO_FMA}


@pytest.mark.slow
def test_the_mode_trains_the_same_bytes_on_every_kernel_path() -> None:
    _need("avx2", "fma")
    avx2, default = run_child(True, **AVX2), run_child(True, **DEFAULT_NO_FMA)
    assert avx2["capability"] == default["capability"] == "DEFAULT"
    assert avx2["weights"] == default["weights"]
    # the mode is the two variables: a program that sets them itself gets the same bytes
    by_hand = run_child(False, **reproducible.PINNED)
    assert by_hand == avx2


@pytest.mark.slow
def test_the_mode_trains_the_same_bytes_on_the_avx512_path() -> None:
    _need("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq")
    avx512 = run_child(True, ATEN_CPU_CAPABILITY="avx512", MKL_CBWR="AVX512")
    assert avx512 == run_child(True, **AVX2)
    assert run_child(False, ATEN_CPU_CAPABILITY="avx512")["capability"] == "AVX512"


@pytest.mark.slow
def test_without_the_mode_each_lever_changes_the_bytes() -> None:
    """So the test above would notice a mode that left either lever to the CPU."""
    _need("avx2", "fma")
    avx2 = run_child(False, **AVX2)
    assert avx2["capability"] == "AVX2"
    other_mkl = run_child(False, ATEN_CPU_CAPABILITY="avx2", MKL_CBWR="COMPATIBLE")
    other_aten = run_child(False, **reproducible.PINNED)
    assert len({avx2["weights"], other_mkl["weights"], other_aten["weights"]}) == 3
