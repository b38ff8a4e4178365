"""The games the contract suites run on: every spec of ``GAMES`` and the Nim toy.

``CASES`` lists ``(game name, num_players)`` for every player count of every spec;
the ``game_case`` fixture of the contract tests enters ``registry.extended(NIM_SPEC)``
for the toy, so it runs through exactly the same generic code paths as a real game.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

from tabletop_zoo.envs import registry
from tabletop_zoo.envs.registry import GAMES, GameSpec
from tests.envs.nim_game import NIM_SPEC

CASES: list[tuple[str, int]] = [
    (spec.name, n) for spec in (*GAMES.values(), NIM_SPEC) for n in spec.players
]
CASE_IDS = [f"{name}-{n}p" for name, n in CASES]


@contextlib.contextmanager
def registered(name: str) -> Iterator[GameSpec]:
    """The spec of ``name``, with the Nim toy added to the registry meanwhile."""
    if name == NIM_SPEC.name and name not in GAMES:
        try:
            with registry.extended(NIM_SPEC) as spec:
                yield spec
        finally:  # leave no toy ids behind in PettingZoo's and Gymnasium's registries
            import gymnasium
            import pettingzoo

            for kind in ("aec_registry", "parallel_registry"):
                getattr(pettingzoo, kind, {}).pop(NIM_SPEC.pettingzoo_id, None)
            gymnasium.registry.pop(NIM_SPEC.gymnasium_id, None)
    else:
        yield GAMES[name]


def random_play(state: Any, rng: random.Random, max_plies: int = 400) -> Iterator[Any]:
    """Yield ``state`` before every ply of a random game (the state is mutated in place)."""
    for _ in range(max_plies):
        yield state
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))
