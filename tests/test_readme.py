"""The README's Python examples run as written (training examples excepted: too slow here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
# Blocks that train a model (covered by tests/scripts and tests/wrappers) or only show a
# protocol's signature are not run here.
SKIP = ("learn(", "train(", "class Agent(Protocol)")
RUNNABLE = [b for b in BLOCKS if not any(word in b for word in SKIP)]


def test_readme_has_examples() -> None:
    assert len(RUNNABLE) >= 5


@pytest.mark.parametrize("index", range(len(RUNNABLE)))
def test_readme_example_runs(index: int, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(RUNNABLE[index], f"README.md example {index}", "exec"), {"__name__": "readme"})
