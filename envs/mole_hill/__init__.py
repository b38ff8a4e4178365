"""Mole Hill rules engine (no RL imports)."""
