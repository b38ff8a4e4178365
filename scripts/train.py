"""``python scripts/train.py ARGS`` runs ``tabletop-zoo train ARGS`` in a clone;
the code is ``baselines/commands/train.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train")
