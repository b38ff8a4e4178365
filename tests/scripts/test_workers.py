"""Worker processes end with their parent: the commands that start processes (``evaluate
--workers 2``, whose pool ``rate`` and ``make-reference ladder`` share, and ``train --vec
subproc``, SB3's SubprocVecEnv) are killed with SIGKILL once their workers run, and no
process of theirs remains a few seconds later (Linux: the processes are read from /proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (its children, theirs, ...), as /proc has them now."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            try:
                children = {int(c) for c in task.read_text().split()}
            except OSError:  # the process ended meanwhile
                continue
            todo += children - found
            found |= children
    return found


def _running(pid: int) -> bool:
    try:  # a zombie has ended: only its exit status waits for its new parent
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


TRAIN = ["--timesteps", "100000", "--n-envs", "2", "--vec", "subproc", "--engine", "python"]
WORKERS = {  # the command's flags and what it prints once its workers run
    "evaluate": (["--agents", "mcts:100,greedy", "--games", "8", "--workers", "2"], "| 1/8"),
    "train": ([*TRAIN, "--net-arch", "8", "--eval-every", "0"], "training mole_hill"),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(WORKERS))
def test_killing_a_command_leaves_no_worker(command, tmp_path) -> None:
    """evaluate: its progress bar counts a game once a worker of the pool played it (the
    processes: 2 workers, multiprocessing's resource tracker); train: its first line comes
    once the SubprocVecEnv's workers answered (2 workers, the forkserver, the tracker)."""
    argv, started = WORKERS[command]
    console = Path(sys.executable).parent / "tabletop-zoo"
    argv = [str(console), command, "--game", "mole_hill", *argv]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True}
    output, process = "", subprocess.Popen(argv, cwd=tmp_path, env=env, **pipes)
    while started not in output and process.poll() is None:
        output += process.stdout.read(1)
    workers = _descendants(process.pid)
    process.kill()
    process.wait()
    assert len(workers) >= 3, (output, workers)
    deadline = time.monotonic() + 5
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if _running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} processes outlived {command}"
