"""Show a game's rules: the full rules page with the project's numbered rulings
(``docs/rules/*.md``, package data; a game's help module names it in ``RULES_PAGE``), or the
one-screen summary that ``rules`` at the prompt of ``tabletop-zoo play`` prints."""

from __future__ import annotations

import argparse
from importlib import resources

from tabletop_zoo.envs.registry import GAMES

DECISIONS = "decisions"
DECISIONS_PAGE = "DECISIONS.md"


def rules_page(file_name: str) -> str:
    """The text of the rules page ``file_name`` (e.g. ``"DECISIONS.md"``) from the package."""
    return resources.files("tabletop_zoo").joinpath("rules", file_name).read_text("utf-8")


def pages() -> dict[str, str]:
    """``{name: page file}``: every game whose help module names a page, and the decisions."""
    found = {name: getattr(spec.help_module(), "RULES_PAGE", None) for name, spec in GAMES.items()}
    return {**{name: page for name, page in found.items() if page}, DECISIONS: DECISIONS_PAGE}


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(
        description="Show a game's rules with the project's rulings, or its summary."
    )
    p.add_argument(
        "page",
        nargs="?",
        choices=sorted(pages()),
        help="a game, or 'decisions' (what the code decides where no ruling answers); "
        "none: list the pages",
    )
    p.add_argument(
        "--summary", action="store_true", help="the one-screen summary of the game's rules"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    known = pages()
    if args.page is None:
        if args.summary:
            parser.error("--summary needs a game")
        width = max(map(len, known))
        for name, file_name in known.items():
            lines = rules_page(file_name).splitlines()
            title = next((line for line in lines if line.startswith("#")), "").lstrip("# ")
            print(f"{name:<{width}}  {file_name:<14}  {title.strip()}")
        return 0
    if args.summary:
        if args.page == DECISIONS:
            parser.error("--summary needs a game, not 'decisions'")
        print(GAMES[args.page].help_module().RULES_SUMMARY)
        return 0
    text = rules_page(known[args.page])
    stripped = text.lstrip()  # an HTML comment opening it: a note for the repository's pages
    if stripped.startswith("<!--") and "-->" in stripped:
        text = stripped.split("-->", 1)[1].lstrip("\n")
    print(text, end="")
    return 0
