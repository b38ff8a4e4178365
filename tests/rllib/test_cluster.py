"""The cluster recipe of docs/ecosystem.md on one machine: ``ray start --head`` in one
folder, then the recipe's training and tournament commands from another (with the smaller
budget its marker names), so every path a worker reads must be absolute.

The worker-node line (``ray start --address=HEAD_IP:6379``) needs a second machine and is
the only command left out.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")


from tests import test_doc_commands as DOC

THIS = "tests/rllib/test_cluster.py"
BOOTSTRAP = Path(tempfile.gettempdir(), "ray", "ray_current_cluster")
PROBE = "import ray; ray.init(address='auto', log_to_driver=False); ray.shutdown()"
(RECIPE,) = [b for b in DOC.BLOCKS if b.run_by == THIS]


@pytest.mark.slow
def test_cluster_recipe_runs_on_one_machine(tmp_path, tmp_path_factory) -> None:
    head = [c for c in RECIPE.commands if c.startswith("ray start --head")]
    workers = [c for c in RECIPE.commands if "HEAD_IP" in c]
    rest = [c for c in RECIPE.commands if c not in head and c not in workers]
    assert len(head) == 1 and len(workers) == 1 and rest
    assert not BOOTSTRAP.exists(), f"a Ray head is already running here ({BOOTSTRAP})"
    started_in = tmp_path / "head"  # the workers' working folder: not the commands' one
    started_in.mkdir()
    env = DOC.run_environment()
    # --block: the head runs in the foreground, and stopping this process stops its Ray;
    # one machine: every Ray process talks over the loopback address only
    node = subprocess.Popen(
        ["bash", "-c", f"exec {head[0]} --node-ip-address=127.0.0.1 --block"],
        cwd=started_in,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        status = None
        for _ in range(120):  # wait until the head answers
            status = subprocess.run(  # a driver joins (it reads Ray's token, as drivers do)
                [sys.executable, "-c", PROBE],
                env=env,
                capture_output=True,
                text=True,
            )
            if status.returncode == 0 or node.poll() is not None:
                break
            time.sleep(1)
        assert node.poll() is None and status.returncode == 0, status.stderr
        block = DOC.Block(RECIPE.page, RECIPE.line, rest, appended=RECIPE.appended)
        done = DOC.run_block(block, DOC.sandbox(RECIPE.page, tmp_path_factory))
        assert done.returncode == 0, (
            f"{block.script()}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n"
            f"{done.stderr[-3000:]}"
        )
        assert done.stdout.count("module_main") >= 2  # both tournaments played the module
    finally:
        node.terminate()
        try:
            node.wait(timeout=60)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()
        # the pointer `ray start` left to its (stopped) head, as `ray stop` removes it: else
        # a later ray.init() on this machine tries to join the dead head
        BOOTSTRAP.unlink(missing_ok=True)
