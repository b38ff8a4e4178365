"""Mole Hill saved states: JSON text <-> a validated plain snapshot.

This module checks the *form* of a saved state (keys, types, ranges, space names,
flower placement of M2); :meth:`MoleHillState.from_json
<tabletop_zoo.envs.mole_hill.rules.MoleHillState.from_json>` then replays the moves of
the round in progress, so every rule is checked by the rules themselves.

Schema (version 1)::

    {"game": "mole_hill", "version": 1, "random_flowers": false,
     "red_flowers": ["a4", ...4], "white_flowers": ["b2", ...4],
     "round": 1 | 2, "round_scores": [score of each finished round],
     "moves": ["e4", "a1-b1", ...]}   # the moves of the round in progress only
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tabletop_zoo.envs import _json
from tabletop_zoo.envs.errors import InvalidStateError
from tabletop_zoo.envs.mole_hill import board

GAME_NAME = "mole_hill"
JSON_VERSION = 1
NUM_FLOWERS = 4  # M2: 4 red and 4 white
MAX_ROUND_SCORE = 24  # M9: 12 dark pieces + 4 * 2 red + 4 * 1 white
MAX_MOVES = 43  # 22 mole moves + 21 rods in one round
KEYS = tuple(
    "game version random_flowers red_flowers white_flowers round round_scores moves".split()
)
DEFAULT_RED = tuple(sorted(board.parse_space(n) for n in ("e1", "a4", "i4", "e7")))  # M2
DEFAULT_WHITE = tuple(sorted(board.parse_space(n) for n in ("b2", "h2", "b6", "h6")))  # M2


@dataclass(frozen=True)
class MoleHillSnapshot:
    """A saved Mole Hill state in plain values (space indices, not names)."""

    random_flowers: bool
    red_flowers: tuple[int, ...]
    white_flowers: tuple[int, ...]
    round: int
    """1 or 2 (the round in progress, or 2 once the game is over)."""
    round_scores: tuple[int, ...]
    """Scores of the finished rounds (both once the game is over)."""
    moves: tuple[str, ...]
    """Notation of the moves of the round in progress."""


def dumps(snapshot: MoleHillSnapshot) -> str:
    """The JSON text of ``snapshot`` (keys in schema order)."""
    return json.dumps(
        {
            "game": GAME_NAME,
            "version": JSON_VERSION,
            "random_flowers": snapshot.random_flowers,
            "red_flowers": [board.SPACE_NAMES[s] for s in snapshot.red_flowers],
            "white_flowers": [board.SPACE_NAMES[s] for s in snapshot.white_flowers],
            "round": snapshot.round,
            "round_scores": list(snapshot.round_scores),
            "moves": list(snapshot.moves),
        }
    )


def loads(text: Any) -> MoleHillSnapshot:
    """Parse and check the form of a saved state; :class:`InvalidStateError` if bad."""
    data = _json.load_object(text, "Mole Hill state")
    _json.check_header(data, GAME_NAME, JSON_VERSION, "Mole Hill state")
    if set(data) != set(KEYS):
        raise InvalidStateError(
            f"Mole Hill state needs exactly the keys {sorted(KEYS)}, got {sorted(data)}"
        )
    random_flowers = data["random_flowers"]
    if not isinstance(random_flowers, bool):
        raise InvalidStateError(f"random_flowers must be true or false, got {random_flowers!r}")
    red, white = parse_flowers(data["red_flowers"], data["white_flowers"], random_flowers)
    round_number = data["round"]
    if type(round_number) is not int or round_number not in (1, 2):
        raise InvalidStateError(f"round must be the integer 1 or 2, got {round_number!r}")
    scores = data["round_scores"]
    if (
        not isinstance(scores, list)
        or not all(type(x) is int and 0 <= x <= MAX_ROUND_SCORE for x in scores)
        or len(scores) not in (round_number - 1, round_number)
    ):
        raise InvalidStateError(
            f"round_scores must list the scores (0..{MAX_ROUND_SCORE}) of the "
            f"{round_number - 1} finished round(s), plus the last one once the game is over; "
            f"got {_json.short(scores)}"
        )
    moves = data["moves"]
    if (
        not isinstance(moves, list)
        or len(moves) > MAX_MOVES
        or not all(isinstance(m, str) and len(m) <= _json.MAX_NOTATION for m in moves)
    ):
        raise InvalidStateError(
            f"moves must be a list of at most {MAX_MOVES} move strings (one round), "
            f"got {_json.short(moves)}"
        )
    return MoleHillSnapshot(random_flowers, red, white, round_number, tuple(scores), tuple(moves))


def parse_flowers(
    red: Any, white: Any, random_flowers: bool
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate flower lists (M2): 4 red + 4 white distinct spaces, never the centre."""
    lists = all(isinstance(x, Sequence) and not isinstance(x, str) for x in (red, white))
    if not (lists and len(red) == len(white) == NUM_FLOWERS):
        raise InvalidStateError("red_flowers and white_flowers must be lists of 4 spaces each")
    try:
        r = tuple(sorted(board.parse_space(s) for s in red))
        w = tuple(sorted(board.parse_space(s) for s in white))
    except (ValueError, AttributeError) as exc:
        raise InvalidStateError(f"bad flower space: {exc}") from None
    if len(set(r + w)) != 2 * NUM_FLOWERS or board.CENTRE in r + w:
        raise InvalidStateError("the 8 flowers must be on 8 distinct spaces other than the centre")
    if not random_flowers and (r, w) != (DEFAULT_RED, DEFAULT_WHITE):
        raise InvalidStateError(
            "flowers off the printed spots need random_flowers=true (variant of M2)"
        )
    return r, w
