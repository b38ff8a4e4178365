"""Mole Hill's compiled twin (optional ``fast`` extra, numba), checked against the Python
rules; its modules are listed in docs/DESIGN.md. Importing this package imports nothing."""
