"""Arktia saved states: JSON text <-> a validated plain snapshot.

:func:`loads` checks the *form* of a saved state in named steps (keys and header,
options and layout, board, material, progress, pending choices): types, ranges, tile
names, list lengths. It builds no state. :meth:`ArktiaState.from_json
<tabletop_zoo.envs.arktia.rules.ArktiaState.from_json>` then builds the position from the
snapshot and runs the rule-level checks (legal stacks, material, connected groups, whose
turn it can be; :mod:`.reachability`). Imports run one way: rules -> reachability ->
serialization -> layout, constants.

Schema (version 1; ``"game"`` and ``"version"`` may be left out)::

    {"game": "arktia", "version": 1, "num_players": 2, "neutral_pieces": true,
     "layout": "  o o o\\n ...", "stacks": {"a1": [[0, "T"], ["neutral", "D"]], ...},
     "melted_tiles": ["a3"], "reserves": [[G, D, T] per seat],
     "neutral_reserves": [[G, D, T] per seat], "removed": [per seat], "melted": [per seat],
     "round": 0..3, "phase": "setup" | "opening" | "normal" | "melt" | "choose",
     "current_player": -1..n-1, "ended": [seats], "turn": completed turns,
     "pending_choices": [{"colour": seat | "neutral", "groups": [["b1", "b2"], ...]}]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tabletop_zoo.envs import _json
from tabletop_zoo.envs.arktia.constants import (
    KIND_LETTERS,
    MAX_STACK_HEIGHT,
    NEUTRAL,
    PHASES,
    PIECES_PER_KIND,
    ROUND_PHASES,
)
from tabletop_zoo.envs.arktia.layout import Layout, iter_bits, parse_layout
from tabletop_zoo.envs.errors import InvalidLayoutError, InvalidStateError

GAME_NAME = "arktia"
JSON_VERSION = 1
REQUIRED_KEYS = tuple(
    "num_players neutral_pieces layout stacks melted_tiles reserves neutral_reserves removed "
    "melted round phase current_player ended turn pending_choices".split()
)
OPTIONAL_KEYS = ("game", "version")

Piece = tuple[int, int]  # (owner, kind)


def kinds_of(stack: tuple[Piece, ...]) -> tuple[int, ...]:
    """The kinds of a stack, bottom to top."""
    return tuple(k for _, k in stack)


@dataclass(frozen=True)
class ArktiaSnapshot:
    """A saved Arktia state in plain values (tile indices and bitmasks, not names)."""

    num_players: int
    neutral_pieces: bool
    layout: Layout
    alive: int
    """Bitmask of the tiles not melted."""
    stacks: tuple[tuple[Piece, ...], ...]
    """Per tile: pieces bottom to top as ``(owner, kind)``."""
    reserves: tuple[tuple[int, int, int], ...]
    neutral_reserves: tuple[tuple[int, int, int], ...]
    removed: tuple[int, ...]
    melted: tuple[int, ...]
    round: int
    phase: str
    current_player: int
    ended: tuple[bool, ...]
    turn: int
    pending_choices: tuple[tuple[int, tuple[int, ...]], ...]
    """``((colour, (group bitmask, ...)), ...)``, the active choice first."""


def bad(message: str) -> InvalidStateError:
    """The error of an invalid saved state."""
    return InvalidStateError(f"invalid Arktia state: {message}")


def owner_json(owner: int) -> int | str:
    """A seat as itself, the neutral owner as ``"neutral"``."""
    return "neutral" if owner == NEUTRAL else owner


def dumps(snapshot: ArktiaSnapshot) -> str:
    """The JSON text of ``snapshot`` (keys in schema order)."""
    lay = snapshot.layout
    return json.dumps(
        {
            "game": GAME_NAME,
            "version": JSON_VERSION,
            "num_players": snapshot.num_players,
            "neutral_pieces": snapshot.neutral_pieces,
            "layout": lay.text,
            "stacks": {
                lay.names[t]: [[owner_json(o), KIND_LETTERS[k]] for o, k in snapshot.stacks[t]]
                for t in iter_bits(snapshot.alive)
            },
            "melted_tiles": lay.mask_names(lay.all_mask & ~snapshot.alive),
            "reserves": [list(r) for r in snapshot.reserves],
            "neutral_reserves": [list(r) for r in snapshot.neutral_reserves],
            "removed": list(snapshot.removed),
            "melted": list(snapshot.melted),
            "round": snapshot.round,
            "phase": snapshot.phase,
            "current_player": snapshot.current_player,
            "ended": [s for s in range(snapshot.num_players) if snapshot.ended[s]],
            "turn": snapshot.turn,
            "pending_choices": [
                {"colour": owner_json(c), "groups": [lay.mask_names(g) for g in groups]}
                for c, groups in snapshot.pending_choices
            ],
        }
    )


def loads(text: Any) -> ArktiaSnapshot:
    """Parse and check the form of a saved state; :class:`InvalidStateError` if bad."""
    data = _json.load_object(text, "Arktia state")
    _json.check_header(data, GAME_NAME, JSON_VERSION, "invalid Arktia state")
    _check_keys(data)
    n, neutral, layout = _parse_options(data)
    # the steps give the fields in the snapshot's order
    return ArktiaSnapshot(
        n,
        neutral,
        layout,
        *_parse_board(data, n, neutral, layout),
        *_parse_material(data, n, neutral, layout),
        *_parse_progress(data, n),
        _parse_pending(data, n, layout),
    )


# ---------------------------------------------------------------------- value checks
def integer(value: Any, what: str, low: int, high: int | None) -> int:
    """``value`` if it is a JSON integer in ``low..high`` (no upper bound if None)."""
    if type(value) is not int:
        raise bad(f"{what} must be an integer, got {_json.short(value)}")
    if value < low or (high is not None and value > high):
        upper = "" if high is None else str(high)
        raise bad(f"{what} = {_json.short(value)} is out of range {low}..{upper}")
    return value


def json_list(value: Any, what: str, length: int | None = None) -> list:
    """``value`` if it is a JSON list (of ``length`` entries when given)."""
    if not isinstance(value, list):
        raise bad(f"{what} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise bad(f"{what} must have {length} entries, got {len(value)}")
    return value


def tile_index(layout: Layout, name: Any, what: str) -> int:
    """Index of a tile name of ``layout``."""
    if not isinstance(name, str) or not layout.has_name(name):
        raise bad(
            f"{what}: unknown tile name {_json.short(name)} "
            f"(tiles {layout.names[0]}..{layout.names[-1]})"
        )
    return layout.index_of(name)


def owner_index(value: Any, n: int, what: str) -> int:
    """A seat ``0..n-1`` or ``"neutral"``."""
    if value == "neutral":
        return NEUTRAL
    return integer(value, f"{what} (a seat or 'neutral')", 0, n - 1)


# ---------------------------------------------------------------------- steps
def _check_keys(data: dict[str, Any]) -> None:
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise bad(f"missing keys {missing}")
    unknown = sorted(set(data) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise bad(
            f"unknown keys {_json.short(unknown)}; allowed: {list(REQUIRED_KEYS + OPTIONAL_KEYS)}"
        )


def _parse_options(data: dict[str, Any]) -> tuple[int, bool, Layout]:
    """``num_players``, ``neutral_pieces`` and the layout."""
    n = integer(data["num_players"], "num_players", 2, 4)
    neutral = data["neutral_pieces"]
    if not isinstance(neutral, bool):
        raise bad(f"neutral_pieces must be true or false, got {_json.short(neutral)}")
    if not isinstance(data["layout"], str):
        raise bad("layout must be the ASCII layout string")
    try:
        layout = parse_layout(data["layout"])
    except InvalidLayoutError as exc:
        raise bad(str(exc)) from None
    return n, neutral, layout


def _parse_board(
    data: dict[str, Any], n: int, neutral: bool, layout: Layout
) -> tuple[int, tuple[tuple[Piece, ...], ...]]:
    """Melted tiles and the stacks (owners, kinds, at most 3 pieces, none on water)."""
    alive = layout.all_mask
    for name in json_list(data["melted_tiles"], "melted_tiles"):
        t = tile_index(layout, name, "melted_tiles")
        if not alive >> t & 1:
            raise bad(f"melted_tiles lists {name} twice")
        alive &= ~(1 << t)
    if not alive:
        raise bad("every tile is melted")
    stacks_json = data["stacks"]
    if not isinstance(stacks_json, dict):
        raise bad("stacks must be an object mapping tile names to lists of [owner, kind]")
    stacks: list[tuple[Piece, ...]] = [()] * layout.num_tiles
    for name, pieces in stacks_json.items():
        t = tile_index(layout, name, "stacks")
        pieces = json_list(pieces, f"stack on {name}")
        if pieces and not alive >> t & 1:
            raise bad(f"tile {name} is melted but holds pieces")
        if len(pieces) > MAX_STACK_HEIGHT:
            raise bad(f"stack on {name} has {len(pieces)} pieces; at most {MAX_STACK_HEIGHT}")
        stack = []
        for piece in pieces:
            if not isinstance(piece, list) or len(piece) != 2:
                raise bad(
                    f"stack on {name}: a piece must be [owner, kind], got {_json.short(piece)}"
                )
            owner_value, kind = piece
            if owner_value == "neutral" and not neutral:
                raise bad(f"stack on {name}: neutral piece but neutral_pieces is false")
            owner = owner_index(owner_value, n, f"stack on {name}: owner")
            if not isinstance(kind, str) or kind not in ("G", "D", "T"):
                raise bad(f"stack on {name}: kind must be 'G', 'D' or 'T', got {_json.short(kind)}")
            stack.append((owner, KIND_LETTERS.index(kind)))
        stacks[t] = tuple(stack)
    return alive, tuple(stacks)


def _parse_material(
    data: dict[str, Any], n: int, neutral: bool, layout: Layout
) -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...], tuple, tuple]:
    """Reserves, neutral reserves, pieces removed and tiles melted per seat."""
    reserves_json = json_list(data["reserves"], "reserves", n)
    neutral_json = json_list(data["neutral_reserves"], "neutral_reserves", n)
    reserves, neutral_reserves = [], []
    for s in range(n):
        entry = json_list(reserves_json[s], f"reserves[{s}]", 3)
        reserves.append(tuple(integer(x, f"reserves[{s}]", 0, PIECES_PER_KIND) for x in entry))
        entry = json_list(neutral_json[s], f"neutral_reserves[{s}]", 3)
        neutral_reserves.append(
            tuple(integer(x, f"neutral_reserves[{s}]", 0, 1 if neutral else 0) for x in entry)
        )
    total_pieces = 9 * n + (3 * n if neutral else 0)
    removed = tuple(
        integer(x, "removed", 0, total_pieces) for x in json_list(data["removed"], "removed", n)
    )
    melted = tuple(
        integer(x, "melted", 0, layout.num_tiles) for x in json_list(data["melted"], "melted", n)
    )
    return tuple(reserves), tuple(neutral_reserves), removed, melted  # type: ignore[return-value]


def _parse_progress(data: dict[str, Any], n: int) -> tuple[int, str, int, tuple[bool, ...], int]:
    """Round, phase, current player, ended seats and the turn counter."""
    round_number = integer(data["round"], "round", 0, 3)
    phase = data["phase"]
    if not isinstance(phase, str) or phase not in PHASES:
        raise bad(f"phase {_json.short(phase)} is not one of {list(PHASES)}")
    main_phase = ROUND_PHASES[round_number]
    if phase in ("setup", "opening", "normal") and phase != main_phase:
        raise bad(f"phase {phase!r} does not match round {round_number} (expected {main_phase!r})")
    turn = integer(data["turn"], "turn", 0, None)
    ended = [False] * n
    for seat in json_list(data["ended"], "ended"):
        seat = integer(seat, "ended seat", 0, n - 1)
        if ended[seat]:
            raise bad(f"ended lists seat {seat} twice")
        ended[seat] = True
    current = integer(data["current_player"], "current_player", -1, n - 1)
    return round_number, phase, current, tuple(ended), turn


def _parse_pending(
    data: dict[str, Any], n: int, layout: Layout
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The group choices the mover still has to make (R16)."""
    pending = []
    for i, entry in enumerate(json_list(data["pending_choices"], "pending_choices")):
        if not isinstance(entry, dict) or set(entry) != {"colour", "groups"}:
            raise bad(f"pending_choices[{i}] must be an object with 'colour' and 'groups'")
        colour = owner_index(entry["colour"], n, f"pending_choices[{i}].colour")
        groups = []
        for names in json_list(entry["groups"], f"pending_choices[{i}].groups"):
            mask = 0
            for name in json_list(names, f"pending_choices[{i}] group"):
                mask |= 1 << tile_index(layout, name, f"pending_choices[{i}]")
            groups.append(mask)
        pending.append((colour, tuple(groups)))
    return tuple(pending)
