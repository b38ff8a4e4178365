"""Golden playthroughs: regenerate each seeded game of every spec and compare with its file."""

from __future__ import annotations

import pytest

from tests.envs.golden.specs import GOLDEN_DIR, render, specs


@pytest.mark.parametrize("name", sorted(specs()))
def test_golden_playthrough_unchanged(name: str) -> None:
    path = GOLDEN_DIR / f"{name}.txt"
    assert path.exists(), f"missing {path}: run python scripts/regen_golden.py"
    expected = path.read_text()
    got = render(name)
    assert got == expected, (
        f"{name} differs from {path}. If the rules changed on purpose, run "
        "python scripts/regen_golden.py and review the diff."
    )


def test_every_golden_file_belongs_to_a_spec() -> None:
    stored = {path.stem for path in GOLDEN_DIR.glob("*.txt")}
    assert stored == set(specs()), "golden files and GameSpec.golden_seeds disagree"
