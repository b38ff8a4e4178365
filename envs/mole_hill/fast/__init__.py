"""Mole Hill's compiled twin (optional ``fast`` extra, numba), checked against the Python rules.

- ``kernels``: the rules on one ``int64`` row (and the observation planes of a row);
- ``batch``: loops over many rows (step with autoreset, legal masks, rollouts);
- ``state``: one row behind the engine protocol (search agents);
- ``engine``: :class:`~tabletop_zoo.envs.mole_hill.fast.engine.FastMoleHill`, the batched
  engine (the :class:`~tabletop_zoo.envs.fast_protocol.FastEngine` protocol).

Importing this package imports nothing; numba loads with the modules.
"""
