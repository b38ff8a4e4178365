"""Hand-built Arktia positions put into the AEC env, shared by the env and observation
tests (``test_arktia_env.py``, ``test_arktia_observation.py``)."""

from __future__ import annotations

import json
from typing import Any

from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, ArktiaState

__all__ = ["act", "load", "position"]


def position(
    stacks: dict[str, list[list[Any]]],
    *,
    num_players: int = 2,
    neutral: bool = False,
    reserves: list[list[int]],
    removed: list[int] | None = None,
    melted: list[int] | None = None,
    melted_tiles: tuple[str, ...] = (),
    current_player: int = 0,
    ended: tuple[int, ...] = (),
    phase: str = "normal",
    turn: int = 20,
) -> ArktiaState:
    """A normal-play position (round 3) from the JSON schema of the engine."""
    n = num_players
    return ArktiaState.from_json(
        json.dumps(
            {
                "num_players": n,
                "neutral_pieces": neutral,
                "layout": DEFAULT_LAYOUTS[n],
                "stacks": stacks,
                "melted_tiles": list(melted_tiles),
                "reserves": reserves,
                "neutral_reserves": [[0, 0, 0]] * n,
                "removed": removed or [0] * n,
                "melted": melted or [0] * n,
                "round": 3,
                "phase": phase,
                "current_player": current_player,
                "ended": list(ended),
                "turn": turn,
                "pending_choices": [],
            }
        )
    )


def load(env: Any, state: ArktiaState) -> None:
    """Put a hand-built position into a freshly reset env."""
    raw = env.unwrapped
    raw.game_state = state
    raw.agent_selection = raw.possible_agents[state.current_player]


def act(env: Any, notation: str) -> None:
    env.step(env.unwrapped.game_state.string_to_action(notation))
