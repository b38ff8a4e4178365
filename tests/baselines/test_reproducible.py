"""The reproducible mode (``tabletop_zoo.baselines.reproducible``): the switch itself, its
place in the commands' start-up, child processes that train the same seeded run with
torch's kernels and MKL's code path forced to different instruction sets, and the weights
that run ends in on each kind of CPU we know (its fingerprints)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from importlib.metadata import version
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


def test_off_by_default_for_the_commands_and_for_programs_that_configure(monkeypatch) -> None:
    monkeypatch.delenv(reproducible.VARIABLE, raising=False)
    assert reproducible.DEFAULT is False
    assert reproducible.requested(["--seed", "1"]) is False
    monkeypatch.setenv(reproducible.VARIABLE, "1")
    assert reproducible.requested(["--seed", "1"]) is True


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


def test_the_start_up_configures_before_the_command_is_imported(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(reproducible, "configure", lambda argv: calls.append(("mode", argv)))

    def command_module(name: str) -> object:
        calls.append(("import", name))
        return type("Command", (), {"main": staticmethod(lambda argv: 0)})

    monkeypatch.setattr(commands, "command_module", command_module)
    with pytest.raises(SystemExit):
        commands.main(["train", "--seed", "1"])
    assert calls == [("mode", ["--seed", "1"]), ("import", "train")]


def test_every_network_command_has_the_flag() -> None:
    for name in ("train", "train-alphazero", "evaluate", "rate", "play", "record"):
        parser = commands.command_module(name).build_parser()
        assert any(reproducible.FLAG in action.option_strings for action in parser._actions)


# ------------------------------------------------------------- child processes (slow)


def _cpu() -> dict[str, str]:
    """The first processor's fields of ``/proc/cpuinfo`` (``vendor_id``, ``flags``, ...)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().split("\n\n")[0].splitlines()
    except OSError:
        return {}
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in lines if ":" in line)}


def _need(*flags: str) -> None:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"torch's x86-64 kernel paths; this CPU is {platform.machine()}")
    missing = sorted(set(flags) - set(_cpu().get("flags", "").split()))
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


# ------------------------------------------- fingerprints of the CPUs we know (slow)

VERSIONS = {
    "torch": "2.13.0",
    "numpy": "2.4.6",
    "stable_baselines3": "2.9.2",
    "sb3_contrib": "2.9.2",
}
"""The packages the fingerprints were measured with; other versions may change them."""
KINDS = {  # name: (vendor_id, flags it has, flags it lacks)
    "intel-avx512": ("GenuineIntel", {"avx2", "fma", "avx512f"}, set()),
    "amd-avx2": ("AuthenticAMD", {"avx2", "fma"}, {"avx512f"}),
}
MODE = "5a5d253aaa27db37e59b77c7bf0c41a30a262132cd3697923afaff376c6a6add"
"""The child's weights in the mode, the same on every kind."""
OWN_PATHS = {
    "intel-avx512": "156e962d57e0394cf62590f8613d2ef7ff175aeb4497761f97b73337b068f31a",
    "amd-avx2": "6f0b56b599d9b72dcf15e382fb13209aa7e92a66212f63d442724b73d59078c7",
}
"""Without the mode: each kind's own kernel paths, its own weights. Measured 2026-12-08 on an
Intel Xeon @ 2.80GHz (Ice Lake); the AMD kind **emulated** on it (``qemu-x86_64 -cpu
EPYC-Rome``, QEMU 7.2, which computes ``rsqrtps`` exactly), not yet on an AMD CPU: a failure
there says where our emulation and the real CPU part (docs/reproducibility.md)."""


def _cpu_kind() -> str:
    """The :data:`KINDS` entry of this CPU, or a skip that says what it is."""
    cpu = _cpu()
    vendor, flags = cpu.get("vendor_id", platform.machine()), set(cpu.get("flags", "").split())
    for name, (maker, has, lacks) in KINDS.items():
        if vendor == maker and has <= flags and not lacks & flags:
            found = {package: version(package).split("+")[0] for package in VERSIONS}
            if found != VERSIONS:
                pytest.skip(f"fingerprints measured with {VERSIONS}, this venv has {found}")
            return name
    pytest.skip(f"no fingerprints for this CPU ({vendor}, {cpu.get('model name', '?')})")


@pytest.mark.slow
def test_the_mode_ends_in_the_same_weights_on_every_cpu_we_know() -> None:
    _cpu_kind()
    assert run_child(True)["weights"] == MODE


@pytest.mark.slow
def test_without_the_mode_each_cpu_kind_ends_in_its_own_weights() -> None:
    assert run_child(False)["weights"] == OWN_PATHS[_cpu_kind()]
