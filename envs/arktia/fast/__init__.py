"""Arktia's compiled twin (optional ``fast`` extra, numba), checked against the Python rules.

- ``kernels``: the rules on one ``int64`` row, function by function after ``rules.py``;
- ``batch``: loops over many rows (step with autoreset, legal masks, rollouts);
- ``observation``: the env's observation planes from rows;
- ``state``: one row behind the engine protocol (search agents);
- ``engine``: :class:`~tabletop_zoo.envs.arktia.fast.engine.FastArktia`, the batched engine
  (the :class:`~tabletop_zoo.envs.fast_protocol.FastEngine` protocol).

Importing this package imports nothing; numba loads with the modules.
"""
