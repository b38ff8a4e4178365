"""The documented commands that need Ray (marker ``needs ray``), run in CI's RLlib venv by
the same runner as tests/test_doc_commands.py (which skips them where Ray is missing)."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from tests import test_doc_commands as DOC

NEEDS_RAY = [b for b in DOC.BLOCKS if "ray" in b.needs and b.run_by is None]


def test_some_documented_commands_need_ray() -> None:
    assert NEEDS_RAY, "no block is marked 'needs ray': this runner would run nothing"


@pytest.mark.parametrize("block", NEEDS_RAY, ids=[b.name for b in NEEDS_RAY])
def test_ray_doc_commands_run(block, tmp_path_factory) -> None:
    done = DOC.run_block(block, DOC.sandbox(block.page, tmp_path_factory))
    assert done.returncode == 0, (
        f"{block.name} failed (exit {done.returncode}):\n{block.script()}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )
