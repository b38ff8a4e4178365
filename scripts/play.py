"""``python scripts/play.py ARGS`` in a clone: ``tabletop-zoo play ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("play")
