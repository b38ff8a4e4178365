"""``python scripts/record.py ARGS`` runs ``tabletop-zoo record ARGS`` in a clone;
the code is ``baselines/commands/record.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("record")
