"""One BLAS / torch thread per process for the networks, unless TABLETOP_ZOO_THREADS asks
for another count (checked in fresh processes: thread settings are per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tabletop_zoo.baselines.agents.threads import THREADS_VARIABLE, limit_threads
from tabletop_zoo.envs.errors import InvalidOptionError

# Builds the shipped AlphaZero reference of the first ladder (NumPy's BLAS), prints the
# BLAS threads before and after, and torch's after loading torch and building it again.
PROBE = """
import json
from threadpoolctl import threadpool_info
from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.agents.reference import load_manifest

name = next(n for n, e in load_manifest()["models"].items() if e["kind"] == "alphazero")

def blas():
    return sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})


before = blas()
make_agent("ref:" + name)
after = blas()
import torch
torch.set_num_threads(2)
make_agent("ref:" + name)
print(json.dumps([before, after, torch.get_num_threads()]))
"""


def _probe(threads: str | None) -> list:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.pop(THREADS_VARIABLE, None)
    if threads is not None:
        env[THREADS_VARIABLE] = threads
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@pytest.mark.slow
def test_networks_get_one_thread_by_default() -> None:
    before, after, torch_threads = _probe(None)
    assert after == [1] and torch_threads == 1, (before, after)


@pytest.mark.slow
def test_the_variable_asks_for_more_threads_or_the_defaults() -> None:
    _before, after, torch_threads = _probe("2")
    assert after == [2] and torch_threads == 2
    before, after, torch_threads = _probe("0")
    assert after == before and torch_threads == 2  # untouched: what the process had


@pytest.mark.parametrize("bad", ["-1", "two", "1.5"])
def test_a_bad_count_is_one_clear_error(bad: str, monkeypatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, bad)
    with pytest.raises(InvalidOptionError, match=THREADS_VARIABLE):
        limit_threads()
    with pytest.raises(InvalidOptionError, match="threads must be"):
        limit_threads(0)
