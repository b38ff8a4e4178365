"""A pre-imported interpreter for the commands the long tests run by the hundred.

Most of a documented command's time in CI was its start-up: Python, NumPy, the package,
torch (3.5 s) and the ``torch._dynamo`` that torch's optimizers import on first use (3.5 s
more), once for each of about 230 commands. :class:`Runner` imports all of it once, in a
server process; each command then runs in a fork of it, with the command's own arguments,
folder, environment and standard streams (passed over a Unix socket), and exits with the
command's code. The documented commands of the long pages (``tests/test_doc_commands.py``),
the flag fuzz (``tests/scripts/test_flag_fuzz.py``) and the crafted model files of
``tests/scripts/test_trust_model_flag.py`` run their commands so. Only
``python scripts/*.py ARGS`` and ``tabletop-zoo ARGS`` go there; any other ``python``
(options first, ``-c``, ``-m``,
``--[no-]reproducible``, a changed ``NUMBA_*``/``TABLETOP_ZOO_*``/thread variable) runs the
real interpreter. The start-up itself is tested where it matters: ``tests/test_package.py``
(the wheel), ``tests/scripts/test_ctrl_c_at_start.py`` and every subprocess test.

``python tests/served.py SOCKET`` is the server (:func:`shared` starts one per test process
and set of load-time variables); :data:`CLIENT` (standard library only,
``python -I -S``) is what the ``python`` and ``tabletop-zoo`` of the shim folder run.

``TABLETOP_ZOO_TEST_SERVED=0`` (the switch) runs the same commands on the real interpreter,
each a fresh process as a user starts it: CI runs the documented commands so.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from tabletop_zoo.baselines import reproducible

#: variables read when a library loads: a command that changes one runs the real interpreter
LOAD_TIME = ("NUMBA_", "OMP_", "MKL_", "OPENBLAS_", "KMP_", "TORCH", "PYTORCH", "ATEN_",
             "TABLETOP_ZOO_", "PYTHON", "CUDA")  # fmt: skip
#: what the server imports before it serves (each one if installed)
PRELOAD = ("numpy", "torch", "torch._dynamo", "torch.optim", "gymnasium", "pettingzoo",
           "stable_baselines3", "sb3_contrib", "matplotlib.pyplot", "numba", "imageio",
           "tabletop_zoo", "tabletop_zoo.baselines.commands", "tabletop_zoo.baselines.agents",
           "tabletop_zoo.baselines.training.alphazero", "tabletop_zoo.baselines.training.train",
           "tabletop_zoo.baselines.training.ppo_vector", "tabletop_zoo.envs.compiled.warm_up",
           "tabletop_zoo.baselines.evaluation.rate", "tabletop_zoo.wrappers")  # fmt: skip

CLIENT = r"""
import json, os, signal, socket, sys
real, sock_path, console = sys.argv[1], sys.argv[2], sys.argv[3]
args = sys.argv[4:]
if console == "-":  # python ARGS: only a script of a scripts/ folder
    served = bool(args) and args[0].endswith(".py") and os.path.isfile(args[0]) and (
        "scripts" in args[0].replace("\\", "/"))
    argv = args
else:
    served, argv = True, [console, *args]
served = served and not {"--reproducible", "--no-reproducible"} & set(args)
base = json.loads(os.environ["SERVED_ENV"])
prefixes = tuple(os.environ["SERVED_LOAD_TIME"].split(","))
for key in set(base) | set(os.environ):
    if key.startswith(prefixes) and base.get(key) != os.environ.get(key):
        served = False
if not served:
    os.execv(real, [real, *argv])
conn = socket.socket(socket.AF_UNIX)
conn.connect(sock_path)
header = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
socket.send_fds(conn, [len(header).to_bytes(8, "big") + header], [0, 1, 2])
reader = conn.makefile("r")
pid = int(reader.readline())
def forward(signum, frame):
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(s, forward)
status = int(reader.readline() or "-9")
if status < 0:  # killed by a signal: so is this process
    signal.signal(-status, signal.SIG_DFL)
    os.kill(os.getpid(), -status)
sys.exit(status)
"""


class Real:
    """The switch off: the commands as given, on the real interpreter."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def command(self, argv: list[str]) -> list[str]:
        return argv


