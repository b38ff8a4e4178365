"""A generic base class for turn-based PettingZoo AEC environments over a rules engine.

The engine follows :mod:`tabletop_zoo.envs.protocol`. :class:`TurnBasedAECEnv` owns what
PettingZoo needs: agents ``player_0`` .. ``player_{n-1}`` (seat ``i`` = ``player_i``),
``agent_selection`` from ``game.current_player`` (one seat may take several decisions in
a row), rewards, flags, infos, the action mask, ``state()``, rendering and ``close()``.

Rewards are 0 until the game ends; then every agent gets ``game.returns()``
(``reward_mode="win"``) or its score minus the best other score (``"score"``), and all
terminate together. With ``max_turns``, all are truncated after that many turns (hook
``_turns_played()``) and rewarded from the scores as the position stands. The raw env
raises :class:`IllegalActionError` on an illegal action (nothing changes) and
:class:`UsageError` on a call out of order; :func:`wrap_classic` gives PettingZoo's classic
behaviour instead (an illegal move ends the game with -1 for the offender).
``copy.deepcopy`` and ``pickle`` of a live env continue the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tabletop_zoo.envs._display import LastMove, move_of
from tabletop_zoo.envs._render import HumanWindow
from tabletop_zoo.envs._svg import state_svg
from tabletop_zoo.envs.errors import InvalidOptionError, UsageError, as_integer
from tabletop_zoo.envs.protocol import EngineGame, EngineState
from tabletop_zoo.envs.results import final_result, score_margins

REWARD_MODES = ("win", "score")


class ObservationEncoder(Protocol):
    """Turns engine states into observation planes (``envs/<game>/observation.py``)."""

    shape: tuple[int, ...]

    def encode(self, state: Any, seat: int) -> np.ndarray:
        """``float32`` planes of ``shape`` in [0, 1] as seen by ``seat``."""
        ...

    def plane_names(self) -> list[str]:
        """Name of every plane (last axis), in order."""
        ...


class ImageRenderer(Protocol):
    """Draws engine states (``envs/<game>/render.py``)."""

    def draw(self, state: Any) -> np.ndarray:
        """``(h, w, 3)`` uint8 picture of ``state``."""
        ...


class ClassicWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order check, showing the position inline in Jupyter as the raw env does
    (a wrapper hands on no ``_`` attribute)."""

    def _repr_svg_(self) -> str | None:
        return self.unwrapped._repr_svg_()


def wrap_classic(raw: AECEnv) -> AECEnv:
    """Wrap a raw env like PettingZoo's classic games (illegal move: -1, game over)."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return ClassicWrapper(env)


def positive_int_option(name: str, value: Any) -> int:
    """``value`` as a Python int >= 1 (NumPy integers too), else :class:`InvalidOptionError`."""
    number = as_integer(value)
    if number is None or number < 1:
        raise InvalidOptionError(f"{name} must be a positive int, got {value!r}")
    return number


def choice_option(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else :class:`InvalidOptionError`."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidOptionError(f"{name} must be one of {choices}, got {value!r}")
    return value


def seat_option(name: str, value: Any, num_players: int, none_means: str) -> int | None:
    """``None`` or an integer seat in ``0..num_players-1`` (NumPy integers too; bools and
    floats are refused with :class:`InvalidOptionError`). ``none_means`` says what None does."""
    if value is None:
        return None
    seat = as_integer(value)
    if seat is None or seat not in range(num_players):
        raise InvalidOptionError(
            f"{name} must be None ({none_means}) or an integer seat in 0..{num_players - 1}, "
            f"got {value!r}"
        )
    return seat


def allowed_options(players: str, max_turns: str, **game_options: str) -> dict[str, str]:
    """Every keyword a game's ``raw_env`` accepts, with what is allowed (shown on a bad
    option): the player count and turn limit as the game words them, the render and reward
    modes every game shares, then the game's own ``game_options``."""
    return {
        "num_players": players,
        "render_mode": "None, 'human', 'ansi', 'rgb_array' or 'svg'",
        "reward_mode": "'win' (+1/-1/0, default) or 'score' (score margin)",
        "max_turns": max_turns,
        "observation_layout": "'hwc' (rows, cols, planes; default) or 'chw' (planes first)",
        **game_options,
    }


