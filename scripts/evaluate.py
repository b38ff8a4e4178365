"""``python scripts/evaluate.py ARGS`` in a clone: ``tabletop-zoo evaluate ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("evaluate")
