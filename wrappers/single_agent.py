"""A single-agent Gymnasium view of our AEC (turn-based, multi-agent) environments.

The learner takes one seat (fixed, or a random seat each episode); the other seats
are played inside the env by opponent agents (:mod:`tabletop_zoo.baselines`). Every
``step`` returns the learner's own observation and the learner's own reward,
accumulated over everything that happened since its previous action (its own move
and the opponents' replies), so a lost game reaches the learner as a -1 just like a
won game reaches it as +1. ``action_masks()`` serves sb3-contrib's ``MaskablePPO``.

The factory :func:`make_env` (``game`` bound per id) is the entry point of every Gymnasium
id of ours (``GameSpec.gymnasium_id`` in :mod:`tabletop_zoo.envs.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from tabletop_zoo.baselines.agents import Agent, make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_fits, check_seed
from tabletop_zoo.envs._aec_base import choice_option, seat_option
from tabletop_zoo.envs._json import short
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError, as_integer

OpponentSpec = Any  # Agent | str | Sequence[Agent | str] | Callable[[np.random.Generator], ...]
ILLEGAL_ACTION_MODES = ("lose", "raise")
_SEED_RANGE = 2**31  # seeds drawn from the env's generator for the AEC env and opponents
LEGAL_SHOWN = 10  # legal moves listed in an illegal-action message
AEC_METHODS = ("possible_agents", "observation_space", "action_space", "reset", "step", "last")


class SingleAgentEnv(gymnasium.Env):
    """One seat of an AEC env as a ``gymnasium.Env``; opponents play the other seats.

    Args:
        aec_env: one of our AEC envs (raw or wrapped), e.g. ``registry.make_raw_env(game)``.
        opponent: who plays the other seats: an agent, an agent spec string
            (``"random"``, ``"greedy"``, ``"mcts:50"``, ``"ppo:PATH"``; one agent per
            seat is built from it), a sequence with one agent/spec per other seat (in
            seat order, skipping the learner), or a callable ``(np.random.Generator) ->
            Agent | Sequence[Agent]`` called at every reset (self-play pools).
        learner_seat: the learner's seat, or ``None`` for a random seat each episode.
        seed: default seed of the first ``reset()`` when it is called without one.
        illegal_action: what an action outside ``action_masks()`` (or not an integer:
            actions follow ``errors.as_integer``, so bools, floats and strings are refused)
            does: ``"lose"``
            (default; the episode ends with reward -1 and ``info["illegal_action"]``,
            PettingZoo's ``TerminateIllegalWrapper`` convention, so random-action
            checkers such as ``gymnasium.utils.env_checker.check_env`` pass) or
            ``"raise"`` (an ``IllegalActionError``). The message names the action and the
            legal moves in the game's notation (the first ten, and how many there are).

    Bad options raise :class:`~tabletop_zoo.envs.errors.InvalidOptionError` naming what is
    allowed; an opponent holding a model made for another game is refused the same way.
    """

    def __init__(
        self,
        aec_env: Any,
        opponent: OpponentSpec = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        illegal_action: str = "lose",
    ) -> None:
        missing = [name for name in AEC_METHODS if not hasattr(aec_env, name)]
        if missing:
            raise InvalidOptionError(
                f"aec_env must be a PettingZoo AEC env (e.g. registry.make_raw_env(game)); "
                f"{aec_env!r} has no {', '.join(missing)}"
            )
        self.aec_env = aec_env
        self.possible_agents = list(aec_env.possible_agents)
        self.num_players = len(self.possible_agents)
        learner_seat = seat_option(
            "learner_seat", learner_seat, self.num_players, "random each episode"
        )
        seed = check_seed(seed, "seed", limit=None)
        self.illegal_action = choice_option("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.learner_seat_option = learner_seat
        first = self.possible_agents[0]
        self.observation_space = aec_env.observation_space(first)["observation"]
        self.action_space = aec_env.action_space(first)
        aec_meta = getattr(aec_env, "metadata", {}) or {}
        self.metadata = {
            "render_modes": list(aec_meta.get("render_modes", [])),
            "render_fps": aec_meta.get("render_fps", 4),
            "name": aec_meta.get("name", type(aec_env).__name__),
        }
        self.render_mode = getattr(aec_env, "render_mode", None)
        self._pending_seed = seed
        self._seed_rng = np.random.default_rng(seed)  # builds opponents from specs
        self.set_opponent(opponent)
        self.learner_seat = 0 if learner_seat is None else learner_seat
        self.learner = self.possible_agents[self.learner_seat]
        self._opponents: dict[int, Agent] = {}
        self._done = True
        self._started = False  # set by the first reset()

    # ----------------------------------------------------------------- opponents
    def set_opponent(self, opponent: OpponentSpec) -> None:
        """Replace the opponent(s); takes effect at the next ``reset()``."""
        if callable(opponent) and not isinstance(opponent, Agent):
            self._opponent_factory: Callable[[np.random.Generator], Any] | None = opponent
            self._static_opponents: list[Agent] | None = None
        else:
            self._opponent_factory = None
            self._static_opponents = self._resolve(opponent)

    def _resolve(self, opponent: Any) -> list[Agent]:
        """One agent per other seat from an agent, a spec string or a sequence of them;
        each must fit this game (a model trained on another game is refused)."""
        count = self.num_players - 1
        if isinstance(opponent, str):
            agents = [self._build(opponent) for _ in range(count)]
        elif isinstance(opponent, Agent):
            agents = [opponent] * count
        elif isinstance(opponent, Sequence):
            if len(opponent) != count:
                raise InvalidOptionError(
                    f"opponent sequence must have one entry per other seat ({count}), "
                    f"got {len(opponent)}"
                )
            agents = [self._build(o) if isinstance(o, str) else self._check(o) for o in opponent]
        else:
            raise InvalidOptionError(
                f"opponent must be an agent, a spec string, a sequence of them or a callable "
                f"(np.random.Generator) -> agent(s); got {opponent!r}"
            )
        for agent in agents:
            check_agent_fits(agent, self.aec_env)
        return agents

    def _build(self, spec: str) -> Agent:
        return make_agent(spec, seed=int(self._seed_rng.integers(_SEED_RANGE)))

    @staticmethod
    def _check(agent: Any) -> Agent:
        if not isinstance(agent, Agent):
            raise InvalidOptionError(
                f"{agent!r} is not an agent (needs a name and act(observation, mask, state))"
            )
        return agent

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game; opponents move until it is the learner's turn."""
        seed = check_seed(seed, "reset(seed=...)", limit=None)
        if seed is None and self._pending_seed is not None:
            seed = self._pending_seed
        self._pending_seed = None
        super().reset(seed=seed)
        rng = self.np_random
        seat = self.learner_seat_option
        self.learner_seat = int(rng.integers(self.num_players)) if seat is None else seat
        self.learner = self.possible_agents[self.learner_seat]
        if self._opponent_factory is not None:
            agents = self._resolve(self._opponent_factory(rng))
        else:
            assert self._static_opponents is not None
            agents = self._static_opponents
        other_seats = [s for s in range(self.num_players) if s != self.learner_seat]
        self._opponents = dict(zip(other_seats, agents, strict=True))
        for agent in agents:
            agent_reset = getattr(agent, "reset", None)
            if callable(agent_reset):
                agent_reset(seed=int(rng.integers(_SEED_RANGE)))
        self.aec_env.reset(seed=int(rng.integers(_SEED_RANGE)))
        self._done = False
        self._started = True
        _reward, terminated, truncated, info = self._play_opponents()
        if terminated or truncated:
            raise RuntimeError("the game ended before the learner's first turn")
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents until the learner is to act."""
        if self._done:
            raise UsageError("the episode is over (or never started): call reset() before step()")
        mask = self.action_masks()
        index = as_integer(action)
        if index is None or not (0 <= index < mask.size and mask[index]):
            message = self._illegal_message(action, index, mask)
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._done = True
            info = self._info()
            info["illegal_action"] = message
            return self._observation(), -1.0, True, False, info
        self.aec_env.step(index)
        reward, terminated, truncated, info = self._play_opponents()
        self._done = terminated or truncated
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (for ``MaskablePPO``)."""
        if not self._started:
            raise UsageError("action_masks() before reset(): call reset() first")
        return self._mask_of(self.learner).astype(bool)

    def _mask_of(self, name: str) -> np.ndarray:
        """``name``'s action mask; our envs give it without building the planes."""
        unwrapped = self.aec_env.unwrapped
        if hasattr(unwrapped, "action_mask"):
            return unwrapped.action_mask(name)
        return np.asarray(self.aec_env.observe(name)["action_mask"])

    def render(self) -> Any:
        """Render the underlying AEC env (in its ``render_mode``)."""
        return self.aec_env.render()

    def close(self) -> None:
        """Close the underlying AEC env."""
        self.aec_env.close()

    @property
    def game_state(self) -> Any:
        """The live rules-engine state (read only: clone before changing it); ``None`` for
        an AEC env without one (not built on our base class)."""
        return getattr(self.aec_env.unwrapped, "game_state", None)

    # ---------------------------------------------------------------- internals
    def _play_opponents(self) -> tuple[float, bool, bool, dict[str, Any]]:
        """Let opponents act (and finished seats leave) until the learner is selected.

        Returns the learner's reward accumulated since its last action (PettingZoo's
        ``last()`` gives exactly that), its termination and truncation flags and info.
        """
        env = self.aec_env
        while env.agents:
            name = env.agent_selection
            _obs, reward, terminated, truncated, _info = env.last(observe=False)
            if name == self.learner:
                return float(reward), bool(terminated), bool(truncated), self._info()
            if terminated or truncated:
                env.step(None)
                continue
            seat = self.possible_agents.index(name)
            opponent = self._opponents[seat]
            # planes only for agents that read them (search agents read the state)
            if getattr(opponent, "reads_observation", True):
                obs = env.observe(name)
                planes, mask = obs["observation"], obs["action_mask"]
            else:
                planes, mask = None, self._mask_of(name)
            env.step(int(opponent.act(planes, mask, self.game_state)))
        raise RuntimeError(f"{self.learner} left the game without being told it ended")

    def _notation(self, action: int) -> str | None:
        """``action`` in the game's notation, or ``None`` if the engine cannot write it."""
        try:
            return str(self.game_state.action_to_string(action))
        except Exception:
            return None

    def _illegal_message(self, action: Any, index: int | None, mask: np.ndarray) -> str:
        """What was wrong with ``action`` and the legal moves (notation, a short list)."""
        if index is None:
            what = (
                f"action {short(action, 40)} is not an action: actions are integers "
                "(Python or NumPy ints, not bools, floats or strings)"
            )
        elif not 0 <= index < mask.size:
            what = f"action {index} is out of range 0..{mask.size - 1}"
        else:
            written = self._notation(index)
            shown = f"{index} ({written})" if written is not None else str(index)
            what = f"action {shown} is not legal for {self.learner} now"
        legal = np.flatnonzero(mask).tolist()
        names = [self._notation(a) or str(a) for a in legal[:LEGAL_SHOWN]]
        more = f", ... ({len(legal)} legal moves)" if len(legal) > LEGAL_SHOWN else ""
        return f"{what}; legal: {', '.join(names)}{more}"

    def _observation(self) -> np.ndarray:
        return np.array(self.aec_env.observe(self.learner)["observation"], copy=True)

    def _info(self) -> dict[str, Any]:
        """The learner's AEC info, lists as arrays (``scores``), its seat and its int8 action
        mask (all zeros once the game is over): values Minari's recorder keeps."""
        info = self.aec_env.infos.get(self.learner, {})
        info = {k: np.asarray(v) if isinstance(v, list) else v for k, v in info.items()}
        return info | {
            "learner_seat": self.learner_seat,
            "action_mask": self._mask_of(self.learner),
        }


def make_env(
    game: str,
    num_players: int | None = None,
    opponent: OpponentSpec = "random",
    learner_seat: int | None = None,
    render_mode: str | None = None,
    *,
    seed: int | None = None,
    illegal_action: str = "lose",
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """``game`` as a single-agent Gymnasium env (behind every Gymnasium id of ours).

    ``game`` is a name of :data:`~tabletop_zoo.envs.registry.GAMES`; ``env_kwargs`` are
    that game's env options (see its env card).
    """
    from tabletop_zoo.envs.registry import make_raw_env

    aec = make_raw_env(game, num_players, render_mode=render_mode, **env_kwargs)
    return SingleAgentEnv(aec, opponent, learner_seat, seed=seed, illegal_action=illegal_action)
