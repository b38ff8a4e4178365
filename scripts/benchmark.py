"""``python scripts/benchmark.py ARGS`` runs ``tabletop-zoo benchmark ARGS`` in a clone;
the code is ``baselines/commands/benchmark.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("benchmark")
