"""A toy game implementing the rules-engine protocol (docs/DESIGN.md) plus a tiny AEC env.

Nim for 2-4 players: piles of objects; a move takes 1..``max_take`` objects from one
pile (action = pile * max_take + take - 1). Options:

- ``win_rule="last"``: whoever takes the last object scores +1, everybody else -1.
  ``win_rule="score"``: the returns follow the objects taken (sole most +1, tied most 0,
  others -1), so draws are possible.
- ``bonus_on_empty``: a player who empties a pile (objects remaining elsewhere) moves
  again, so one player can make several consecutive decisions (as in Arktia).

``scores()`` are the objects each player has taken so far.
"""

from __future__ import annotations

import json

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tabletop_zoo.envs.errors import IllegalActionError, NotationError


class NimGame:
    """Immutable options of a Nim game."""

    def __init__(
        self,
        piles: tuple[int, ...] = (1, 2, 4),
        num_players: int = 2,
        max_take: int = 4,
        win_rule: str = "last",
        bonus_on_empty: bool = False,
    ) -> None:
        self.piles = tuple(piles)
        self.num_players = num_players
        self.max_take = max_take
        self.num_actions = len(self.piles) * max_take
        self.win_rule = win_rule
        self.bonus_on_empty = bonus_on_empty

    def new_initial_state(self, seed: int | None = None) -> NimState:
        return NimState(self, list(self.piles), [0] * self.num_players, 0, -1)


class NimState:
    """A Nim position."""

    def __init__(
        self, game: NimGame, piles: list[int], taken: list[int], player: int, last: int
    ) -> None:
        self.game = game
        self.piles = piles
        self.taken = taken
        self.current_player = player
        self.last_mover = last

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        m = self.game.max_take
        return [p * m + t - 1 for p, n in enumerate(self.piles) for t in range(1, min(n, m) + 1)]

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(f"illegal action {action}; legal: {self.legal_actions()}")
        pile, take = divmod(action, self.game.max_take)
        take += 1
        self.piles[pile] -= take
        self.taken[self.current_player] += take
        self.last_mover = self.current_player
        if self.is_terminal():
            self.current_player = -1
        elif not (self.game.bonus_on_empty and self.piles[pile] == 0):
            self.current_player = (self.current_player + 1) % self.game.num_players

    def clone(self) -> NimState:
        return NimState(
            self.game, list(self.piles), list(self.taken), self.current_player, self.last_mover
        )

    def is_terminal(self) -> bool:
        return sum(self.piles) == 0

    def returns(self) -> list[float]:
        n = self.game.num_players
        if not self.is_terminal():
            return [0.0] * n
        if self.game.win_rule == "last":
            return [1.0 if i == self.last_mover else -1.0 for i in range(n)]
        best = max(self.taken)
        tops = self.taken.count(best)
        return [(1.0 if tops == 1 else 0.0) if t == best else -1.0 for t in self.taken]

    def scores(self) -> list[int]:
        return list(self.taken)

    def to_json(self) -> str:
        return json.dumps([self.piles, self.taken, self.current_player, self.last_mover])

    def action_to_string(self, action: int) -> str:
        pile, take = divmod(action, self.game.max_take)
        return f"{take + 1}@{pile}"

    def string_to_action(self, text: str) -> int:
        """``"take@pile"`` -> action; NotationError if malformed, IllegalActionError if illegal."""
        take, sep, pile = text.strip().partition("@")
        if not (sep and take.isdigit() and pile.isdigit()):
            raise NotationError(f"bad move {text!r}: expected take@pile, e.g. 1@0")
        take_n, pile_n = int(take), int(pile)
        if not (1 <= take_n <= self.game.max_take and pile_n < len(self.piles)):
            raise NotationError(f"bad move {text!r}: no such pile or take")
        action = pile_n * self.game.max_take + take_n - 1
        if action not in self.legal_actions():
            raise IllegalActionError(f"{text} is not legal now")
        return action

    def __str__(self) -> str:
        return f"piles={self.piles} taken={self.taken} to_move={self.current_player}"


class NimEnv(AECEnv):
    """A minimal AEC env around :class:`NimState`, shaped like ours (observe dict, game)."""

    metadata = {"name": "nim_toy", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **game_kwargs) -> None:
        super().__init__()
        self.nim = NimGame(**game_kwargs)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.nim.num_players)]
        size = len(self.nim.piles) + self.nim.num_players
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 100.0, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.nim.num_actions,), dtype=np.int8),
            }
        )
        self._act_space = spaces.Discrete(self.nim.num_actions)
        self.game = self.nim.new_initial_state()

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        taken = self.game.taken[seat:] + self.game.taken[:seat]  # own perspective first
        mask = np.zeros(self.nim.num_actions, dtype=np.int8)
        if seat == self.game.current_player:
            mask[self.game.legal_actions()] = 1
        obs = np.array(self.game.piles + taken, dtype=np.float32)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.game = self.nim.new_initial_state(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"scores": self.game.scores()} for a in self.agents}
        self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_action(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.is_terminal():
            for a, r in zip(self.agents, self.game.returns(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        for a in self.agents:
            self.infos[a] = {"scores": self.game.scores()}
        self._accumulate_rewards()

    def render(self):
        return str(self.game)

    def close(self):
        pass


class Scripted:
    """A test agent that plays a fixed list of actions."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def act(self, observation, action_mask, state) -> int:
        return self.actions.pop(0)
