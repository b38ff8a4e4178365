"""``python scripts/benchmark.py ARGS`` in a clone: ``tabletop-zoo benchmark ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("benchmark")
