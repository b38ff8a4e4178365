"""``python scripts/make_reference.py ARGS`` runs ``tabletop-zoo make-reference ARGS`` in a clone;
the code is ``baselines/commands/make_reference.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("make_reference")
