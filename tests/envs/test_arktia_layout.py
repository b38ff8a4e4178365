"""Arktia layouts: the ASCII format (R2), names (R4), neighbours and rays, bad layouts (R3)."""

from __future__ import annotations

import pytest

from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, ArktiaGame, parse_layout
from tabletop_zoo.envs.errors import InvalidLayoutError


@pytest.mark.parametrize("n,tiles,rows", [(2, 18, 5), (3, 27, 6), (4, 36, 7)])
def test_ruling_R2_default_layout_sizes(n: int, tiles: int, rows: int) -> None:
    lay = parse_layout(DEFAULT_LAYOUTS[n])
    assert lay.num_tiles == tiles and lay.num_rows == rows
    assert len({(r + c) % 2 for r, c in lay.coords}) == 1


def test_ruling_R2_neighbour_offsets_are_the_six_directions() -> None:
    lay = parse_layout(DEFAULT_LAYOUTS[4])
    pos = {rc: t for t, rc in enumerate(lay.coords)}
    for t, (r, c) in enumerate(lay.coords):
        expected = {
            pos[(r + dr, c + dc)]
            for dr, dc in ((0, -2), (0, 2), (-1, -1), (-1, 1), (1, -1), (1, 1))
            if (r + dr, c + dc) in pos
        }
        assert set(lay.neighbours[t]) == expected
    # the centre-ish tile d3 (3, 4) of the 4-player map has all six neighbours
    d3 = lay.index_of("d3")
    assert {lay.names[x] for x in lay.neighbours[d3]} == {"d2", "d4", "c2", "c3", "e2", "e3"}


def test_ruling_R4_names_row_letters_and_numbers_from_the_left() -> None:
    lay = parse_layout(DEFAULT_LAYOUTS[2])
    assert lay.names == (
        "a1",
        "a2",
        "a3",
        "b1",
        "b2",
        "b3",
        "b4",
        "c1",
        "c2",
        "c3",
        "c4",
        "d1",
        "d2",
        "d3",
        "d4",
        "e1",
        "e2",
        "e3",
    )
    custom = parse_layout("o   o\n o o")
    assert custom.names == ("a1", "a2", "b1", "b2")
    assert custom.coords == ((0, 0), (0, 4), (1, 1), (1, 3))


def test_ruling_R3_custom_layout_and_gaps_are_holes_for_rays() -> None:
    lay = parse_layout("\n\n   o   o\n    o o\n")  # blank lines and indentation are ignored
    assert lay.coords == ((0, 0), (0, 4), (1, 1), (1, 3))
    a1 = lay.index_of("a1")
    east = lay.rays[a1][0]
    assert east == ()  # (0, 2) is not a tile: no straight line from a1 to a2
    assert lay.rays[lay.index_of("b1")][0] == (lay.index_of("b2"),)
    game = ArktiaGame(2, "o   o\n o o", neutral_pieces=False)
    assert game.num_tiles == 4


def test_grid_positions_are_one_to_one() -> None:
    for n in (2, 3, 4):
        lay = parse_layout(DEFAULT_LAYOUTS[n])
        cells = {lay.grid_pos(t) for t in range(lay.num_tiles)}
        assert len(cells) == lay.num_tiles
        assert all(0 <= r < lay.num_rows and 0 <= c < lay.num_cols for r, c in cells)


def test_rays_of_the_two_player_map() -> None:
    lay = parse_layout(DEFAULT_LAYOUTS[2])
    names = lay.names
    c1 = lay.index_of("c1")
    by_dir = {
        d: [names[t] for t in ray]
        for d, ray in zip("E NE NW W SW SE".split(), lay.rays[c1], strict=True)
    }
    assert by_dir == {
        "E": ["c2", "c3", "c4"],
        "NE": ["b1", "a1"],
        "NW": [],
        "W": [],
        "SW": [],
        "SE": ["d1", "e1"],
    }


BAD_LAYOUTS = [
    ("", "no tiles"),
    ("   \n  ", "no tiles"),
    ("o", "too small"),
    ("o o\nx o", "unexpected character 'x'"),
    ("o\to", "tabs are not allowed"),
    ("oo o", "side by side"),
    ("o o\no o", "mixed parity"),
    ("o o\n\n o o", "blank"),
    ("o o     o o", "not connected"),
    ("o o\n o\n    o", "not connected"),
    ("o\n" * 27, "rows"),
]


@pytest.mark.parametrize("text,match", BAD_LAYOUTS)
def test_ruling_R3_bad_layouts_are_rejected_naming_the_problem(text: str, match: str) -> None:
    with pytest.raises(InvalidLayoutError, match=match):
        parse_layout(text)


def test_ruling_R3_too_small_for_players_and_neutral_pieces() -> None:
    # 9 neutral pieces + 3 players = 12 tiles needed
    with pytest.raises(InvalidLayoutError, match="need at least 12"):
        ArktiaGame(3, "o o o o\n o o o o", neutral_pieces=True)
    with pytest.raises(InvalidLayoutError, match="need at least 4"):
        ArktiaGame(4, "o o o")


def test_layout_errors_for_non_strings_and_unknown_names() -> None:
    with pytest.raises(InvalidLayoutError, match="string"):
        parse_layout(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidLayoutError, match="unknown tile name"):
        parse_layout(DEFAULT_LAYOUTS[2]).index_of("z1")
