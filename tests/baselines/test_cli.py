"""The Ctrl-C handler of our commands (``baselines/cli.py``): a KeyboardInterrupt, except
inside numba's compiler, where it would be printed as ignored and lost; there the signal
comes again shortly."""

from __future__ import annotations

import signal
import time
from types import SimpleNamespace

import pytest

from tabletop_zoo.baselines import cli


def _frame(filename: str, back: SimpleNamespace | None = None) -> SimpleNamespace:
    return SimpleNamespace(f_code=SimpleNamespace(co_filename=filename), f_back=back)


def test_ctrl_c_outside_the_compiler_is_a_keyboard_interrupt() -> None:
    frame = _frame("/clone/baselines/commands/rate.py", _frame("/clone/scripts/rate.py"))
    with pytest.raises(KeyboardInterrupt):
        cli._ctrl_c(signal.SIGINT, frame)


def test_ctrl_c_inside_the_compiler_is_sent_again(monkeypatch) -> None:
    sent = []
    monkeypatch.setattr(cli, "_RETRY_SECONDS", 0.0)
    monkeypatch.setattr(cli.os, "kill", lambda pid, signum: sent.append((pid, signum)))
    ours = _frame("/clone/envs/compiled/base.py")
    for path in ("/venv/site-packages/llvmlite/binding/executionengine.py",
                 "/venv/site-packages/numba/core/compiler.py"):  # fmt: skip
        cli._ctrl_c(signal.SIGINT, _frame(path, ours))  # no exception: deferred
    for _ in range(100):  # the timers run on their own threads
        if len(sent) == 2:
            break
        time.sleep(0.01)
    assert [signum for _, signum in sent] == [signal.SIGINT, signal.SIGINT]
