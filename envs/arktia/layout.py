"""Arktia hex layouts: the ASCII format of rulings R2-R4, tile names and bitmask tables.

A layout is written one text line per row of tiles, an ``o`` per tile, in "doubled"
columns: tile (r, c) neighbours (r, c-2), (r, c+2), (r-1, c-1), (r-1, c+1), (r+1, c-1)
and (r+1, c+1), and these six offsets are the six straight-line directions (R1, R2).
Tiles are numbered row by row from the top, left to right; that order is also the
order of the names ``a1, a2, ..., b1, ...`` (R4).

Tile sets are int bitmasks (bit ``t`` = tile ``t``); the tables here (neighbour masks,
rays per direction) let the rules engine work on whole sets at once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from tabletop_zoo.envs.arktia.constants import MAX_TILES
from tabletop_zoo.envs.errors import InvalidLayoutError

# The six straight-line directions as (row, column) offsets in doubled columns.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1))

MAX_ROWS = 26  # row letters a..z
MAX_LAYOUT_CHARS = 10_000  # far more than 26 rows of 64 tiles need

DEFAULT_LAYOUTS: dict[int, str] = {  # the boards of R2, one text line per row of tiles
    2: """\
  o o o
 o o o o
o o o o
 o o o o
  o o o""",
    3: """\
   o o o
  o o o o
 o o o o o
o o o o o o
 o o o o o
  o o o o""",
    4: """\
   o o o o
  o o o o o
 o o o o o o
o o o o o o
 o o o o o o
  o o o o o
   o o o o""",
}


def iter_bits(mask: int) -> list[int]:
    """The tile indices whose bits are set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(frozen=True)
