"""``python scripts/evaluate.py ARGS`` runs ``tabletop-zoo evaluate ARGS`` in a clone;
the code is ``baselines/commands/evaluate.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("evaluate")
