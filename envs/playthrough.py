"""Golden playthroughs: a seeded random game written out state by state.

OpenSpiel keeps such files to catch any unintended change of the rules. The
text depends only on the rules engine (``legal_actions``, ``apply_action``,
``action_to_string``, ``scores`` and ``str(state)``) and on the seed.
"""

from __future__ import annotations

import random
from typing import Any, Protocol


class EngineState(Protocol):
    """What a rules-engine state offers (both games implement it)."""

    current_player: int

    def legal_actions(self) -> list[int]: ...
    def apply_action(self, action: int) -> None: ...
    def is_terminal(self) -> bool: ...
    def scores(self) -> list[int]: ...
    def returns(self) -> list[float]: ...
    def action_to_string(self, action: int) -> str: ...
    def clone(self) -> Any: ...


def playthrough(state: EngineState, seed: int, title: str = "") -> str:
    """Play ``state`` to the end with seeded uniform random moves; return the record."""
    rng = random.Random(seed)
    lines = [f"# golden playthrough: {title} seed={seed}".rstrip(), ""]
    ply = 0
    while True:
        lines.append(f"## ply {ply}")
        lines.append(str(state).rstrip())
        lines.append(f"scores: {list(state.scores())}")
        if state.is_terminal():
            lines.append(f"terminal, returns: {list(state.returns())}")
            break
        legal = state.legal_actions()
        action = rng.choice(legal)
        lines.append(
            f"player {state.current_player} plays {state.action_to_string(action)} "
            f"(action {action}, {len(legal)} legal)"
        )
        lines.append("")
        state.apply_action(action)
        ply += 1
    return "\n".join(lines) + "\n"
