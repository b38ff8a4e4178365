"""``python scripts/play.py ARGS`` runs ``tabletop-zoo play ARGS`` in a clone;
the code is ``baselines/commands/play.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("play")
