"""The documentation runs: every Python block of README.md and docs/**/*.md executes as
written, and every observation-plane table matches the encoders' ``plane_names()``.

A block whose fence says ```` ```python no-run ```` is shown, not run (training runs,
protocol signatures); one whose fence says ```` ```python slow ```` runs with the long tests
(``python -m pytest -q -m slow``), not in the default run. A ``print(...)  # text`` line
at the top level of a block states what it prints, and the test holds it to that (unless
the text starts with ``e.g.``), on the compiled engines and on the Python ones
(``TABLETOP_ZOO_FAST=0``). A plane table follows
a marker line ``<!-- planes: GAME players=2,3,4 -->``; its rows give a name pattern in
backticks (``{l}`` level, ``{slot}`` seat or neutral slot, ``{seat}`` seat slot, ``{kind}``
G/D/T, ``{phase}``), the first index per player count and the count (an expression in
``n``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import FAST_SWITCH, GAMES, fast_path_available, new_game

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!-- planes: (\w+) players=([\d,]+) -->\n(\|.*?)\n\n", re.S)
PLACEHOLDERS = {
    "{l}": r"[0-2]",
    "{slot}": r"(?:seat\+\d|neutral)",
    "{seat}": r"seat\+\d",
    "{kind}": r"[GDT]",
    "{phase}": r"(?:setup|opening|normal|melt|choose)",
}


def python_blocks() -> list[tuple[str, int, str]]:
    """``(file, block number, code)`` of every runnable Python block."""
    found = []
    for path in DOCS:
        for k, match in enumerate(FENCE.finditer(path.read_text())):
            if "no-run" not in match.group(1):
                found.append((str(path.relative_to(ROOT)), k, match.group(2)))
    return found


def slow_blocks() -> set[tuple[str, int]]:
    """``(file, block number)`` of the blocks whose fence says ``slow``."""
    found = set()
    for path in DOCS:
        for k, match in enumerate(FENCE.finditer(path.read_text())):
            if "slow" in match.group(1).split():
                found.add((str(path.relative_to(ROOT)), k))
    return found


BLOCKS = python_blocks()
SLOW_BLOCKS = slow_blocks()


def block_params(blocks: list[tuple[str, int, str]]) -> list:
    """The blocks as test parameters named ``file#number``, the slow ones marked slow."""
    return [
        pytest.param(
            *block,
            id=f"{block[0]}#{block[1]}",
            marks=[pytest.mark.slow] if block[:2] in SLOW_BLOCKS else [],
        )
        for block in blocks
    ]


def test_the_docs_have_examples_for_every_game() -> None:
    files = {name for name, _k, _code in BLOCKS}
    assert "README.md" in files
    for name in GAMES:
        assert f"docs/envs/{name}.md" in files


CLAIM = re.compile(r"^print\(.*\)  # (.+)$")


def claims(code: str) -> dict[int, str]:
    """Line number -> stated output of the block's top-level ``print(...)  # text`` lines
    (not those whose text starts with ``e.g.``)."""
    found = {}
    for number, line in enumerate(code.splitlines(), start=1):
        match = CLAIM.match(line)
        if match and not match.group(1).startswith("e.g."):
            found[number] = match.group(1)
    return found


def run_block(name: str, index: int, code: str) -> None:
    """Run one block; every stated output must be what its line prints."""
    printed: dict[int, list[str]] = {}

    def recording_print(*values: object, sep: str = " ", **_kwargs: object) -> None:
        line = sys._getframe(1).f_lineno
        printed.setdefault(line, []).append(sep.join(str(v) for v in values))

    scope = {"__name__": "docs_example", "print": recording_print}
    exec(compile(code, f"{name} example {index}", "exec"), scope)
    for line, stated in claims(code).items():
        assert printed.get(line) == [stated], f"{name} example {index}, line {line}"


@pytest.mark.slow
@pytest.mark.parametrize(("name", "index", "code"), block_params(BLOCKS))
def test_doc_example_runs(name: str, index: int, code: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    run_block(name, index, code)


CLAIMING = [block for block in BLOCKS if claims(block[2])]


@pytest.mark.skipif(not fast_path_available(), reason="numba missing: the run above was Python")
@pytest.mark.parametrize(("name", "index", "code"), block_params(CLAIMING))
def test_doc_example_prints_the_same_on_the_python_engines(
    name: str, index: int, code: str, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(FAST_SWITCH, "0")
    run_block(name, index, code)


def test_stated_outputs_are_found() -> None:
    assert "(6, 6, 81) (2323,)" in claims("x = 1\nprint(a, b)  # (6, 6, 81) (2323,)\n").values()
    assert not claims("print(a)  # e.g. [14, 8]\n    print(b)  # 3\n")


def plane_tables() -> list[tuple[str, str, list[int], list[list[str]]]]:
    """``(file, game, player counts, rows)`` of every marked plane table."""
    tables = []
    for path in DOCS:
        for match in MARKER.finditer(path.read_text()):
            lines = match.group(3).splitlines()[2:]  # skip header and |---|
            rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
            players = [int(p) for p in match.group(2).split(",")]
            tables.append((str(path.relative_to(ROOT)), match.group(1), players, rows))
    return tables


TABLES = plane_tables()


def test_every_game_has_a_checked_plane_table() -> None:
    assert sorted(game for _f, game, _p, _r in TABLES) == sorted(GAMES)


@pytest.mark.parametrize(("doc", "game", "players", "rows"), TABLES, ids=[t[1] for t in TABLES])
def test_plane_table_matches_the_encoder(doc, game, players, rows) -> None:
    spec = GAMES[game]
    for column, n in enumerate(players):
        encoder = spec.make_observation_encoder(new_game(game, num_players=n), max_turns=300)
        names = encoder.plane_names()
        assert len(names) == encoder.shape[-1]
        position = 0
        for row in rows:
            pattern, firsts, count = row[0], row[1], row[2]
            first = int(firsts.split("/")[column].strip())
            expected = eval(count.replace("·", "*"), {"n": n})  # e.g. "9·(n+1)"
            assert first == position, f"{doc}: {pattern} starts at {position} for {n} players"
            regex = pattern.strip("`")
            for placeholder, part in PLACEHOLDERS.items():
                regex = regex.replace(placeholder, part)
            block = names[position : position + expected]
            assert len(block) == expected, f"{doc}: {pattern} runs past the last plane"
            for name in block:
                assert re.fullmatch(regex, name), f"{doc}: plane {name!r} is not {pattern}"
            position += expected
        assert position == len(names), f"{doc}: the table covers {position} of {len(names)}"
