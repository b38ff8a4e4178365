"""The Nim toy for the baselines and wrapper tests: the one of ``tests/envs/nim_game.py``
(engine on the protocol's ``StateBase``, ``raw_env`` on ``TurnBasedAECEnv``), so every test
plays the same toy game, plus a scripted test agent.

Nim for 2-4 players: piles of objects; a move takes 1..``max_take`` objects from one pile
(action ``pile * max_take + take - 1``, notation ``"<take>@<pile>"``); ``win_rule="last"``:
the last taker wins, ``"score"``: the most objects taken; ``bonus_on_empty``: emptying a pile
gives another move. ``scores()`` are the objects each player has taken.
"""

from __future__ import annotations

from typing import Any

from tests.envs import nim_game
from tests.envs.nim_game import NimGame, NimState

__all__ = ["NimEnv", "NimGame", "NimState", "Scripted"]


def NimEnv(**options: Any) -> Any:
    """The raw Nim AEC env (``nim_game.raw_env``) with ``options`` (piles, max_take, ...)."""
    return nim_game.raw_env(**options)


class Scripted:
    """A test agent that plays a fixed list of actions."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def act(self, observation, action_mask, state) -> int:
        return self.actions.pop(0)
