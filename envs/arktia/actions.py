"""The fixed Arktia action encoding and its notation (one printer, one parser).

For a layout with ``N`` tiles the actions are, in this order:

========  ==========  ==========================================  =====================
block     size        index                                       notation
========  ==========  ==========================================  =====================
place     ``3N``      ``kind * N + tile``                         ``T@c3``
move      ``3N^2``    ``3N + (frm * N + to) * 3 + (k - 1)``       ``c3-e1`` / ``c3-e1/2``
melt      ``N``       ``3N + 3N^2 + tile``                        ``melt a2``
keep      ``N``       ``4N + 3N^2 + tile``                        ``keep d4``
stop      ``1``       ``5N + 3N^2``                               ``stop``
========  ==========  ==========================================  =====================

``k`` is the number of pieces taken from the top of the stack (1..3). The plain move
``c3-e1`` means "the whole stack"; the codec alone does not know stack heights, so it
always prints ``/k`` and needs a height lookup to parse a move without ``/k``
(:meth:`ArktiaState.action_to_string` drops ``/k`` when the whole stack moves).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tabletop_zoo.envs.arktia.constants import KIND_LETTERS, D, G, T
from tabletop_zoo.envs.arktia.layout import Layout
from tabletop_zoo.envs.errors import IllegalActionError, NotationError, as_integer

#: Longest notation string accepted (the longest move, ``z99-z99/3``, has 9 characters).
MAX_NOTATION_LENGTH = 32
# ASCII only: a tile is a row letter and ASCII digits; ``fullmatch`` so no trailing newline
_TILE = r"([a-z][0-9]{1,2})"
_PLACE_RE = re.compile(rf"([gdt])@{_TILE}", re.ASCII)  # parse() lower-cases its input
_MOVE_RE = re.compile(rf"{_TILE}-{_TILE}(?:/([0-9]{{1,3}}))?", re.ASCII)
_MELT_KEEP_RE = re.compile(rf"(melt|keep)\s+{_TILE}", re.ASCII)

NOTATION_HELP = (
    "expected one of: 'T@c3' (place a G, D or T on c3), 'c3-e1' (move the whole stack), "
    "'c3-e1/1' (move the top 1 or 2 pieces), 'melt a2', 'keep d4', 'stop'"
)


class ActionCodec:
    """Action indices <-> (type, fields) <-> notation strings for one layout."""

    def __init__(self, layout: Layout) -> None:
        n = layout.num_tiles
        self.layout = layout
        self.num_tiles = n
        self.MOVE = 3 * n  # first index of each block (place: 0)
        self.MELT = self.MOVE + 3 * n * n
        self.KEEP = self.MELT + n
        self.STOP = self.KEEP + n
        self.num_actions = self.STOP + 1

    # ---------------------------------------------------------------- encoding
    def _tile(self, t: int) -> int:
        if not 0 <= t < self.num_tiles:
            raise IllegalActionError(f"tile index {t} out of range 0..{self.num_tiles - 1}")
        return t

    def encode_place(self, kind: int, tile: int) -> int:
        """Index of "place a piece of ``kind`` on ``tile``"."""
        if kind not in (G, D, T):
            raise IllegalActionError(f"kind {kind!r} is not one of G=0, D=1, T=2")
        return kind * self.num_tiles + self._tile(tile)

    def encode_move(self, frm: int, to: int, k: int) -> int:
        """Index of "move the top ``k`` pieces (1..3) from ``frm`` to ``to``"."""
        if k not in (1, 2, 3):
            raise IllegalActionError(f"k={k!r}: a move takes 1, 2 or 3 pieces from the top")
        return self.MOVE + (self._tile(frm) * self.num_tiles + self._tile(to)) * 3 + (k - 1)

    def encode_melt(self, tile: int) -> int:
        """Index of "melt ``tile``"."""
        return self.MELT + self._tile(tile)

    def encode_keep(self, tile: int) -> int:
        """Index of "keep the tied group containing ``tile``"."""
        return self.KEEP + self._tile(tile)

    def decode(self, a: int) -> tuple:
        """``("place", kind, tile)``, ``("move", frm, to, k)``, ``("melt", tile)``,
        ``("keep", tile)`` or ``("stop",)``."""
        index = as_integer(a)  # Python or NumPy integer; bools are not actions
        if index is None:
            raise IllegalActionError(f"action {a!r} is not an integer action index")
        a = index
        n = self.num_tiles
        if a < 0 or a >= self.num_actions:
            raise IllegalActionError(f"action {a} out of range 0..{self.num_actions - 1}")
        if a < self.MOVE:
            return ("place", a // n, a % n)
        if a < self.MELT:
            pair, k1 = divmod(a - self.MOVE, 3)
            return ("move", pair // n, pair % n, k1 + 1)
        if a < self.KEEP:
            return ("melt", a - self.MELT)
        if a < self.STOP:
            return ("keep", a - self.KEEP)
        return ("stop",)

    # ---------------------------------------------------------------- notation
    def to_string(self, a: int, height: int | None = None) -> str:
        """Notation of action ``a``; a move omits ``/k`` when ``k == height``."""
        d = self.decode(a)
        names = self.layout.names
        if d[0] == "place":
            return f"{KIND_LETTERS[d[1]]}@{names[d[2]]}"
        if d[0] == "move":
            _, frm, to, k = d
            text = f"{names[frm]}-{names[to]}"
            return text if k == height else f"{text}/{k}"
        if d[0] in ("melt", "keep"):
            return f"{d[0]} {names[d[1]]}"
        return "stop"

    def _name(self, name: str, text: str) -> int:
        if not self.layout.has_name(name):
            raise NotationError(
                f"{text!r}: unknown tile {name!r}; tiles are "
                f"{self.layout.names[0]}..{self.layout.names[-1]}"
            )
        return self.layout.index_of(name)

    def parse(self, text: str, height_of: Callable[[int], int] | None = None) -> int:
        """Action index of a notation string (NotationError on bad text).

        ``height_of(tile)`` gives stack heights so that ``c3-e1`` (whole stack) can be
        parsed; without it a move must say ``/k``.
        """
        if not isinstance(text, str):
            raise NotationError(f"notation must be a string, got {type(text).__name__}")
        if len(text) > MAX_NOTATION_LENGTH or not text.isascii():
            raise NotationError(
                f"cannot parse {text[:MAX_NOTATION_LENGTH]!r}"
                f"{'...' if len(text) > MAX_NOTATION_LENGTH else ''}: notation is ASCII text of "
                f"at most {MAX_NOTATION_LENGTH} characters; {NOTATION_HELP}"
            )
        s = text.strip().lower()  # notation is case-insensitive ("T@C3" = "t@c3")
        if s == "stop":
            return self.STOP
        m = _PLACE_RE.fullmatch(s)
        if m:
            return KIND_LETTERS.index(m[1].upper()) * self.num_tiles + self._name(m[2], text)
        m = _MOVE_RE.fullmatch(s)
        if m:
            frm, to = self._name(m[1], text), self._name(m[2], text)
            if m[3] is None:
                if height_of is None:
                    raise NotationError(
                        f"{text!r}: without a position the number of pieces is unknown; "
                        f"write {m[1]}-{m[2]}/k with k = 1, 2 or 3"
                    )
                k = height_of(frm)
                if k == 0:
                    raise NotationError(f"{text!r}: there is no stack on {m[1]} to move")
            else:
                k = int(m[3])
                if k not in (1, 2, 3):
                    raise NotationError(f"{text!r}: /{k} must be /1, /2 or /3 (pieces taken)")
            return self.MOVE + (frm * self.num_tiles + to) * 3 + (k - 1)
        m = _MELT_KEEP_RE.fullmatch(s)
        if m:
            return (self.MELT if m[1] == "melt" else self.KEEP) + self._name(m[2], text)
        raise NotationError(f"cannot parse {text!r}: {NOTATION_HELP}")
