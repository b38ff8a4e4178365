"""Compiling every compiled function ahead (the ``fast`` extra):
``python -m tabletop_zoo.envs.compiled.warm_up``, e.g. once in a Docker build. Apart from
:mod:`.common`, so that the kernels' modules it loads can import that one.
"""

from __future__ import annotations

import random
import time

import numpy as np

from tabletop_zoo.envs.compiled.random_stream import PythonStream, matches_python
from tabletop_zoo.envs.registry import GAMES, fast_engine


def warm_up() -> float:
    """Compile (first start) or load from the disk cache (later starts) every compiled
    function of every game's engine; returns the seconds it took.

    ``python -m tabletop_zoo.envs.compiled.warm_up`` runs it (:func:`main`).
    """
    start = time.perf_counter()
    matches_python()
    for spec in GAMES.values():
        if spec.fast_engine is None:
            continue
        engine = fast_engine(spec.name, spec.default_players)
        states = engine.new_states(2, seed=0)
        engine.legal_mask(states)
        engine.observe(states, np.maximum(engine.current_players(states), 0))
        engine.step(states, engine.random_actions(states))
        engine.greedy_actions(states)
        for opponent in ("random", "greedy"):
            engine.play_opponents(states, 0, opponent)
        for parallel in (False, True):
            engine.random_play(2, 5, 0, parallel)
        state = engine.new_initial_state()
        state.apply_action(state.legal_actions()[0])
        state.clone().rollout(PythonStream(random.Random(0)).words)
        state.search_tree(PythonStream(random.Random(0)).words, state.legal_actions(), 4, 1.4)
        state.greedy_best()
        state.scores()
    return time.perf_counter() - start


def main() -> None:
    """Print how long :func:`warm_up` took."""
    print(f"compiled engines ready in {warm_up():.1f} s")


if __name__ == "__main__":
    main()