def check_options(options: dict[str, Any], allowed: dict[str, str]) -> None:
    """Raise :class:`InvalidOptionError` naming any key of ``options`` not in ``allowed``."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        listing = "; ".join(f"{k}: {v}" for k, v in allowed.items())
        raise InvalidOptionError(f"unknown option(s) {unknown}; allowed options are {listing}")


class TurnBasedAECEnv(AECEnv):
    """Generic turn-based AEC env over a rules engine (see the module docstring).

    A game's ``raw_env`` names itself in its class line (``name="arktia_v0"``), which gives
    it the classic games' metadata (every render mode, 2 frames a second)."""

    metadata: dict[str, Any] = {"render_modes": [], "name": "", "render_fps": 1}

    def __init_subclass__(cls, name: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if name is not None:
            cls.metadata = {
                "render_modes": ["human", "ansi", "rgb_array", "svg"],
                "name": name,
                "is_parallelizable": False,
                "render_fps": 2,
            }

    def _keep_options(self, arguments: dict[str, Any], allowed: dict[str, str]) -> None:
        """Refuse the unknown options of a ``raw_env``'s ``arguments`` (its ``locals()`` on
        entry, ``**unknown`` included), listing ``allowed``; then record the ``allowed`` ones
        so that pickling (:class:`~gymnasium.utils.EzPickle`) rebuilds the env with them."""
        check_options(arguments["unknown"], allowed)
        EzPickle.__init__(self, **{name: arguments[name] for name in allowed})

    def __init__(
        self,
        engine: EngineGame,
        encoder: ObservationEncoder,
        *,
        render_mode: str | None = None,
        reward_mode: str = "win",
        max_turns: int | None = None,
        renderer_class: Callable[[EngineGame], ImageRenderer] | None = None,
        observation_layout: str = "hwc",
    ) -> None:
        super().__init__()
        if observation_layout not in ("hwc", "chw"):
            raise InvalidOptionError(
                f"observation_layout must be 'hwc' or 'chw', got {observation_layout!r}"
            )
        self.channels_first = observation_layout == "chw"
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise InvalidOptionError(
                f"render_mode must be None or one of {modes}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.reward_mode = choice_option("reward_mode", reward_mode, REWARD_MODES)
        self.max_turns = None if max_turns is None else positive_int_option("max_turns", max_turns)
        self.engine = engine
        self.encoder = encoder
        self._renderer_class = renderer_class
        self._renderer: ImageRenderer | None = None
        num_players, num_actions = engine.num_players, engine.num_actions
        self.num_actions = num_actions
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        shape = tuple(encoder.shape)
        shape = (shape[-1], *shape[:-1]) if self.channels_first else shape
        planes = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.state_space = planes
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                action_mask=spaces.Box(0, 1, (num_actions,), dtype=np.int8), observation=planes
            )
            for a in self.possible_agents
        }
        self.game_state: EngineState | Any = None
        self.agents: list[str] = []
        self.num_turns = 0
        self._last: LastMove | tuple[int, Any] | None = None  # (seat, action): no render mode
        self._rng = random.Random()
        self._window: HumanWindow | None = None

    # ------------------------------------------------------------ copies
    def __getstate__(self) -> dict[str, Any]:
        """Everything but the window: a copy or an unpickled env continues the same game
        (same position, rewards, agent order and RNG stream), independent of the original."""
        state = self.__dict__.copy()
        state["_window"] = None
        state["_renderer"] = None  # rebuilt on first use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _require_game(self, call: str) -> None:
        """UsageError unless a game has been started with ``reset()``."""
        if self.game_state is None:
            raise UsageError(f"{call} before reset(): call env.reset() first to start a game")

    @property
    def renderer(self) -> ImageRenderer:
        """The image renderer, built from the engine on first use."""
        if self._renderer is None:
            if self._renderer_class is None:
                raise InvalidOptionError(f"{type(self).__name__} draws no images")
            self._renderer = self._renderer_class(self.engine)
        return self._renderer

    # ------------------------------------------------------------ hooks
    def _turns_played(self) -> int:
        return self.num_turns

    def _ansi_header(self) -> str:
        return ""

    def _observation(self, seat: int) -> np.ndarray:
        planes = self.encoder.encode(self.game_state, seat)
        return np.ascontiguousarray(np.moveaxis(planes, -1, 0)) if self.channels_first else planes

    def _update_infos(self) -> None:
        scores = list(self.game_state.scores())
        for a in self.agents:
            self.infos[a] = {"scores": scores}

    # ------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        """The ``Dict(observation=Box, action_mask=Box)`` space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(num_actions)``, the same for every agent."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A seed fixes this and all following unseeded episodes.

        ``options`` is accepted for API compatibility and ignored: game options are
        constructor arguments.
        """
        if seed is not None:
            self._rng = random.Random(seed)
        self.game_state = self.engine.new_initial_state(self._rng.getrandbits(63))
        self.num_turns = 0
        self._last = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._update_infos()
        self.agent_selection = self.possible_agents[self.game_state.current_player]
        self._skip_agent_selection = None
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent that is done)."""
        if not self.agents:
            self._require_game("step()")
            raise UsageError(
                "step() after the game is over and every agent is done: call env.reset() "
                "to start a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise UsageError(
                    f"{agent} is done (terminated or truncated): step(None) for it, or "
                    "call env.reset() to start a new game"
                )
            self._was_dead_step(action)
            return
        game = self.game_state
        last = move_of(game, action) if self.render_mode else (game.current_player, action)
        game.apply_action(action)  # IllegalActionError (nothing changed) if illegal
        self._last = last
        self.num_turns += 1
        self._cumulative_rewards[agent] = 0.0
        over = game.is_terminal()
        if over or (self.max_turns is not None and self._turns_played() >= self.max_turns):
            final = self._final_rewards()  # a truncation is scored as the position stands
            flags = self.terminations if over else self.truncations
            for a in self.agents:
                self.rewards[a] = final[self._seat_of[a]]
                flags[a] = True
        else:
            self.rewards.update(dict.fromkeys(self.agents, 0.0))
        if over:
            self.agent_selection = self.agents[(self._seat_of[agent] + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._update_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _final_rewards(self) -> list[float]:
        """Rewards of the position as it stands (end of game or truncation)."""
        if self.reward_mode == "score":
            return score_margins(self.game_state.scores())
        return final_result(self.game_state)[0]

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zeros unless it is to move)."""
        if self.game_state is None:
            self._require_game("action_mask()")
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            mask[self.game_state.legal_actions()] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": planes from agent's point of view, "action_mask": int8}``."""
        seat = self._seat_of.get(agent)
        if seat is None or self.game_state is None:
            self._require_game("observe()")
            raise UsageError(
                f"observe({agent!r}): no such agent; the agents are {self.possible_agents}"
            )
        return {"observation": self._observation(seat), "action_mask": self.action_mask(agent)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``; UsageError before ``reset()``."""
        self._require_game("last()")
        return super().last(observe)

    def state(self) -> np.ndarray:
        """Seat-absolute global view of the position (seat 0's planes; centralized critics)."""
        self._require_game("state()")
        return self._observation(0)

    def _repr_svg_(self) -> str | None:
        """The SVG picture of the position (Jupyter shows it inline); None before reset."""
        return None if self.game_state is None else self._render_svg()

    @property
    def last_move(self) -> LastMove | None:
        """The last action played (seat, notation, number, the mover in its role then); an
        env made without a ``render_mode`` keeps no notation (its hot path), only
        ``action <number>``."""
        if self._last is None or isinstance(self._last, LastMove):
            return self._last
        seat, action = self._last
        return LastMove(seat, f"action {action}", as_integer(action))

    def _render_svg(self) -> str | None:
        truncated = any(self.truncations.values())
        return state_svg(self.game_state, self.last_move, self.num_turns, truncated)

    def render(self) -> None | np.ndarray | str:
        """``ansi`` -> str, ``rgb_array`` -> uint8 image, ``svg`` -> SVG text (a picture
        with data attributes, :mod:`~tabletop_zoo.envs._svg`), ``human`` -> draws a
        window, None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        self._require_game("render()")
        if self.render_mode == "ansi":  # the engine's text board under the game's header
            header = self._ansi_header()
            return f"{header}\n{self.game_state}" if header else str(self.game_state)
        if self.render_mode == "svg":
            return self._render_svg()
        picture = self.renderer.draw(self.game_state)
        if self.render_mode == "rgb_array":
            return picture
        if self._window is None:
            self._window = HumanWindow(self.metadata["name"], self.metadata["render_fps"])
        self._window.show(picture)
        return None

    def close(self) -> None:
        """Close the human-mode window, if any."""
        if self._window is not None:
            self._window.close()
            self._window = None
