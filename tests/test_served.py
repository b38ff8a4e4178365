"""The pre-imported interpreter of the long tests (``tests/served.py``) behaves as a fresh
one: exit codes, standard streams, folder and environment, a signal for the command, a
killed caller; and what it must not serve runs the real interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import served


def with_server(test):
    """Slow (the server imports torch once, about 6 s), and skipped with the switch off."""
    off = pytest.mark.skipif(not served.enabled(), reason="TABLETOP_ZOO_TEST_SERVED=0")
    return pytest.mark.slow(off(test))


def run(runner: served.Runner, command: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], env={**runner.env, **env}, cwd=os.getcwd(),
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def gone_soon(pid: int) -> bool:
    """Whether process ``pid`` ends within 5 s (killed if not)."""
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    os.kill(pid, 9)
    return False


@with_server
def test_a_served_command_is_the_command(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = served.shared({**os.environ, "MPLBACKEND": "Agg"})
    bad = run(runner, "tabletop-zoo rate --game mole_hill --agent nonsense")
    assert bad.returncode == 2 and bad.stderr.splitlines()[-1].startswith(
        "tabletop-zoo rate: error: --agent: unknown agent spec 'nonsense'"
    ), bad.stderr
    good = run(runner, "tabletop-zoo rules mole_hill | head -3")
    assert good.returncode == 0 and "Mole Hill" in good.stdout, good.stdout + good.stderr
    where = "import os, sys; print(os.getcwd(), os.environ['MARK'], sys.argv[1:], "
    where += "'torch' in sys.modules)"
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "where.py").write_text(where + "; sys.exit(3)\n")
    out = run(runner, "python scripts/where.py a 'b c'", MARK="x")
    assert (out.returncode, out.stdout) == (3, f"{tmp_path} x ['a', 'b c'] True\n"), out.stderr
    (tmp_path / "scripts" / "boom.py").write_text("raise RuntimeError('boom')\n")
    boom = run(runner, "python scripts/boom.py")
    assert boom.returncode == 1 and "Traceback" in boom.stderr and "boom" in boom.stderr
    (tmp_path / "scripts" / "wait.py").write_text("import time; time.sleep(60)\n")
    stopped = run(runner, "timeout 2 python scripts/wait.py")
    assert stopped.returncode == 124, stopped.stderr  # SIGTERM reached the command
    fresh = run(runner, "python scripts/where.py", MARK="y", TABLETOP_ZOO_REPRODUCIBLE="0")
    assert (fresh.returncode, fresh.stdout) == (3, f"{tmp_path} y [] False\n")  # not served:
    # a load-time variable changed
    assert run(runner, "python -c 'import sys; print(sys.flags.isolated)'").stdout == "0\n"


@with_server
def test_a_killed_caller_takes_its_command_along(tmp_path) -> None:
    runner = served.shared({**os.environ, "MPLBACKEND": "Agg"})
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "pid.py"
    script.write_text("import os, sys, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n")
    caller = subprocess.Popen(runner.command([sys.executable, str(script)]), env=runner.env,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    pid = int(caller.stdout.readline())
    caller.kill()
    caller.wait()
    assert gone_soon(pid), f"the command {pid} outlived its killed caller"


@with_server
def test_the_server_ends_with_the_process_that_started_it(tmp_path) -> None:
    """A test process that ends without ``atexit`` (as xdist's workers do) leaves no server."""
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[1]); from tests import served; "
        "r = served.Runner(dict(os.environ)); r.wait_ready(); print(r.process.pid, flush=True); "
        "os._exit(0)"
    )
    root = str(Path(served.__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", code, root], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    pid = int(done.stdout)
    assert gone_soon(pid), f"the server {pid} outlived the process that started it"


def test_the_switch_off_runs_the_commands_as_given(monkeypatch) -> None:
    monkeypatch.setenv("TABLETOP_ZOO_TEST_SERVED", "0")
    real = served.shared({"PATH": "/bin"})
    assert real.env == {"PATH": "/bin"} and real.command(["python", "a.py"]) == ["python", "a.py"]
    monkeypatch.setenv("TABLETOP_ZOO_TEST_SERVED", "no")
    with pytest.raises(ValueError, match="0 or 1"):
        served.shared({})
