"""Mole Hill board geometry, action encoding and move notation (the one place for all three).

Board (ruling M1): 7 rows x 9 columns. Columns ``a``-``i`` from the left, rows
``1``-``7`` from the top. Space index ``s = row * 9 + col`` with ``row`` 0..6
(rows 1..7) and ``col`` 0..8 (``a``..``i``); ``e4`` (index 31) is the centre.

Edges (ruling M3): the 110 interior edges between orthogonally adjacent spaces.

* ``e`` in 0..55: horizontal neighbours ``(r, c)``-``(r, c + 1)``, ``e = r * 8 + c``;
* ``e`` in 56..109: vertical neighbours ``(r, c)``-``(r + 1, c)``, ``e = 56 + r * 9 + c``.

Actions (``Discrete(173)``, the same for both roles):

* ``s`` in 0..62: the mole goes to space ``s`` (first placement, step or jump);
  notation: the space, e.g. ``e4``;
* ``63 + e``: the gardener puts a rod on edge ``e``; notation: the two spaces,
  upper/left one first, e.g. ``e4-f4`` or ``e4-e5``.
"""

from __future__ import annotations

from tabletop_zoo.envs.errors import NotationError, as_integer

ROWS = 7
COLS = 9
NUM_SPACES = ROWS * COLS  # 63
CENTRE = 3 * COLS + 4  # e4
NUM_H_EDGES = ROWS * (COLS - 1)  # 56
NUM_V_EDGES = (ROWS - 1) * COLS  # 54
NUM_EDGES = NUM_H_EDGES + NUM_V_EDGES  # 110
ROD_OFFSET = NUM_SPACES  # first rod action
NUM_ACTIONS = NUM_SPACES + NUM_EDGES  # 173
COLUMN_LETTERS = "abcdefghi"


def space_index(row: int, col: int) -> int:
    """Space index of ``(row, col)`` (both 0-based)."""
    return row * COLS + col


#: The two spaces of each edge, upper/left one first: the horizontal edges, then the vertical.
EDGE_SPACES: tuple[tuple[int, int], ...] = (
    *[(space_index(r, c), space_index(r, c + 1)) for r in range(ROWS) for c in range(COLS - 1)],
    *[(space_index(r, c), space_index(r + 1, c)) for r in range(ROWS - 1) for c in range(COLS)],
)
# (a, b) and (b, a) -> edge index, for orthogonally adjacent spaces a, b.
EDGE_BETWEEN: dict[tuple[int, int], int] = {}
for _e, (_a, _b) in enumerate(EDGE_SPACES):
    EDGE_BETWEEN[_a, _b] = _e
    EDGE_BETWEEN[_b, _a] = _e

SPACE_NAMES: tuple[str, ...] = tuple(
    f"{COLUMN_LETTERS[s % COLS]}{s // COLS + 1}" for s in range(NUM_SPACES)
)
_SPACE_BY_NAME = {name: s for s, name in enumerate(SPACE_NAMES)}
ACTION_NAMES: tuple[str, ...] = SPACE_NAMES + tuple(
    f"{SPACE_NAMES[a]}-{SPACE_NAMES[b]}" for a, b in EDGE_SPACES
)


def rod_action(edge: int) -> int:
    """The action that puts a rod on ``edge``."""
    return ROD_OFFSET + edge


#: Longest notation string accepted (the longest move, ``e4-f4``, has 5 characters).
MAX_NOTATION_LENGTH = 32


def parse_space(text: str) -> int:
    """Space index of a name such as ``e4`` (ASCII; case and surrounding spaces ignored)."""
    if not isinstance(text, str):
        raise NotationError(f"a space must be a string such as 'e4', got {type(text).__name__}")
    short_ascii = len(text) <= MAX_NOTATION_LENGTH and text.isascii()
    key = text.strip().lower() if short_ascii else ""
    if key not in _SPACE_BY_NAME:
        raise NotationError(
            f"bad space {text[:MAX_NOTATION_LENGTH]!r}: expected a column a-i followed by "
            "a row 1-7, e.g. 'e4'"
        )
    return _SPACE_BY_NAME[key]


def action_to_string(action: int) -> str:
    """Notation of any action 0..172 (``e4`` or ``e4-f4``)."""
    index = as_integer(action)  # Python and NumPy integers; bools, floats, strings: no
    if index is None or not 0 <= index < NUM_ACTIONS:
        raise NotationError(f"action {action!r} is not an integer in 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[index]


def string_to_action(text: str) -> int:
    """Parse ``e4`` (mole) or ``e4-f4`` / ``f4-e4`` (rod) into an action number.

    Raises :class:`NotationError` for anything else, including two spaces that
    do not share an edge.
    """
    if not isinstance(text, str):
        raise NotationError(f"notation must be a string, got {type(text).__name__}")
    if len(text) > MAX_NOTATION_LENGTH:
        raise NotationError(
            f"bad move {text[:MAX_NOTATION_LENGTH]!r}...: a move is at most "
            f"{MAX_NOTATION_LENGTH} characters, e.g. 'e4' or 'e4-f4'"
        )
    parts = text.split("-")
    if len(parts) == 1:
        return parse_space(parts[0])
    if len(parts) == 2:
        a, b = parse_space(parts[0]), parse_space(parts[1])
        if (a, b) not in EDGE_BETWEEN:
            raise NotationError(
                f"bad rod {text!r}: the two spaces must be orthogonal neighbours, e.g. 'e4-f4'"
            )
        return rod_action(EDGE_BETWEEN[a, b])
    raise NotationError(
        f"bad move {text!r}: expected a space ('e4') for the mole or two neighbouring "
        "spaces ('e4-f4') for a rod"
    )
