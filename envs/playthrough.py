"""Golden playthroughs: a seeded random game written out state by state.

OpenSpiel keeps such files to catch any unintended change of the rules. The
text depends only on the rules engine (``legal_actions``, ``apply_action``,
``action_to_string``, ``scores`` and ``str(state)``) and on the seed.
"""

from __future__ import annotations

import itertools
import random

from tabletop_zoo.envs.protocol import EngineState
from tabletop_zoo.envs.registry import GAMES


def playthrough(state: EngineState, seed: int, title: str = "") -> str:
    """Play ``state`` to the end with seeded uniform random moves; return the record."""
    rng = random.Random(seed)
    lines = [f"# golden playthrough: {title} seed={seed}".rstrip(), ""]
    for ply in itertools.count():
        lines += [f"## ply {ply}", str(state).rstrip(), f"scores: {list(state.scores())}"]
        if state.is_terminal():
            lines.append(f"terminal, returns: {list(state.returns())}")
            break
        legal = state.legal_actions()
        action = rng.choice(legal)
        lines += [
            f"player {state.current_player} plays {state.action_to_string(action)} "
            f"(action {action}, {len(legal)} legal)",
            "",
        ]
        state.apply_action(action)
    return "\n".join(lines) + "\n"


def golden_games() -> dict[str, tuple[str, int, int]]:
    """Every golden playthrough of every game of :data:`GAMES`:
    ``file stem -> (game, num_players, seed)`` (``GameSpec.golden_seeds``)."""
    return {
        name: (spec.name, num_players, seed)
        for spec in GAMES.values()
        for name, num_players, seed in spec.golden_games()
    }


def golden_text(name: str) -> str:
    """The golden playthrough ``name`` (a key of :func:`golden_games`) as text."""
    game, num_players, seed = golden_games()[name]
    return playthrough(GAMES[game].new_state(num_players), seed, title=name)
