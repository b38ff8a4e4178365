"""Arktia's game constants: the one place the rules, the saved-state format, the
observation encoder and the compiled twin read them from.

Plain module-level names only (no imports), so every other module of the game can import
them, and numba reads them as compile-time constants in ``fast/kernels.py``. Rule
references (R1-R23) are to ``docs/rules/ARKTIA.md``.
"""

from __future__ import annotations

#: Owner id of the neutral pieces (seats are 0..3).
NEUTRAL = 4
#: Colour index = owner id (seats 0..3, then NEUTRAL).
NUM_COLOURS = 5
#: Seat 0..3 = red, blue, yellow, green; index 4 = neutral.
COLOUR_LETTERS = "rbygn"

#: The piece kinds (R2): G, D and T, by their letters in notation.
G, D, T = 0, 1, 2
KIND_LETTERS = "GDT"
#: Each player owns 3 G, 3 D and 3 T.
PIECES_PER_KIND = 3
MAX_STACK_HEIGHT = 3
#: Most tiles a layout may have (one bit each in an ``int64`` word).
MAX_TILES = 64

#: Default truncation limit of the env in completed turns (R23). A 2-player game where
#: both players place all 9 pieces and then melt lasts well under 100 turns; 300 leaves
#: room for long manoeuvring without letting a stalled game run forever.
DEFAULT_MAX_TURNS = 300

#: Round of play (stored as ``round`` in JSON): setup of the neutral pieces (R5-R6),
#: the two placement rounds of the opening (R8-R9), then normal play (R10).
SETUP, OPENING_1, OPENING_2, NORMAL = 0, 1, 2, 3
#: The decision pending (``phase`` in JSON).
PHASES = ("setup", "opening", "normal", "melt", "choose")
#: The phase of each round when no sub-decision (melt, group choice) is pending.
ROUND_PHASES = ("setup", "opening", "opening", "normal")

#: Legal stacks, bottom to top, as tuples of kinds (R11-R14): the singles and A-D.
STACK_SHAPES: dict[tuple[int, ...], str] = {
    (G,): "G",
    (D,): "D",
    (T,): "T",
    (D, G): "A",
    (T, D): "B",
    (G, T): "C",
    (T, D, G): "D",
}
