"""``python scripts/ppo_vector.py ARGS`` runs ``tabletop-zoo ppo-vector ARGS`` in a clone;
the command is ``baselines/commands/ppo_vector.py``, the loop
``baselines/training/ppo_vector.py``."""

from tabletop_zoo.baselines.commands import run_script

if __name__ == "__main__":
    run_script("ppo_vector")
