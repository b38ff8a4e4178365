"""The one list of games: every script, test, benchmark and registration iterates :data:`GAMES`.

Adding a game means one :class:`GameSpec` here (plus its folder ``envs/<game>/`` and its
versioned face ``envs/<game>_v0.py``); nothing else in the package names a game. The spec
names every part of the game's bundle; code reads the spec, never guesses a module path.
The optional parts (``gui``, ``help``, ``fast_engine``, ``svg``) may be ``None``: the
status band then names seats plainly, the terminal player shows generic help texts, the
fast path is unavailable, and there are no SVG pictures or HTML replays.
``tests/test_structure.py`` imports every part a spec names and checks what it must expose.

Entries are plain strings (module paths), so importing the registry imports no engine,
no env and nothing heavy.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import module_available

if TYPE_CHECKING:
    from tabletop_zoo.envs.fast_protocol import FastEngine


@dataclass(frozen=True)
class GameSpec:
    """What the rest of the package needs to know about one game."""

    name: str
    """Short name used on command lines and in file names, e.g. ``"mole_hill"``."""
    title: str
    """Human name, e.g. ``"Mole Hill"``."""
    env_module: str
    """The versioned face PettingZoo users import (has ``env``, ``raw_env`` and
    ``parallel_env``)."""
    engine: str
    """``"module:GameClass"``: the rules engine's Game (``new_initial_state``)."""
    observation_encoder: str
    """``"module:EncoderClass"``: built as ``EncoderClass(game, max_turns=None)``."""
    players: tuple[int, ...]
    """The player counts the game supports."""
    pettingzoo_id: str
    gymnasium_id: str
    golden_seeds: tuple[tuple[int, int], ...] = ()
    """``(num_players, seed)`` of each golden playthrough in ``tests/envs/golden``."""
    benchmark_players: tuple[int, ...] = (2,)
    """Player counts that ``scripts/benchmark.py`` measures."""
    benchmark_anchor: str | None = None
    """A PettingZoo classic env module of similar size to compare speed with."""
    train_overrides: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Training defaults that differ from the generic ones (``baselines.training``)."""
    fast_engine: str | None = None
    """``"module:Class"`` of the compiled batched engine (``fast`` extra, numba), built
    from a Game object, following :class:`~tabletop_zoo.envs.fast_protocol.FastEngine`
    (``envs/<game>/fast/engine.py``; its ``wrap`` gives the one-row view of a game);
    ``None`` if the game has none."""
    gui: str | None = None
    """Module of the picture helpers: ``seat_label(state, seat)``, ``status(state)`` (the
    status band of recordings and the play window) and ``Picker`` (the clicks of the play
    window); ``None``: plain seat names, no play window."""
    svg: str | None = None
    """Module of the SVG pictures: ``board_svg(state, last_action) -> (width, height,
    elements)``, the ``rgb_array`` picture with data attributes
    (:func:`~tabletop_zoo.envs._svg.state_svg` adds the status band), and
    ``action_cell(game, action)``, the ``data-cell`` an action aims at (``"a-b"``: the edge
    between two cells; ``None``: no cell); ``None``: no SVG pictures."""
    help: str | None = None
    """Module of the texts for people at the terminal: ``NOTATION_HELP``,
    ``RULES_SUMMARY`` and optionally ``ROUND_NAMES``; ``None``: generic texts."""

    @property
    def default_players(self) -> int:
        """The smallest supported player count."""
        return self.players[0]

    def env_module_object(self) -> ModuleType:
        """Import and return :attr:`env_module`."""
        return importlib.import_module(self.env_module)

    def game_class(self) -> type:
        """Import and return the engine's Game class."""
        return _import_attribute(self.engine)

    def make_observation_encoder(self, game: Any, max_turns: int | None = None) -> Any:
        """The observation encoder of ``game`` (an engine Game object of this spec):
        ``shape``, ``encode(state, seat)``, ``plane_names()``."""
        return _import_attribute(self.observation_encoder)(game, max_turns=max_turns)

    def new_state(
        self, num_players: int | None = None, seed: int | None = None, **options: Any
    ) -> Any:
        """A fresh engine state (``Game(num_players, **options).new_initial_state(seed)``)."""
        players = self.default_players if num_players is None else num_players
        return self.game_class()(num_players=players, **options).new_initial_state(seed)

    def golden_games(self) -> list[tuple[str, int, int]]:
        """``(file stem, num_players, seed)`` of every golden playthrough of this game."""
        return [(self.golden_name(n, seed), n, seed) for n, seed in self.golden_seeds]

    def fast_engine_class(self) -> type:
        """Import and return the compiled engine's class (ImportError saying how to
        install the ``fast`` extra without numba; InvalidOptionError if there is none)."""
        if self.fast_engine is None:
            raise InvalidOptionError(f"{self.name} has no compiled engine")
        return _import_attribute(self.fast_engine)

    def gui_module(self) -> ModuleType | None:
        """Import and return :attr:`gui` (``None`` if the game has none)."""
        return None if self.gui is None else importlib.import_module(self.gui)

    def svg_module(self) -> ModuleType | None:
        """Import and return :attr:`svg` (``None`` if the game has none)."""
        return None if self.svg is None else importlib.import_module(self.svg)

    def help_module(self) -> ModuleType | None:
        """Import and return :attr:`help` (``None`` if the game has none)."""
        return None if self.help is None else importlib.import_module(self.help)

    def golden_name(self, num_players: int, seed: int) -> str:
        """File stem of a golden playthrough, e.g. ``arktia_3p_seed5``."""
        players = "" if len(self.players) == 1 else f"_{num_players}p"
        return f"{self.name}{players}_seed{seed}"

    def label(self, num_players: int) -> str:
        """Row label for tables, e.g. ``arktia (3p)`` (no count for one-count games)."""
        return self.name if len(self.players) == 1 else f"{self.name} ({num_players}p)"


