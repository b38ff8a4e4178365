"""``python scripts/train.py ARGS`` in a clone: ``tabletop-zoo train ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train")
