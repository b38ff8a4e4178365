"""scripts/lab/mutation_score.py: mutants of a toy module against a toy test, in a copy."""

from __future__ import annotations

import json

import pytest

TOY = """def clamp(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x + 1
"""
TOY_TEST = """import pytest

from toy import clamp


def test_clamp() -> None:  # misses the boundary x = 0
    assert clamp(5) == 6
    with pytest.raises(ValueError):
        clamp(-5)
"""


def test_mutants_of_lists_each_kind_once_per_place(script) -> None:
    tool = script("mutation_score")
    whats = sorted(m.what for m in tool.mutants_of(TOY))
    assert whats == sorted(
        ["condition negated", "Lt -> LtE", "0 -> 1", "0 -> -1", "raise -> pass", "Add -> Sub",
         "1 -> 2", "1 -> 0"]
    )  # fmt: skip
    for mutant in tool.mutants_of(TOY):
        compile(mutant.apply(TOY), "toy", "exec")


@pytest.mark.slow
def test_scores_a_toy_module_in_a_copy_and_writes_json(script, tmp_path, capsys) -> None:
    """The toy test misses the boundary ``x = 0``: the three mutants that move it survive,
    the other five are killed; the toy file itself is never written to."""
    (tmp_path / "toy.py").write_text(TOY)
    (tmp_path / "test_toy.py").write_text(TOY_TEST)
    out = tmp_path / "out" / "score.json"
    argv = ["--root", str(tmp_path), "--module", "toy.py", "--tests", "test_toy.py",
            "--mutants", "100", "--timeout", "60", "--out", str(out)]  # fmt: skip
    assert script("mutation_score").main(argv) == 0
    assert (tmp_path / "toy.py").read_text() == TOY
    result = json.loads(out.read_text())["modules"]["toy.py"]
    assert result["mutants"] == result["available"] == 8
    assert (result["killed"], result["timeouts"], result["survived"]) == (5, 0, 3)
    assert result["survivors"] == [
        {"line": 2, "mutation": what} for what in ("Lt -> LtE", "0 -> -1", "0 -> 1")
    ]
    printed = capsys.readouterr().out
    assert "toy.py" in printed and "5       0        3 62%" in printed
    assert "survived: toy.py:2: Lt -> LtE" in printed