_REGISTERED: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="mole_hill",
            title="Mole Hill",
            env_module="tabletop_zoo.envs.mole_hill_v0",
            engine="tabletop_zoo.envs.mole_hill:MoleHillGame",
            observation_encoder=(
                "tabletop_zoo.envs.mole_hill.observation:MoleHillObservationEncoder"
            ),
            players=(2,),
            pettingzoo_id="tabletop_zoo/mole_hill-v0",
            gymnasium_id="tabletop_zoo/MoleHill-v0",
            golden_seeds=((2, 7),),
            benchmark_players=(2,),
            benchmark_anchor="pettingzoo.classic.connect_four_v3",
            fast_engine="tabletop_zoo.envs.mole_hill.fast.engine:FastMoleHill",
            gui="tabletop_zoo.envs.mole_hill.gui",
            svg="tabletop_zoo.envs.mole_hill.svg",
            help="tabletop_zoo.envs.mole_hill.help",
            train_overrides=MappingProxyType(
                # 8 envs x 256 steps: 4 x 512's rollouts, the policy's forward pass batched
                # over 8 envs (faster, the same strength: docs/results.md)
                {
                    "timesteps": 100_000,
                    "n_envs": 8,
                    "n_steps": 256,
                    "eval_games": 10,
                    "final_eval_games": 100,
                }
            ),
        ),
        GameSpec(
            name="arktia",
            title="Arktia",
            env_module="tabletop_zoo.envs.arktia_v0",
            engine="tabletop_zoo.envs.arktia:ArktiaGame",
            observation_encoder="tabletop_zoo.envs.arktia.observation:ArktiaObservationEncoder",
            players=(2, 3, 4),
            pettingzoo_id="tabletop_zoo/arktia-v0",
            gymnasium_id="tabletop_zoo/Arktia-v0",
            golden_seeds=((2, 3), (3, 5), (4, 11)),
            benchmark_players=(2, 3, 4),
            benchmark_anchor="pettingzoo.classic.go_v5",
            fast_engine="tabletop_zoo.envs.arktia.fast.engine:FastArktia",
            gui="tabletop_zoo.envs.arktia.gui",
            svg="tabletop_zoo.envs.arktia.svg",
            help="tabletop_zoo.envs.arktia.help",
            train_overrides=MappingProxyType(
                {"timesteps": 30_000, "eval_games": 5, "final_eval_games": 20}
            ),
        ),
    )
}
#: name -> spec of every game (read-only view; :func:`extended` adds one for a while).
GAMES: Mapping[str, GameSpec] = MappingProxyType(_REGISTERED)


@contextmanager
def extended(spec: GameSpec) -> Iterator[GameSpec]:
    """Add ``spec`` to :data:`GAMES` (so to everything that iterates it) inside a ``with``
    block (tests, experiments)."""
    if spec.name in _REGISTERED:
        raise InvalidOptionError(f"a game named {spec.name!r} is already registered")
    _REGISTERED[spec.name] = spec
    try:
        yield spec
    finally:
        del _REGISTERED[spec.name]


def _import_attribute(path: str) -> Any:
    """The object named by ``"module:attribute"``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def get_spec(game: str) -> GameSpec:
    """The spec of ``game``, or :class:`InvalidOptionError` listing the known games."""
    spec = GAMES.get(game) if isinstance(game, str) else None
    if spec is None:
        raise InvalidOptionError(f"unknown game {game!r}; allowed: {', '.join(sorted(GAMES))}")
    return spec


def _spec_of_game(game: Any) -> GameSpec | None:
    """The spec whose engine's Game class ``game`` is an instance of, or ``None``."""
    for spec in GAMES.values():
        if isinstance(game, spec.game_class()):
            return spec
    return None


