"""``python scripts/rate.py ARGS`` in a clone: ``tabletop-zoo rate ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("rate")