class Runner:
    """The server process and the shim folder whose ``python`` and ``tabletop-zoo`` use it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="served_"))
        self.socket = self.folder / "socket"
        self.bin = bin_dir = self.folder / "bin"
        bin_dir.mkdir()
        (self.folder / "client.py").write_text(CLIENT)
        real = sys.executable
        console = str(Path(real).parent / "tabletop-zoo")
        for name, launcher in (("python", "-"), ("tabletop-zoo", console)):
            shim = bin_dir / name
            shim.write_text(f'#!/bin/sh\nexec "{real}" -I -S "{self.folder / "client.py"}" '
                            f'"{real}" "{self.socket}" "{launcher}" "$@"\n')  # fmt: skip
            shim.chmod(0o755)
        self.log = self.folder / "server.log"  # the server's own output (an import error)
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [real, __file__, str(self.socket)], env=env, stdin=subprocess.DEVNULL,
                stdout=log, stderr=log, start_new_session=True,
            )  # fmt: skip
        loaded = {k: v for k, v in env.items() if k.startswith(LOAD_TIME)}
        self.env = {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}",
                    "SERVED_ENV": json.dumps(loaded),
                    "SERVED_LOAD_TIME": ",".join(LOAD_TIME)}  # fmt: skip
        atexit.register(self.close)

    def wait_ready(self, timeout: float = 300) -> None:
        """Block until the server listens (its imports take about ten seconds)."""
        end = time.monotonic() + timeout
        while not self.socket.exists():
            if self.process.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"the served interpreter did not start: {self.log.read_text()}")
            time.sleep(0.1)

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` (the console script or ``sys.executable`` first) through the shims."""
        program = "python" if argv[0] == sys.executable else Path(argv[0]).name
        if program not in ("python", "tabletop-zoo"):
            return argv
        return [str(self.bin / program), *argv[1:]]

    def close(self) -> None:
        """Stop the server (the commands it ran have ended)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_SHARED: dict[tuple, Runner] = {}


def enabled() -> bool:
    """The switch: ``TABLETOP_ZOO_TEST_SERVED`` unset or ``1`` serves, ``0`` does not."""
    value = os.environ.get("TABLETOP_ZOO_TEST_SERVED", "1")
    if value not in ("0", "1"):
        raise ValueError(f"TABLETOP_ZOO_TEST_SERVED={value!r}: 0 or 1")
    return value == "1"


def shared(env: dict[str, str]) -> Runner | Real:
    """This process's runner for ``env`` (its load-time variables), started on first use
    (ask from one thread); it is handed out once it listens. With the switch off, the real
    interpreter."""
    if not enabled():
        return Real(env)
    key = tuple(sorted((k, v) for k, v in env.items() if k.startswith(LOAD_TIME)))
    if key not in _SHARED:
        runner = Runner(env)
        runner.wait_ready()
        _SHARED[key] = runner
    return _SHARED[key]


def _run_command(header: dict, fds: list[int]) -> None:
    """In the forked child: become the command and never return."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.setpgid(0, 0)  # a group of its own: a signal for the command reaches its workers too
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(header["cwd"])
    pinned = {k: v for k, v in os.environ.items() if k in reproducible.PINNED}  # as pin() set
    os.environ.clear()
    os.environ.update(header["env"] | pinned)
    argv = header["argv"]
    code = 0
    try:
        import runpy

        sys.argv = list(argv)
        sys.path[0] = str(Path(argv[0]).resolve().parent)
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # as Python's own exit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        if code < 0:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        os._exit(code)


def _serve_one(connection: socket.socket) -> None:
    """In a child of the server: fork the command, tell the client its pid and its end."""
    message, fds, _flags, _address = socket.recv_fds(connection, 1 << 24, 3)
    size = int.from_bytes(message[:8], "big")
    while len(message) < 8 + size:
        message += connection.recv(1 << 24)
    header = json.loads(message[8 : 8 + size])
    pid = os.fork()
    if pid == 0:
        connection.close()
        _run_command(header, fds)
    os.setpgid(pid, pid)  # as the child does: no signal can come before its group exists
    for fd in fds:
        os.close(fd)
    # the watcher first: a client killed before it reads the pid must take the command along
    threading.Thread(target=_kill_when_gone, args=(connection, pid), daemon=True).start()
    try:
        connection.sendall(f"{pid}\n".encode())
    except OSError:
        pass  # the client is gone: the watcher kills the command
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    try:
        connection.sendall(f"{code}\n".encode())
    except OSError:
        pass  # the client is gone (killed): nobody to tell


def _kill_when_gone(connection: socket.socket, pid: int) -> None:
    """The client closed its end (killed: SIGKILL cannot be forwarded): so goes the command,
    with its workers."""
    try:
        connection.recv(1)
    except OSError:
        pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def serve(path: str) -> None:
    """Import :data:`PRELOAD`, listen at ``path`` and fork a command per connection; end
    when the test process that started it is gone (xdist's workers skip ``atexit``)."""
    import importlib

    parent = os.getppid()
    reproducible.configure()  # TABLETOP_ZOO_REPRODUCIBLE, as each command reads it
    for module in PRELOAD:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the children reap themselves
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # ready
    sys.stdout.flush()
    sys.stderr.flush()
    listener.settimeout(1.0)
    while os.getppid() == parent:
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            continue
        connection.settimeout(None)
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # waitpid below needs its child
            try:
                _serve_one(connection)
            finally:
                os._exit(0)
        connection.close()
    os._exit(0)  # nothing to tear down: a normal exit would unload torch, seconds under load


if __name__ == "__main__":
    serve(sys.argv[1])