def spec_of(obj: Any) -> GameSpec:
    """The spec of the game ``obj`` belongs to: an engine Game object, or anything holding
    one as ``game`` (an engine state, a renderer). InvalidOptionError if it belongs to no
    game of :data:`GAMES`."""
    spec = _spec_of_game(obj)
    if spec is None:
        spec = _spec_of_game(getattr(obj, "game", None))
    if spec is None:
        raise InvalidOptionError(f"{type(obj).__name__} belongs to no game of GAMES")
    return spec


def _face(game: str, num_players: int | None, face: str, options: dict[str, Any]) -> Any:
    spec = get_spec(game)
    players = spec.default_players if num_players is None else num_players
    return getattr(spec.env_module_object(), face)(num_players=players, **options)


def make_raw_env(game: str, num_players: int | None = None, **options: Any) -> Any:
    """The unwrapped AEC env of ``game`` (``<game>_v0.raw_env``) with ``options``."""
    return _face(game, num_players, "raw_env", options)


def make_env(game: str, num_players: int | None = None, **options: Any) -> Any:
    """The AEC env of ``game`` with PettingZoo's classic wrappers (``<game>_v0.env``)."""
    return _face(game, num_players, "env", options)


def make_parallel_env(game: str, num_players: int | None = None, **options: Any) -> Any:
    """The parallel face of ``game`` (``<game>_v0.parallel_env``)."""
    return _face(game, num_players, "parallel_env", options)


def new_game(game: str, num_players: int | None = None, **options: Any) -> Any:
    """The rules engine's Game object of ``game`` (call ``new_initial_state()`` on it)."""
    spec = get_spec(game)
    players = spec.default_players if num_players is None else num_players
    return spec.game_class()(num_players=players, **options)


#: Environment variable that turns the fast path off: ``TABLETOP_ZOO_FAST=0``.
FAST_SWITCH = "TABLETOP_ZOO_FAST"


def fast_path_available() -> bool:
    """Whether the search agents use the compiled engines (:func:`fast_state`): numba is
    installed and ``TABLETOP_ZOO_FAST`` is not ``0`` (other than ``0``, ``1`` or empty:
    InvalidOptionError). Speed only: both paths give the same games for a seed; a compiled
    engine asked for by name (:func:`fast_engine`, the vector env) ignores the switch."""
    switch = os.environ.get(FAST_SWITCH, "").strip()
    if switch not in ("", "0", "1"):
        raise InvalidOptionError(f"{FAST_SWITCH} must be 0 (off) or 1 (on), got {switch!r}")
    if switch == "0":
        return False
    if "numba" in sys.modules:  # imported, or blocked with None (as ``import`` treats it)
        return sys.modules["numba"] is not None
    return _numba_installed()


@functools.cache
def _numba_installed() -> bool:
    """Whether numba can be imported, looked up once per process: without numba every
    lookup searches the whole path, and the agents ask on every call."""
    return module_available("numba")


def fast_engine(
    game: str, num_players: int | None = None, max_turns: int | None = None, **options: Any
) -> FastEngine:
    """The compiled batched engine of ``game`` for these game options (imports numba;
    ImportError without it); ``max_turns``: the truncation limit (default: the env's)."""
    engine_class = get_spec(game).fast_engine_class()
    rules = new_game(game, num_players, **options)
    return engine_class(rules) if max_turns is None else engine_class(rules, max_turns=max_turns)


_FAST_ENGINES: dict[int, tuple[Any, Any]] = {}  # id(Game object) -> (Game, compiled engine)


def is_fast_state(state: Any) -> bool:
    """True for a compiled engine's one-row state (a ``fast_base.FastStateBase``)."""
    compiled = sys.modules.get("tabletop_zoo.envs.fast_base")  # loaded with any such state
    return compiled is not None and isinstance(state, compiled.FastStateBase)


def fast_state(state: Any) -> Any | None:
    """The compiled engine's copy of a rules-engine ``state`` (same protocol, plus
    ``rollout`` and ``greedy_best``), or ``None`` when the fast path is unavailable
    (numba missing, ``TABLETOP_ZOO_FAST=0``, or the game has no compiled engine). Search
    agents use this. A compiled state (a ``fast_base.FastStateBase``, as the batched
    arena hands the agents) gives a copy of itself."""
    if not fast_path_available():
        return None
    if is_fast_state(state):
        return state.clone()
    game = getattr(state, "game", None)
    cached = _FAST_ENGINES.get(id(game))
    if cached is None or cached[0] is not game:
        spec = _spec_of_game(game)
        if spec is None or spec.fast_engine is None:
            return None
        if len(_FAST_ENGINES) >= 64:  # games are few; keep the cache small anyway
            _FAST_ENGINES.clear()
        cached = _FAST_ENGINES[id(game)] = (game, spec.fast_engine_class()(game))
    engine = cached[1]
    return engine.wrap(engine.from_state(state))
