"""``python scripts/train_alphazero.py ARGS`` in a clone: ``tabletop-zoo train-alphazero ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("train_alphazero")
