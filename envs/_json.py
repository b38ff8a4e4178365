"""Reading and writing saved states: the steps both games' ``serialization`` share.

Input is bounded before it is parsed (size and nesting depth), so a hostile or broken
file gives :class:`~tabletop_zoo.envs.errors.InvalidStateError` with a clear message,
never ``RecursionError`` or ``MemoryError``. Pure Python (standard library only).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from tabletop_zoo.envs.errors import InvalidStateError

#: Longest saved state accepted, in characters (the largest saved states are ~10 kB).
MAX_CHARS = 200_000
#: Deepest nesting of lists/objects accepted (the schemas use at most 5 levels).
MAX_DEPTH = 10
#: Longest move string accepted inside a saved state.
MAX_NOTATION = 64

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def nesting_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in JSON ``text`` (brackets inside strings ignored)."""
    bare = _STRING.sub("", text)
    steps = [_DEPTH_STEP[ch] for ch in bare if ch in _DEPTH_STEP]
    return max(accumulate(steps), default=0)


def load_object(text: Any, what: str) -> dict[str, Any]:
    """Parse ``text`` into a JSON object, bounded in size and depth; else InvalidStateError."""
    if not isinstance(text, str | bytes | bytearray):
        raise InvalidStateError(f"{what} must be JSON text (a str), got {type(text).__name__}")
    if isinstance(text, bytes | bytearray):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidStateError(f"{what} is not UTF-8 text: {exc}") from None
    if len(text) > MAX_CHARS:
        raise InvalidStateError(
            f"{what} is {len(text)} characters long; at most {MAX_CHARS} are accepted"
        )
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise InvalidStateError(
            f"{what} nests lists/objects {depth} levels deep; at most {MAX_DEPTH} are accepted"
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidStateError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidStateError(
            f"{what}: the top level must be a JSON object with the keys of the schema, "
            f"got {type(data).__name__}"
        )
    return data


def check_header(data: dict[str, Any], game: str, version: int, what: str) -> None:
    """The ``"game"`` and ``"version"`` entries (when present) name ``game`` and ``version``."""
    name = data.get("game", game)
    number = data.get("version", version)
    if name != game and isinstance(name, str) and name in _registered_games():
        raise InvalidStateError(
            f"{what}: this is a saved {name!r} state, not a {game!r} one; load it with the "
            f"State class of {name!r} (tabletop_zoo.envs.registry.GAMES[{name!r}])"
        )
    if name != game or type(number) is not int or number != version:
        raise InvalidStateError(
            f"{what}: not a {game} state of version {version}: "
            f"game={short(name)}, version={short(number)}"
        )


def _registered_games() -> tuple[str, ...]:
    """Names of the registry's games (imported late: the registry imports nothing heavy)."""
    from tabletop_zoo.envs.registry import GAMES

    return tuple(GAMES)