class Layout:
    """A parsed layout: tile coordinates, names, neighbours and bitmask tables.

    Build it with :func:`parse_layout`. ``coords[t]`` is (text line, text column) of
    tile ``t`` after removing blank lines above and common indentation.
    """

    coords: tuple[tuple[int, int], ...]
    text: str = field(init=False, compare=False)
    num_tiles: int = field(init=False, compare=False)
    names: tuple[str, ...] = field(init=False, compare=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, compare=False)
    neighbour_masks: tuple[int, ...] = field(init=False, compare=False)
    # rays[t][d]: the tiles met walking from t in direction d, nearest first
    rays: tuple[tuple[tuple[int, ...], ...], ...] = field(init=False, compare=False)
    all_mask: int = field(init=False, compare=False)
    num_rows: int = field(init=False, compare=False)
    num_cols: int = field(init=False, compare=False)
    _index: dict[str, int] = field(init=False, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        coords = self.coords
        pos = {rc: t for t, rc in enumerate(coords)}
        names: list[str] = []
        row_count: dict[int, int] = {}
        for r, _ in coords:
            row_count[r] = row_count.get(r, 0) + 1
            names.append(f"{chr(ord('a') + r)}{row_count[r]}")
        neighbours = []
        masks = []
        rays = []
        for r, c in coords:
            near = [(r + dr, c + dc) for dr, dc in DIRECTIONS]
            nb = tuple(sorted(pos[rc] for rc in near if rc in pos))
            neighbours.append(nb)
            masks.append(sum(1 << t for t in nb))
            per_dir = []
            for dr, dc in DIRECTIONS:
                ray = []
                rr, cc = r + dr, c + dc
                while (rr, cc) in pos:
                    ray.append(pos[(rr, cc)])
                    rr, cc = rr + dr, cc + dc
                per_dir.append(tuple(ray))
            rays.append(tuple(per_dir))
        lines = []
        for r in range(max(r for r, _ in coords) + 1):
            cols = {c for rr, c in coords if rr == r}
            lines.append("".join("o" if c in cols else " " for c in range(max(cols) + 1)))
        setattr_ = object.__setattr__  # frozen dataclass: derived fields are set once here
        setattr_(self, "text", "\n".join(lines))
        setattr_(self, "num_tiles", len(coords))
        setattr_(self, "names", tuple(names))
        setattr_(self, "neighbours", tuple(neighbours))
        setattr_(self, "neighbour_masks", tuple(masks))
        setattr_(self, "rays", tuple(rays))
        setattr_(self, "all_mask", (1 << len(coords)) - 1)
        setattr_(self, "num_rows", max(r for r, _ in coords) + 1)
        setattr_(self, "num_cols", max(c for _, c in coords) // 2 + 1)
        setattr_(self, "_index", {n: t for t, n in enumerate(names)})

    def index_of(self, name: str) -> int:
        """Tile index of a tile name such as ``"c3"`` (InvalidLayoutError if unknown)."""
        try:
            return self._index[name]
        except KeyError:
            raise InvalidLayoutError(
                f"unknown tile name {name!r}: this layout has tiles "
                f"{self.names[0]}..{self.names[-1]} ({', '.join(self.names)})"
            ) from None

    def has_name(self, name: str) -> bool:
        """Whether ``name`` is a tile name of this layout."""
        return name in self._index

    def grid_pos(self, t: int) -> tuple[int, int]:
        """(row, col) of tile ``t`` in the ``num_rows x num_cols`` grid (one-to-one)."""
        r, c = self.coords[t]
        return r, c // 2

    def mask_names(self, mask: int) -> list[str]:
        """Names of the tiles in a bitmask, in tile order."""
        return [self.names[t] for t in iter_bits(mask)]

    def component_of(self, seed: int, mask: int) -> int:
        """The connected part of tile set ``mask`` containing tile ``seed`` (a bitmask)."""
        nbr = self.neighbour_masks
        comp = frontier = 1 << seed
        while frontier:
            grow = 0
            while frontier:
                low = frontier & -frontier
                grow |= nbr[low.bit_length() - 1]
                frontier ^= low
            frontier = grow & mask & ~comp
            comp |= frontier
        return comp

    def components(self, mask: int) -> list[int]:
        """The connected parts of tile set ``mask``, each a bitmask, by lowest tile."""
        comps = []
        while mask:
            low = mask & -mask
            comp = self.component_of(low.bit_length() - 1, mask)
            comps.append(comp)
            mask &= ~comp
        return comps

    def closed_neighbourhood(self, mask: int) -> int:
        """``mask`` plus every tile adjacent to it."""
        nbr = self.neighbour_masks
        out = mask
        while mask:
            low = mask & -mask
            out |= nbr[low.bit_length() - 1]
            mask ^= low
        return out


def parse_layout(text: str) -> Layout:
    """Parse the ASCII layout format of R2 (InvalidLayoutError naming the problem).

    Layouts are immutable, so the last few parsed are kept and shared (loading saved
    states parses the same text again and again).
    """
    if not isinstance(text, str):
        raise InvalidLayoutError(f"a layout must be a string, got {type(text).__name__}")
    return _parse_layout(text)


@functools.lru_cache(maxsize=32)
def _parse_layout(text: str) -> Layout:
    if len(text) > MAX_LAYOUT_CHARS:
        raise InvalidLayoutError(
            f"layout is {len(text)} characters long; at most {MAX_LAYOUT_CHARS} are accepted"
        )
    # only trailing spaces are dropped: a tab anywhere is refused below
    lines = [line.rstrip(" ") for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    tiles: list[tuple[int, int]] = []
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch == "o":
                tiles.append((r, c))
            elif ch != " ":
                hint = " (tabs are not allowed: indent with spaces)" if ch == "\t" else ""
                raise InvalidLayoutError(
                    f"layout line {r + 1}, column {c + 1}: unexpected character {ch!r}{hint}; "
                    "a layout uses only 'o' (a tile) and spaces"
                )
        if not line:
            raise InvalidLayoutError(
                f"layout line {r + 1} is blank: rows of tiles must follow each other "
                "without blank lines (the layout would fall apart)"
            )
    if not tiles:
        raise InvalidLayoutError("layout has no tiles: write one 'o' per ice tile")
    if len(lines) > MAX_ROWS:
        raise InvalidLayoutError(f"layout has {len(lines)} rows; at most {MAX_ROWS} (a..z)")
    if len(tiles) > MAX_TILES:
        raise InvalidLayoutError(f"layout has {len(tiles)} tiles; at most {MAX_TILES} allowed")
    if len(tiles) < 2:
        raise InvalidLayoutError("layout is too small: it needs at least 2 tiles")
    for (r1, c1), (r2, c2) in zip(tiles, tiles[1:], strict=False):
        if r1 == r2 and c2 == c1 + 1:
            raise InvalidLayoutError(
                f"layout line {r1 + 1}, columns {c1 + 1}-{c2 + 1}: two tiles side by side; "
                "tiles in one row must be separated by one space (doubled columns, R2)"
            )
    r0, c0 = tiles[0]
    for r, c in tiles:
        if (r + c) % 2 != (r0 + c0) % 2:
            raise InvalidLayoutError(
                f"layout has mixed parity: the tile at line {r + 1}, column {c + 1} is offset "
                f"wrongly against the tile at line {r0 + 1}, column {c0 + 1}; neighbouring rows "
                "must be shifted by exactly one column (line + column of every tile must have "
                "the same parity, R2)"
            )
    min_c = min(c for _, c in tiles)
    layout = Layout(tuple((r, c - min_c) for r, c in tiles))
    reached = layout.component_of(0, layout.all_mask)
    if reached != layout.all_mask:
        missing = layout.mask_names(layout.all_mask & ~reached)
        raise InvalidLayoutError(
            f"layout is not connected: tiles {', '.join(missing)} cannot be reached from a1; "
            "a layout must be one connected piece (R3)"
        )
    return layout
