"""``python scripts/train_rllib.py ARGS`` runs ``tabletop-zoo train-rllib ARGS`` in a clone;
the code is ``baselines/commands/train_rllib.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train_rllib")
