"""The documentation runs: every Python block of README.md and docs/**/*.md executes as
written, and every observation-plane table matches the encoders' ``plane_names()``.

A block whose fence says ```` ```python no-run ```` is shown, not run (training runs,
protocol signatures). A plane table follows a marker line
``<!-- planes: GAME players=2,3,4 -->``; its rows give a name pattern in backticks (``{l}``
level, ``{slot}`` seat or neutral slot, ``{seat}`` seat slot, ``{kind}`` G/D/T, ``{phase}``),
the first index per player count and the count (an expression in ``n``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES, new_game

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)
PRINTS = re.compile(r"#\s*prints:\s*(.*?)\s*$", re.M)
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


BLOCKS = python_blocks()


def test_the_docs_have_examples_for_every_game() -> None:
    files = {name for name, _k, _code in BLOCKS}
    assert "README.md" in files
    for name in GAMES:
        assert f"docs/envs/{name}.md" in files


@pytest.mark.parametrize(("name", "index", "code"), BLOCKS, ids=[f"{b[0]}#{b[1]}" for b in BLOCKS])
def test_doc_example_runs(name: str, index: int, code: str, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    exec(compile(code, f"{name} example {index}", "exec"), {"__name__": "docs_example"})
    # a comment ``# prints: TEXT`` promises the line printed there: the lines printed must be
    # those texts, in order (``# e.g.`` marks output that may differ between runs)
    promised = PRINTS.findall(code)
    if promised:
        assert capsys.readouterr().out.splitlines() == promised


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
