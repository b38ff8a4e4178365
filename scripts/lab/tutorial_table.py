"""Write the results table of docs/tutorials/README.md from the tutorials' own result files.

Example::

    python scripts/lab/tutorial_table.py runs/tutorials/*/result.json

Every tutorial writes ``<out>/result.json`` (``runs/tutorials/<name>/`` by default); the
table between the page's two markers gets one row per file: library versions, algorithm,
budget, training CPU-seconds, the env's share of them, and the win rates with their Wilson
95% intervals. A missing or malformed file is one line, and the page stays as it was.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.evaluation import outside_results
from tabletop_zoo.envs._files import write_text_atomic

BEGIN = "<!-- results table: written by scripts/lab/tutorial_table.py -->"
END = "<!-- end of the results table -->"


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Write the tutorials' results table.")
    p.add_argument("results", nargs="+", help="the tutorials' result.json files")
    p.add_argument("--page", default="docs/tutorials/README.md", help="the page to write")
    args = p.parse_args(argv)
    with cli.usage_errors(p, (ValueError, OSError)):
        results = [outside_results.read_result(path) for path in args.results]
        table = outside_results.result_table(results) + "\n"
        text = outside_results.between_markers(Path(args.page).read_text(), BEGIN, END, table)
    write_text_atomic(args.page, text)
    print(f"wrote the table of {len(results)} results into {args.page}")
    return 0


if __name__ == "__main__":
    cli.run_main(main)
