"""``python scripts/rate.py ARGS`` runs ``tabletop-zoo rate ARGS`` in a clone;
the code is ``baselines/commands/rate.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("rate")
