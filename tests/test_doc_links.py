"""Every relative link and image of every Markdown file in the repository points to a file
that exists (and, for ``file.md#anchor``, to a heading of that file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP_FOLDERS = {"runs", "results", "build", "dist", "node_modules"}
PAGES = sorted(
    path
    for path in ROOT.rglob("*.md")
    if not any(
        part.startswith(".") or part in SKIP_FOLDERS or part.endswith(".egg-info")
        for part in path.relative_to(ROOT).parts[:-1]
    )
)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_SOURCE = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""")
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.S | re.M)


def links(text: str) -> list[str]:
    """Link targets of a page, leaving out code (fenced blocks and inline code)."""
    prose = CODE.sub("", text)
    return [*LINK.findall(prose), *HTML_SOURCE.findall(prose)]


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings (lower case, punctuation out, spaces to -)."""
    found = set()
    for heading in re.findall(r"^#+\s+(.+?)\s*#*$", CODE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def test_the_link_checker_sees_the_pages_and_their_links() -> None:
    names = {str(path.relative_to(ROOT)) for path in PAGES}
    assert {"README.md", "docs/baselines.md"} <= names
    assert links('[a](b.md) `[c](d.md)` ![e](f.png) <img src="g.gif">') == [
        "b.md",
        "f.png",
        "g.gif",
    ]
    assert anchors("# Quick start\n## Other libraries: OpenSpiel, RLlib\n") == {
        "quick-start",
        "other-libraries-openspiel-rllib",
    }


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text()
    broken = []
    for target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.exists():
            broken.append(f"{target} (no file {destination.relative_to(ROOT.parent)})")
        elif anchor and destination.suffix == ".md":
            if anchor not in anchors(destination.read_text()):
                broken.append(f"{target} (no heading #{anchor})")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"
