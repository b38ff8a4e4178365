"""Ctrl-C while a program is still importing: one line and exit 130 in our programs (the
console script, the shims of ``scripts/``, the lab tools), Python's own traceback in anyone
else's (``tabletop_zoo._startup``).

The child stalls at a chosen import: a ``sitecustomize`` put on its ``PYTHONPATH`` adds an
import finder that, when the module named by ``STALL_AT`` is first imported, prints
``stalling`` and sleeps. The test sends SIGINT only once it has read that line, so the
interruption lands inside that import however slow the machine is. (Also: ``run_main``'s
one line for running out of memory.)
"""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tabletop_zoo import _startup

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

STALLING_SITECUSTOMIZE = """
import os, sys, time

class _Stall:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["STALL_AT"]:
            sys.meta_path.remove(self)
            sys.stdout.write("stalling\\n")
            sys.stdout.flush()
            time.sleep(120)
        return None

sys.meta_path.insert(0, _Stall())
"""


def console_script() -> str:
    """The ``tabletop-zoo`` console script of this test's venv."""
    path = Path(sys.executable).parent / "tabletop-zoo"
    assert path.is_file(), f"no {path}: 'pip install -e .' in the clone installs it"
    return str(path)


def interrupt_while_importing(
    argv: list[str], module: str, folder: Path, start: Callable[..., subprocess.Popen]
) -> subprocess.CompletedProcess:
    """Run ``argv`` stalled at the first import of ``module``, then send it SIGINT."""
    (folder / "sitecustomize.py").write_text(STALLING_SITECUSTOMIZE)
    process = start(*argv, cwd=folder, env={"PYTHONPATH": str(folder), "STALL_AT": module})
    try:
        line = process.stdout.readline()
        assert line == "stalling\n", (line, process.communicate(timeout=120))
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


CASES = {
    # the console script: inside `import tabletop_zoo` (numpy, gymnasium), then its own
    # imports before run_main, then the command's imports inside run_main
    "tabletop-zoo, importing the package": ("console", "gymnasium", "tabletop-zoo evaluate"),
    "tabletop-zoo, before the command runs": (
        "console",
        "tabletop_zoo.baselines.agents",
        "tabletop-zoo evaluate",
    ),
    "tabletop-zoo, importing the command": (
        "console",
        "tabletop_zoo.baselines.commands.evaluate",
        "tabletop-zoo evaluate",
    ),
    "a shim, importing the package": ("scripts/evaluate.py", "gymnasium", "evaluate.py"),
    "a shim, before the command runs": (
        "scripts/evaluate.py",
        "tabletop_zoo.baselines.agents",
        "evaluate.py",
    ),
    "a lab tool, importing numpy": ("scripts/lab/soak.py", "numpy", "soak.py"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_ctrl_c_while_importing_is_one_line_and_exit_130(case, tmp_path, start_for_ctrl_c) -> None:
    program, module, name = CASES[case]
    if program == "console":
        argv = [console_script(), "evaluate", "--games", "1"]
    else:
        argv = [sys.executable, str(SCRIPTS.parent / program)]
    result = interrupt_while_importing(argv, module, tmp_path, start_for_ctrl_c)
    assert result.returncode == 130, result.stderr
    assert result.stderr == f"{name}: interrupted\n"


def test_other_programs_importing_the_package_keep_pythons_behaviour(tmp_path, start_for_ctrl_c):
    """A user's program is not ours to change: Python's traceback and its SIGINT exit."""
    argv = [sys.executable, "-c", "import tabletop_zoo"]
    result = interrupt_while_importing(argv, "gymnasium", tmp_path, start_for_ctrl_c)
    assert result.returncode == -signal.SIGINT
    assert "Traceback" in result.stderr and result.stderr.endswith("KeyboardInterrupt\n")


def test_our_programs_are_recognised_by_their_launcher_or_folder() -> None:
    program = _startup.our_program
    shim = str(SCRIPTS / "rate.py")
    assert program(["/venv/bin/tabletop-zoo", "rate", "--game"], "/venv/bin/tabletop-zoo") == (
        "tabletop-zoo rate"
    )
    assert program(["C:/venv/Scripts/tabletop-zoo.exe", "train-alphazero"], "x") == (
        "tabletop-zoo train-alphazero"
    )
    assert program(["/venv/bin/tabletop-zoo", "--help"], "x") == "tabletop-zoo"
    assert program(["/venv/bin/tabletop-zoo"], "x") == "tabletop-zoo"
    assert program([shim, "--game"], shim) == "rate.py"
    lab = str(SCRIPTS / "lab" / "soak.py")
    assert program([lab], lab) == "soak.py"
    assert program(["my_script.py"], "/home/me/my_script.py") is None
    assert program(["-c"], None) is None  # python -c, the REPL, multiprocessing's workers
    assert program([], shim) is None


def test_the_hook_passes_every_other_error_on(monkeypatch) -> None:
    """A bug keeps its traceback: the previous hook gets everything but an interruption."""
    seen = []
    monkeypatch.setattr(sys, "excepthook", lambda *args: seen.append(args))
    monkeypatch.setattr(sys, "argv", ["/venv/bin/tabletop-zoo", "rate"])
    _startup.guard_program_start()
    assert sys.excepthook is not seen.append
    error = ValueError("a bug")
    sys.excepthook(ValueError, error, None)
    assert seen == [(ValueError, error, None)]
    assert _startup._interrupted(KeyboardInterrupt())
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ImportError("a library turned it into its own error") from None
    except ImportError as converted:  # `from None` hides the cause, the context stays
        assert _startup._interrupted(converted)
    assert not _startup._interrupted(error)


def _first_imports(path: Path) -> list[str]:
    """The modules ``path`` imports at its top level before its first ``tabletop_zoo``."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        else:
            continue
        if any(m.split(".")[0] == "tabletop_zoo" for m in modules):
            return names
        names += modules
    return names


@pytest.mark.parametrize("path", sorted(SCRIPTS.rglob("*.py")), ids=lambda p: p.stem)
def test_every_script_imports_the_package_before_any_other_library(path: Path) -> None:
    """Only the standard library (milliseconds) may come before ``tabletop_zoo``, whose
    import installs the guard; numpy first would leave its import unguarded."""
    others = [m for m in _first_imports(path) if m.split(".")[0] not in sys.stdlib_module_names]
    assert others == [], f"{path.name} imports {others} before tabletop_zoo"


def test_run_main_turns_running_out_of_memory_into_one_line(capsys) -> None:
    """A flag that asks for more memory than there is (no cap can know the machine)."""
    from tabletop_zoo.baselines import cli

    def asks_too_much() -> int:
        raise MemoryError

    with pytest.raises(SystemExit) as exc:
        cli.run_main(asks_too_much, prog="tool.py")
    assert exc.value.code == 1
    assert capsys.readouterr().err == (
        "tool.py: error: not enough memory for this run (do the flags ask for too much?)\n"
    )
