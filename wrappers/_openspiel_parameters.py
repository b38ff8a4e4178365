"""Parameters of the OpenSpiel games of :mod:`tabletop_zoo.wrappers.openspiel`.

Derived from the registry entry and the engine Game class's keyword options (read from its
signature and type hints), so no game is named here.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GameSpec, get_spec

#: Default cap on player decisions per game (``max_moves``); far above a normal game.
DEFAULT_MAX_MOVES = 1000
#: Outcomes of the opening chance node of a stochastic variant (seeds ``0..CHANCE_SEEDS-1``).
CHANCE_SEEDS = 1024
_OWN_PARAMETERS = ("players", "max_moves")
# Words of a bool given to a None-default (string) option. Not "true"/"false": OpenSpiel's
# game strings would read those back as bools, which a string parameter rejects.
_BOOL_WORDS = {"yes": True, "no": False}


def short_name(game: str) -> str:
    """OpenSpiel short name of one of our games, e.g. ``python_<game>``."""
    return f"python_{get_spec(game).name}"


def engine_options(spec: GameSpec) -> dict[str, inspect.Parameter]:
    """Keyword options of the engine's Game class, except ``num_players``."""
    signature = inspect.signature(spec.game_class().__init__)
    return {
        name: p
        for name, p in signature.parameters.items()
        if name not in ("self", "num_players")
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.default is not inspect.Parameter.empty
    }


def parameter_specification(game: str) -> dict[str, Any]:
    """OpenSpiel parameters of ``game`` with their defaults (their types come from these)."""
    spec = get_spec(game)
    params: dict[str, Any] = {"players": spec.default_players, "max_moves": DEFAULT_MAX_MOVES}
    for name, option in engine_options(spec).items():
        if name in _OWN_PARAMETERS:
            raise InvalidOptionError(f"engine option {name!r} clashes with a bridge parameter")
        params[name] = "" if option.default is None else option.default
    return params


def allowed_types(spec: GameSpec, name: str) -> tuple[type, ...]:
    """The plain types an engine option's annotation allows (``bool | None`` -> bool)."""
    hints = typing.get_type_hints(spec.game_class().__init__)
    hint = hints.get(name, str)
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return tuple(a for a in args if isinstance(a, type))


def option_from_text(spec: GameSpec, name: str, text: str) -> Any:
    """Value of a ``None``-default engine option given as an OpenSpiel string."""
    if text == "":
        return None
    allowed = allowed_types(spec, name)
    word = text.strip().lower()
    if bool in allowed and word in _BOOL_WORDS:
        return _BOOL_WORDS[word]
    if str in allowed:
        return text
    kinds = " or ".join(['"yes"/"no"'] * (bool in allowed) + ["text"] * (str in allowed))
    raise InvalidOptionError(
        f"parameter {name}={text!r} of {short_name(spec.name)}: "
        f'need "" (the engine default) or {kinds or "nothing else"}'
    )
