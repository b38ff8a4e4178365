"""The generic half of every game's compiled twin (``envs/<game>/fast/``; docs/DESIGN.md)."""
