"""``python scripts/train_rllib.py ARGS`` in a clone: ``tabletop-zoo train-rllib ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train_rllib")
