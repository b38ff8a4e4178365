"""Arktia rules engine (no RL imports)."""
