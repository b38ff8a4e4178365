"""``python scripts/train_alphazero.py ARGS`` runs ``tabletop-zoo train-alphazero ARGS`` in a clone;
the code is ``baselines/commands/train_alphazero.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train_alphazero")
