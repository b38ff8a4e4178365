"""Regenerate the golden playthrough files after an intended rule change.

    python scripts/regen_golden.py            # rewrite all files
    python scripts/regen_golden.py --check    # exit 1 if any file differs

The golden games are the ``golden_seeds`` of every ``GameSpec`` in
``tabletop_zoo.envs.registry.GAMES``; ``tests/envs/test_golden.py`` regenerates each and
compares.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.envs._files import write_text_atomic
from tabletop_zoo.envs.playthrough import golden_games, golden_text

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "tests" / "envs" / "golden"


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (1 when ``--check`` finds a difference)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, do not write")
    args = parser.parse_args(argv)
    differs = False
    try:
        for name in golden_games():
            path = GOLDEN_DIR / f"{name}.txt"
            text = golden_text(name)
            if not args.check:
                write_text_atomic(path, text)
                print(f"wrote {path}")
            elif not path.exists() or path.read_text() != text:
                print(f"DIFFERS: {path}")
                differs = True
    except KeyboardInterrupt:
        raise cli.Interrupted("the files listed above are written; the others unchanged") from None
    return 1 if differs else 0


if __name__ == "__main__":
    cli.run_main(main)
