"""``python scripts/make_reference.py ARGS`` in a clone: ``tabletop-zoo make-reference ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("make_reference")
