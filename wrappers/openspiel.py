"""Our games as OpenSpiel Python games (optional extra ``openspiel``; docs/ecosystem.md).

Importing this module registers one game per entry of the registry as ``python_<game>``
(``pyspiel.load_game("python_arktia", {"players": 3})``): sequential, perfect-information,
terminal rewards (the engine's ``returns()``). Parameters: ``players``, every keyword
option of the engine's Game class (:mod:`._openspiel_parameters`) and ``max_moves``, a cut
scored as the position stands. A variant whose start depends on the seed opens with one
chance node over :data:`CHANCE_SEEDS` seeds. Use OpenSpiel's *Python* ``MCTSBot`` (the C++
one crashes on every Python game, OpenSpiel 2.0.2); :class:`AgentBot` seats our agents.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from tabletop_zoo.baselines.agents import Agent, MCTSAgent
from tabletop_zoo.envs._aec_base import positive_int_option
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES, GameSpec, get_spec
from tabletop_zoo.envs.results import final_result
from tabletop_zoo.wrappers._openspiel_parameters import (
    CHANCE_SEEDS,
    DEFAULT_MAX_MOVES,
    allowed_types,
    engine_options,
    option_from_text,
    parameter_specification,
    short_name,
)

__all__ = [
    "CHANCE_SEEDS",
    "DEFAULT_MAX_MOVES",
    "AgentBot",
    "PlanesObserver",
    "TabletopGame",
    "TabletopState",
    "allowed_types",
    "load_game",
    "mcts_pair",
    "parameter_specification",
    "short_name",
]

_SEEDS_PROBED = 4  # start positions compared to decide whether a variant has chance


def _game_type(spec: GameSpec, num_players: int | None, stochastic: bool) -> pyspiel.GameType:
    """The OpenSpiel game type (per instance: utility and chance depend on the options)."""
    zero_sum = num_players == 2 if num_players else spec.players == (2,)
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=short_name(spec.name),
        long_name=f"tabletop-zoo {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.EXPLICIT_STOCHASTIC if stochastic else chance.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.players),
        min_num_players=min(spec.players),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(spec.name),
    )


class TabletopGame(pyspiel.Game):
    """One of our games as an OpenSpiel Python game (see the module docstring).

    Attributes:
        spec: the registry entry; ``engine``: the engine's Game object;
        encoder: the public observation encoder; ``max_moves``: the decision cap;
        stochastic: whether the variant opens with a chance node.
    """

    def __init__(self, game: str, params: dict[str, Any] | None = None) -> None:
        spec = get_spec(game)
        given = dict(params or {})
        defaults = parameter_specification(spec.name)
        unknown = sorted(set(given) - set(defaults))
        if unknown:
            raise InvalidOptionError(
                f"unknown parameter(s) {unknown} of {short_name(spec.name)}; "
                f"allowed: {', '.join(sorted(defaults))}"
            )
        values = {**defaults, **given}
        num_players = values["players"]
        if num_players not in spec.players:
            raise InvalidOptionError(
                f"players={num_players!r}: {spec.title} is for {spec.players} players"
            )
        max_moves = positive_int_option("max_moves", values["max_moves"])
        options = {}
        for name, option in engine_options(spec).items():
            value = values[name]
            if option.default is None:
                value = option_from_text(spec, name, value)
            options[name] = value
        engine = spec.game_class()(num_players=num_players, **options)
        # the longest game: the engine's bound by the rules (None: none, e.g. a game that
        # could go on for ever) or the max_moves cut, whichever comes first
        bound = getattr(engine, "max_game_length", None)
        longest = max_moves if bound is None else min(int(bound), max_moves)
        starts = [engine.new_initial_state(seed=s) for s in range(_SEEDS_PROBED)]
        stochastic = len({start.to_json() for start in starts}) > 1
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=CHANCE_SEEDS if stochastic else 0,
            num_players=num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if num_players == 2 else None,
            max_game_length=longest,
        )
        super().__init__(_game_type(spec, num_players, stochastic), info, given)
        self.spec = spec
        self.engine = engine
        self.max_moves = max_moves
        self.stochastic = stochastic
        self.options = options
        self.encoder = spec.make_observation_encoder(engine, None)
        self.observation_size = int(np.prod(self.encoder.shape))
        self._parameters = given
        self._start = starts[0]  # cloned by new_initial_state (also inside every clone())

    def new_initial_state(self) -> TabletopState:
        """The start: a chance node for a stochastic variant, else the engine's start."""
        return TabletopState(self, None if self.stochastic else self._start.clone())

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> Any:
        """Planes observer (observation); history observer for perfect-recall requests."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PlanesObserver(self, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)

    def __deepcopy__(self, memo: dict[int, Any]) -> TabletopGame:
        """Games are immutable: a deep copy is the game itself (keeps state clones cheap)."""
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        """Pickle by name and parameters: a worker process rebuilds the full Python game."""
        return load_game, (self.spec.name, dict(self._parameters))


class TabletopState(pyspiel.State):
    """An OpenSpiel state over a live engine state (``engine_state``; ``None`` before the deal)."""

    def __init__(self, game: TabletopGame, engine_state: Any) -> None:
        super().__init__(game)
        # OpenSpiel's clone() deep-copies this __dict__ (not the state object): the game
        # copies as itself and the box clones the engine state through its clone().
        self.tabletop_game = game
        self._box = _EngineBox(engine_state)
        self.moves = 0  # player decisions so far (the max_moves cap counts these)

    @property
    def engine_state(self) -> Any:
        """The live engine state (``None`` at the opening chance node); do not mutate it."""
        return self._box.state

    # ---- OpenSpiel API
    def current_player(self) -> int:
        """Seat to decide, ``CHANCE`` before the deal, ``TERMINAL`` once over."""
        if self.engine_state is None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.engine_state.current_player

    def is_terminal(self) -> bool:
        """Game over, or cut after ``max_moves`` decisions."""
        state = self.engine_state
        return state is not None and (
            state.is_terminal() or self.moves >= self.tabletop_game.max_moves
        )

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions (ascending) of the seat to move."""
        return list(self.engine_state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the deal seeds at the opening chance node; empty elsewhere."""
        if self.engine_state is not None:
            return []
        return [(seed, 1.0 / CHANCE_SEEDS) for seed in range(CHANCE_SEEDS)]

    def _apply_action(self, action: int) -> None:
        """Deal from the seed ``action`` at the chance node, else play it on the engine."""
        if self.engine_state is None:
            self._box.state = self.tabletop_game.engine.new_initial_state(seed=int(action))
            return
        self.engine_state.apply_action(int(action))
        self.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        """Our notation of ``action`` (``seed N`` for a deal)."""
        if player == pyspiel.PlayerId.CHANCE or self.engine_state is None:
            return f"seed {action}"
        return self.engine_state.action_to_string(int(action))

    def returns(self) -> list[float]:
        """Per seat: the engine's returns; after a cut, win/draw/loss from the scores."""
        state = self.engine_state
        n = self.tabletop_game.num_players()
        if state is None or not self.is_terminal():
            return [0.0] * n
        return final_result(state)[0]

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The observation planes of ``player`` (default: the seat to move), flat and
        channel-first, as OpenSpiel's own ``observation_tensor`` gives them.

        OpenSpiel's generic version builds a new observer object on every call; this one
        writes the encoder's planes straight into the list (rl_environment calls it for every
        seat on every step).
        """
        if player is None:
            player = self.current_player()
        game = self.tabletop_game
        if not 0 <= player < game.num_players():
            raise InvalidOptionError(
                f"player must be a seat 0..{game.num_players() - 1}, got {player!r}"
            )
        if self.engine_state is None:
            return [0.0] * game.observation_size
        planes = game.encoder.encode(self.engine_state, player)
        return planes.transpose(2, 0, 1).reshape(-1).tolist()  # channel-first, flat

    def __str__(self) -> str:
        if self.engine_state is None:
            return f"chance node: deal one of {CHANCE_SEEDS} seeds"
        return str(self.engine_state)

    def __deepcopy__(self, memo: dict[int, Any]) -> TabletopState:
        """``copy.deepcopy(state)`` is ``clone()`` (the engine's fast copy)."""
        return self.clone()


class _EngineBox:
    """Holds an engine state; deep-copied through the engine's ``clone()``."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _EngineBox:
        return _EngineBox(None if self.state is None else self.state.clone())


class PlanesObserver:
    """OpenSpiel Python observer: the encoder's planes, channel-first ``(planes, rows, cols)``."""

    def __init__(self, game: TabletopGame, params: Any = None) -> None:
        if params:
            raise InvalidOptionError(f"observation parameters are not supported, got {params!r}")
        self.encoder = game.encoder
        rows, cols, planes = game.encoder.shape
        self.tensor = np.zeros(planes * rows * cols, np.float32)
        self.dict = {"observation": self.tensor.reshape(planes, rows, cols)}

    def set_from(self, state: TabletopState, player: int) -> None:
        """Fill the tensor with ``state`` seen by ``player`` (zeros before the deal)."""
        if state.engine_state is None:
            self.tensor.fill(0.0)
            return
        planes = self.encoder.encode(state.engine_state, player)
        self.dict["observation"][...] = np.moveaxis(planes, -1, 0)

    def string_from(self, state: TabletopState, player: int) -> str:
        """The engine's text of the position (perfect information: the same for all)."""
        return str(state)


class AgentBot(pyspiel.Bot):
    """Any agent of ours (``act(observation, action_mask, state)``) as an OpenSpiel bot.

    The agent sees what it sees in our envs: the encoder's channel-last planes for the
    acting seat, the legal-action mask and the live engine state.
    """

    def __init__(self, game: TabletopGame, agent: Agent, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.game = game
        self.agent = agent
        self.seed = seed

    def restart_at(self, state: TabletopState) -> None:
        """Start of a game: re-seed the agent (if it can be seeded)."""
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset(seed=self.seed)

    def inform_action(self, state: TabletopState, player_id: int, action: int) -> None:
        """Our agents keep no history: nothing to do."""

    def step(self, state: TabletopState) -> int:
        """The agent's action for the seat to move."""
        player = state.current_player()
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        mask[state.legal_actions()] = 1
        observation = self.game.encoder.encode(state.engine_state, player)
        return int(self.agent.act(observation, mask, state.engine_state))


def mcts_pair(
    game: pyspiel.Game, simulations: int, seed: int, solve: bool = True
) -> tuple[AgentBot, pyspiel.Bot]:
    """Our ``MCTSAgent`` and OpenSpiel's Python ``MCTSBot`` set up alike, as our
    comparisons use them: ``simulations`` each (OpenSpiel's bot needs at least 2: it
    spends the first on the root), one uniform random rollout per simulation, UCT constant
    1.4, MCTS-Solver backups (ours without them when ``solve`` is false); ours seeded
    ``seed``, OpenSpiel's rollouts ``seed`` and its tree ``seed + 1``."""
    from open_spiel.python.algorithms import mcts

    ours = AgentBot(game, MCTSAgent(simulations, exploration=1.4, solve=solve), seed=seed)
    rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    theirs = mcts.MCTSBot(
        game, 1.4, simulations, rollouts, random_state=np.random.RandomState(seed + 1)
    )
    return ours, theirs


def load_game(game: str, params: dict[str, Any] | None = None) -> TabletopGame:
    """``pyspiel.load_game(short_name(game), params)`` without the string round trip."""
    return TabletopGame(game, params)


_FACTORIES: dict[str, Any] = {}


def _register() -> list[str]:
    """Register ``python_<game>`` for every game of the registry; returns the short names."""
    registered = set(pyspiel.registered_names())
    names = []
    for spec in GAMES.values():
        name = short_name(spec.name)
        if name not in registered:
            factory = functools.partial(load_game, spec.name)
            pyspiel.register_game(_game_type(spec, None, stochastic=False), factory)
            # OpenSpiel's registry outlives the interpreter: a factory whose last reference
            # it drops after shutdown is freed without the GIL and aborts the process. One
            # reference that is never released keeps the small factories alive.
            _FACTORIES[name] = factory
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(factory))
        names.append(name)
    return names


#: OpenSpiel short names registered by importing this module.
REGISTERED_GAMES = _register()
