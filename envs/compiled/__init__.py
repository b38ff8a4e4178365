"""The generic half of every game's compiled twin (``envs/<game>/fast/``, the ``fast`` extra).

``protocol`` (the batched API, no numba), ``checks`` (the row checks, no numba), ``base``
(the engine and one-row state bases), ``common`` (numba, ``jit``, ``kernel``, bit helpers),
``random_stream`` (CPython's random stream in compiled code), ``search_tree`` (the compiled
MCTS tree) and ``warm_up`` (``python -m tabletop_zoo.envs.compiled.warm_up``). Importing this
package loads nothing: only the modules that need numba load it.
"""
