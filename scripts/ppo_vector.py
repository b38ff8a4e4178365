"""``python scripts/ppo_vector.py ARGS`` in a clone: ``tabletop-zoo ppo-vector ARGS``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("ppo_vector")
