"""Arktia rules engine: one or more tests per ruling R1-R23, plus JSON validation.

Positions are hand-built through ``from_json`` (helper ``position``); the expected
answers are worked out from the rule texts and rulings (tile geometry in comments).

2-player default layout (doubled columns; names per R4)::

      a1  a2  a3             a1(0,2) a2(0,4) a3(0,6)
    b1  b2  b3  b4           b1(1,1) b2(1,3) b3(1,5) b4(1,7)
  c1  c2  c3  c4             c1(2,0) c2(2,2) c3(2,4) c4(2,6)
    d1  d2  d3  d4           d1(3,1) d2(3,3) d3(3,5) d4(3,7)
      e1  e2  e3             e1(4,2) e2(4,4) e3(4,6)
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, NEUTRAL, ArktiaGame, ArktiaState
from tabletop_zoo.envs.arktia.text import cell_text
from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidLayoutError,
    InvalidOptionError,
    InvalidStateError,
)

OWNERS = {"r": 0, "b": 1, "y": 2, "g": 3, "n": "neutral"}
KINDS = "GDT"


def parse_cell(cell: str) -> list[list]:
    """``"rTbD"`` -> ``[[0, "T"], [1, "D"]]`` (bottom to top, as in ``str(state)``)."""
    return [[OWNERS[cell[i]], cell[i + 1]] for i in range(0, len(cell), 2)]


def position(
    stacks: dict[str, str],
    *,
    n: int = 2,
    neutral: bool = False,
    layout: str | None = None,
    reserves: list[list[int]] | None = None,
    removed: list[int] | None = None,
    melted: list[int] | None = None,
    melted_tiles: tuple[str, ...] = (),
    rnd: int = 3,
    phase: str | None = None,
    cur: int = 0,
    ended: tuple[int, ...] = (),
    turn: int = 20,
    pending: list[dict] | None = None,
) -> ArktiaState:
    """A position from a compact description; reserves default to "nothing lost"."""
    on_board = {s: [0, 0, 0] for s in range(n)}
    for cell in stacks.values():
        for owner, kind in parse_cell(cell):
            if owner != "neutral":
                on_board[owner][KINDS.index(kind)] += 1
    if reserves is None:
        reserves = [[3 - x for x in on_board[s]] for s in range(n)]
    data = {
        "num_players": n,
        "neutral_pieces": neutral,
        "layout": layout if layout is not None else DEFAULT_LAYOUTS[n],
        "stacks": {name: parse_cell(cell) for name, cell in stacks.items()},
        "melted_tiles": list(melted_tiles),
        "reserves": reserves,
        "neutral_reserves": [[0, 0, 0]] * n,
        "removed": removed if removed is not None else [0] * n,
        "melted": melted if melted is not None else [0] * n,
        "round": rnd,
        "phase": phase or ("setup", "opening", "opening", "normal")[rnd],
        "current_player": cur,
        "ended": list(ended),
        "turn": turn,
        "pending_choices": pending or [],
    }
    return ArktiaState.from_json(json.dumps(data))


def legal_strings(state: ArktiaState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def moves_from(state: ArktiaState, tile: str) -> set[str]:
    return {s for s in legal_strings(state) if s.startswith(tile + "-")}


def play(state: ArktiaState, *moves: str) -> None:
    for m in moves:
        state.apply_action(state.string_to_action(m))


def cell(state: ArktiaState, name: str) -> str:
    t = state.game.layout.index_of(name)
    return cell_text(state, t)


# ---------------------------------------------------------------------- board


def test_ruling_R1_neighbours_share_an_edge() -> None:
    lay = ArktiaGame(2).layout
    nb = {lay.names[t] for t in lay.neighbours[lay.index_of("c2")]}
    assert nb == {"c1", "c3", "b1", "b2", "d1", "d2"}
    assert {lay.names[t] for t in lay.neighbours[lay.index_of("a1")]} == {"a2", "b1", "b2"}


def test_ruling_R2_default_layouts_by_player_count() -> None:
    for n, tiles in ((2, 18), (3, 27), (4, 36)):
        assert ArktiaGame(n).layout.num_tiles == tiles


def test_ruling_R3_layout_too_small_for_the_players() -> None:
    # 2 players with 6 neutral pieces need 6 + 2 = 8 tiles
    with pytest.raises(InvalidLayoutError, match="too small"):
        ArktiaGame(2, "o o o o\n o o o")
    ArktiaGame(2, "o o o o\n o o o o")  # 8 tiles are enough
    ArktiaGame(2, "o o", neutral_pieces=False)  # 0 neutral + 2 players


def test_ruling_R4_tile_names_in_json_and_notation() -> None:
    st = ArktiaGame(2).new_initial_state()
    data = json.loads(st.to_json())
    assert list(data["stacks"])[:4] == ["a1", "a2", "a3", "b1"]
    assert st.action_to_string(st.legal_actions()[0]) == "G@a1"


# ---------------------------------------------------------------------- setup


def test_ruling_R5_neutral_material_per_player_count() -> None:
    st2 = ArktiaGame(2).new_initial_state()
    assert [st2.neutral_reserve(s) for s in range(2)] == [(1, 1, 1)] * 2
    st3 = ArktiaGame(3, neutral_pieces=True).new_initial_state()
    assert [st3.neutral_reserve(s) for s in range(3)] == [(1, 1, 1)] * 3
    st3plain = ArktiaGame(3).new_initial_state()
    assert st3plain.phase == "opening" and st3plain.neutral_reserve(0) == (0, 0, 0)
    assert ArktiaGame(4).new_initial_state().phase == "opening"
    with pytest.raises(InvalidOptionError, match="4 players"):
        ArktiaGame(4, neutral_pieces=True)
    with pytest.raises(InvalidOptionError, match="2 to 4"):
        ArktiaGame(5)


def test_ruling_R6_neutral_setup_in_turns_and_connected() -> None:
    st = ArktiaGame(2).new_initial_state()
    assert st.phase == "setup" and st.current_player == 0
    assert len(st.legal_actions()) == 3 * 18  # first neutral piece anywhere
    play(st, "T@a1")
    assert st.stack(0) == ((NEUTRAL, 2),)
    assert st.neutral_reserve(0) == (1, 1, 0)
    assert st.current_player == 1
    # next to a1: a2, b1, b2; seat 1 still has all three kinds
    assert legal_strings(st) == {f"{k}@{t}" for k in "GDT" for t in ("a2", "b1", "b2")}
    play(st, "T@b2", "G@a2", "G@b1", "D@b3")
    assert st.current_player == 1
    assert legal_strings(st) == {f"D@{t}" for t in ("a3", "b4", "c1", "c2", "c3", "c4")}
    play(st, "D@c4")
    assert st.phase == "opening" and st.current_player == 0
    assert st.controller(0) is None  # R7: neutral pieces control nothing


def test_ruling_R7_neutral_topped_stacks_never_move() -> None:
    # b1 = C stack [red G, neutral T]: red's covered G cannot move, nobody controls b1
    st = position(
        {
            "a1": "nG",
            "a2": "nT",
            "a3": "nD",
            "b2": "nDrG",
            "b3": "nG",
            "b1": "rGnT",
            "e2": "bT",
            "e3": "bD",
        },
        neutral=True,
    )
    b1 = st.game.layout.index_of("b1")
    assert st.controller(b1) is None and st.controller(st.game.layout.index_of("b2")) == 0
    origins = {s.split("-")[0] for s in legal_strings(st) if "-" in s}
    assert origins == {"b2"}
    # the neutral D under red's G moves with it (k=2 whole stack)
    assert "b2-c2" in moves_from(st, "b2")
    play(st, "b2-c2")
    assert cell(st, "c2") == "nDrG" and cell(st, "b2") == "."


def test_ruling_R7_neutral_pieces_removed_score_for_the_mover() -> None:
    st = position(
        {
            "b2": "nDrG",
            "c3": "rT",
            "a1": "nG",
            "a2": "nT",
            "a3": "nD",
            "b3": "nG",
            "b4": "nT",
            "e2": "bT",
            "e3": "bD",
        },
        neutral=True,
    )
    before = st.scores()[0]
    # c2 touches red's c3 but no neutral piece once b2 is empty: the carried D is cut off
    play(st, "b2-c2")
    assert cell(st, "c2") == "rG"
    assert st.removed(0) == 1 and st.scores()[0] == before + 1


# ---------------------------------------------------------------------- opening


def test_ruling_R8_first_round_placements() -> None:
    st = ArktiaGame(2).new_initial_state()
    play(st, "T@c2", "T@c3", "D@d2", "D@d3", "G@b2", "G@b3")
    assert st.phase == "opening" and st.current_player == 0
    # seat 0: next to a neutral piece
    neutral_adj = {"a1", "a2", "a3", "b1", "b4", "c1", "c4", "d1", "d4", "e1", "e2", "e3"}
    assert {s.split("@")[1] for s in legal_strings(st)} == neutral_adj
    play(st, "T@e1")
    # seat 1: next to any occupied tile (neutral or red)
    assert {s.split("@")[1] for s in legal_strings(st)} == neutral_adj - {"e1"}
    # 4 players, no neutral pieces: seat 0 anywhere, seat 1 next to it
    st4 = ArktiaGame(4).new_initial_state()
    assert len(st4.legal_actions()) == 3 * 36
    play(st4, "G@a1")
    assert {s.split("@")[1] for s in legal_strings(st4)} == {"a2", "b1", "b2"}


def test_ruling_R9_second_round_next_to_own_piece() -> None:
    st = ArktiaGame(2, neutral_pieces=False).new_initial_state()
    play(st, "T@c1", "G@c2")  # round 1
    assert st.round == 2 and st.current_player == 0
    assert {s.split("@")[1] for s in legal_strings(st)} == {"b1", "d1"}  # c2 is taken
    play(st, "D@b1")
    assert {s.split("@")[1] for s in legal_strings(st)} == {"c3", "b2", "d1", "d2"}


def test_ruling_R9_normal_turn_fallback_in_round_two() -> None:
    # line layout a1..a4; round 1: red T a2, blue G a1; round 2: red D a3 boxes blue in
    st = ArktiaGame(2, "o o o o", neutral_pieces=False).new_initial_state()
    play(st, "T@a2", "G@a1")
    assert st.round == 2
    play(st, "D@a3")
    # blue's a1 has no empty neighbour: a normal turn, moves only, no stop (R19d)
    assert st.current_player == 1 and st.phase == "opening"
    # the G may not land on the lone T (a2) but on the lone D (a3 -> A) or the empty a4
    assert legal_strings(st) == {"a1-a3", "a1-a4"}
    play(st, "a1-a4")
    # the opening is complete and blue has one piece on the board: R19c ends its game
    assert st.round == 3 and st.ended(1) and st.current_player == 0


# ---------------------------------------------------------------------- normal turns


def test_ruling_R10_normal_turn_is_place_move_or_stop() -> None:
    st = position({"c2": "rG", "c3": "rD", "e2": "bT", "e3": "bD"})
    kinds = {st.game.codec.decode(a)[0] for a in st.legal_actions()}
    assert kinds == {"place", "move", "stop"}


def test_ruling_R11_placing_next_to_any_own_piece_even_covered() -> None:
    # red's G at c2 is covered by blue's T; red's own top piece is the D on c3
    st = position({"c2": "rGbT", "c3": "rD", "c1": "bD"})
    targets = {s.split("@")[1] for s in legal_strings(st) if "@" in s}
    # empty tiles next to c2 or c3 (b1 and d1 touch only the covered c2)
    assert targets == {"b1", "b2", "d1", "d2", "c4", "b3", "d3"}


def test_ruling_R12_only_the_top_piece_owner_moves_the_stack() -> None:
    stacks = {"c2": "rDbG", "c3": "rT", "d2": "bT"}
    red = position(stacks, cur=0)
    assert red.controller(red.game.layout.index_of("c2")) == 1
    assert moves_from(red, "c2") == set()
    blue = position(stacks, cur=1)
    ks = {s.split("/")[1] if "/" in s else "all" for s in moves_from(blue, "c2")}
    assert ks == {"1", "all"}  # the G alone, or the whole A with red's D under it


def test_ruling_R13_R14_exact_moves_of_tower_d() -> None:
    # red tower D on c1; blue T on c2 and D on b1. Rays from c1: E c2 c3 c4, NE b1 a1,
    # SE d1 e1. k=3 (empty targets only): c3 c4 a1 d1 e1. k=2 (A, red T stays on c1,
    # target must touch c1): c2 (A onto lone T -> D), d1. k=1 (G): b1 (onto lone D -> A),
    # d1; not c2 (G onto lone T is illegal).
    st = position({"c1": "rTrDrG", "c2": "bT", "b1": "bD"})
    assert moves_from(st, "c1") == {
        "c1-c3",
        "c1-c4",
        "c1-a1",
        "c1-d1",
        "c1-e1",
        "c1-c2/2",
        "c1-d1/2",
        "c1-b1/1",
        "c1-d1/1",
    }


def test_ruling_R13_torus_of_c_moves_alone_and_uncovers_the_globe() -> None:
    st = position({"c2": "bGrT", "c3": "rD", "d2": "bD"})
    ks = {s.split("/")[1] if "/" in s else "all" for s in moves_from(st, "c2")}
    assert ks == {"1", "all"}
    play(st, "c2-b2/1")
    assert cell(st, "c2") == "bG" and cell(st, "b2") == "rT"


SHAPES = {"G": "G", "D": "D", "T": "T", "A": "DG", "B": "TD", "C": "GT", "Dt": "TDG"}
LANDING_OK = {("G", "D"), ("G", "B"), ("D", "T"), ("T", "G"), ("A", "T")}


@pytest.mark.parametrize("unit", sorted(SHAPES))
@pytest.mark.parametrize("target", ["empty", *sorted(SHAPES)])
def test_ruling_R14_landing_table(unit: str, target: str) -> None:
    stacks = {"c2": "".join("r" + k for k in SHAPES[unit])}
    if target != "empty":
        stacks["c3"] = "".join("b" + k for k in SHAPES[target])
    else:
        stacks["e3"] = "bT"
    st = position(stacks)
    whole = "c2-c3"
    expected = target == "empty" or (unit, target) in LANDING_OK
    assert (whole in moves_from(st, "c2")) == expected


def test_ruling_R14a_moves_pass_over_pieces_but_not_holes() -> None:
    stacks = {"c1": "rDrG", "c2": "bD", "d2": "bT"}
    st = position(stacks)
    assert {"c1-c3", "c1-c4"} <= moves_from(st, "c1")
    assert "c1-c2" not in moves_from(st, "c1")  # A onto a lone D is not a legal stack
    holed = position(stacks, melted_tiles=("c3",), melted=[1, 0])
    assert not {"c1-c3", "c1-c4"} & moves_from(holed, "c1")


def test_ruling_R14b_move_that_splits_the_mover_is_refused() -> None:
    # red c1 - c2 - c3 in a row: the middle stack cannot leave without splitting red
    st = position({"c1": "rG", "c2": "rTrD", "c3": "rT", "e2": "bD"})
    mv = moves_from(st, "c2")
    assert "c2-b2/1" in mv  # the D alone: red's covered T stays on c2, red stays one group
    assert not any("/" not in m for m in mv)  # whole stack never: c1 and c3 would split
    with pytest.raises(IllegalActionError, match="R14b"):
        st.apply_action(st.game.codec.encode_move(8, 4, 2))  # c2-b2 whole stack


def test_ruling_R14b_single_piece_in_the_middle_cannot_move() -> None:
    st = position({"c1": "rG", "c2": "rD", "c3": "rT", "e2": "bD"})
    assert moves_from(st, "c2") == set()


# ---------------------------------------------------------------------- removal


def test_ruling_R15_smaller_group_removed_counting_pieces_not_tiles() -> None:
    # blue: c1 (T D G, 3 pieces) - c2 (D under red G) - c3 (T). Red carries c2 to b2:
    # blue splits into {c1: 3 pieces on 1 tile} and {b2, c3: 2 pieces on 2 tiles}.
    st = position({"c1": "bTbDbG", "c2": "bDrG", "c3": "bT", "b1": "rT"})
    play(st, "c2-b2")
    assert cell(st, "c1") == "bTbDbG"
    assert cell(st, "b2") == "rG" and cell(st, "c3") == "."
    assert st.removed(0) == 2
    assert st.current_player == 1 and st.phase == "normal"


def test_ruling_R16_mover_chooses_between_tied_groups() -> None:
    st = position({"c1": "bT", "c2": "bDrG", "b1": "rT"})
    play(st, "c2-b2")
    assert st.phase == "choose" and st.current_player == 0 and st.choosing_colour == 1
    assert legal_strings(st) == {"keep b2", "keep c1"}
    keep_c1 = st.clone()
    play(keep_c1, "keep c1")
    assert cell(keep_c1, "c1") == "bT" and cell(keep_c1, "b2") == "rG"
    play(st, "keep b2")
    assert cell(st, "c1") == "." and cell(st, "b2") == "bDrG"
    assert st.removed(0) == 1 and keep_c1.removed(0) == 1


def test_ruling_R16_choices_in_seat_order_and_R16a_closing_up() -> None:
    # 3 players. Red carries tower [blue T, yellow D, red G] from d3 over d4 to d5:
    # blue (d2 | d5) and yellow (c2 | d5) both split 1-1.
    st = position({"d3": "bTyDrG", "d2": "bG", "c2": "yG", "d4": "rT"}, n=3)
    play(st, "d3-d5")
    assert st.phase == "choose" and st.choosing_colour == 1
    assert legal_strings(st) == {"keep d2", "keep d5"}
    play(st, "keep d2")  # blue T leaves the tower: [T, D, G] less T becomes A
    assert cell(st, "d5") == "yDrG"
    assert st.choosing_colour == 2 and st.current_player == 0
    assert legal_strings(st) == {"keep c2", "keep d5"}
    play(st, "keep d5")
    assert cell(st, "c2") == "." and st.removed(0) == 2
    # blue and yellow are down to one piece each (R19c): red plays on
    assert st.ended(1) and st.ended(2) and st.current_player == 0


def test_ruling_R16a_figure_4_control_swaps_to_the_torus() -> None:
    # 4 players. d3 = [yellow T, blue D, green G]; red carries [blue T, blue D, red G]
    # from d4 over its own T on d5 to d6. Blue splits into {d3: 1} and {d6: 2}, so the
    # blue D leaves d3 and the green G drops into the yellow Torus (C), yellow controls.
    st = position({"d3": "yTbDgG", "d4": "bTbDrG", "d5": "rT"}, n=4)
    d3 = st.game.layout.index_of("d3")
    assert st.controller(d3) == 3
    play(st, "d4-d6")
    assert cell(st, "d3") == "gGyT"
    assert st.controller(d3) == 2
    assert st.removed(0) == 1


# ---------------------------------------------------------------------- melting

MELT_STACKS = {"e1": "rG", "e2": "rD", "d1": "bT", "c1": "bD"}


def melt_position(**kw) -> ArktiaState:
    # red's reserve is empty (7 red pieces were removed by blue); a2 and b3 are melted
    return position(
        MELT_STACKS,
        reserves=[[0, 0, 0], [3, 2, 2]],
        removed=[0, 7],
        melted=[2, 0],
        melted_tiles=("a2", "b3"),
        **kw,
    )


def test_ruling_R17_melt_empty_border_tile_without_islands() -> None:
    st = melt_position()
    assert st.must_melt
    turn = st.turn
    play(st, "e1-d2")
    assert st.phase == "melt" and st.current_player == 0
    # not b4 / c4 (a3, b4 would become an island), not c2 / d3 (surrounded), not occupied
    assert legal_strings(st) == {
        f"melt {t}" for t in ("a1", "a3", "b1", "b2", "c3", "d4", "e1", "e3")
    }
    play(st, "melt a3")
    assert not st.alive(st.game.layout.index_of("a3"))
    assert st.melted(0) == 3 and st.current_player == 1 and st.turn == turn + 1


def test_ruling_R17_no_melting_in_the_turn_of_the_last_placement() -> None:
    st = position(
        {"c2": "rGrT", "c3": "rD", "e2": "bT", "e3": "bD"},
        reserves=[[1, 0, 0], [3, 2, 2]],
        removed=[0, 5],
    )
    assert not st.must_melt
    play(st, "G@b2")
    assert st.current_player == 1 and st.phase == "normal"
    play(st, "D@d3")
    assert st.current_player == 0 and st.must_melt  # empty at the start of this turn


def test_ruling_R18_R19b_no_meltable_tile_ends_the_game_after_the_move() -> None:
    # line a1..a4: red A on a1, blue T on a3 and D on a4. After a1-a2/1 no tile is empty.
    st = position(
        {"a1": "rDrG", "a3": "bT", "a4": "bD"},
        layout="o o o o",
        reserves=[[0, 0, 0], [3, 2, 2]],
        removed=[0, 7],
    )
    play(st, "a1-a2/1")
    assert cell(st, "a2") == "rG"  # the move stands
    assert st.ended(0) and st.current_player == 1
    # R20: blue plays on alone
    # (a3-a2 would split blue, R14b; the D may land on the lone T: B)
    assert legal_strings(st) == {"a4-a3", "stop"}


# ---------------------------------------------------------------------- end of a game


def test_ruling_R19a_no_placement_and_no_move_ends_the_game() -> None:
    # blue's two pieces are both covered by red and blue's reserve is empty
    st = position(
        {"a1": "bGrT", "a2": "bTrD"},
        layout="o o o o",
        reserves=[[3, 2, 2], [0, 0, 0]],
        removed=[7, 0],
    )
    turn = st.turn
    play(st, "G@a3")
    assert st.ended(1) and not st.ended(0)
    assert st.current_player == 0 and st.turn == turn + 1


def test_ruling_R19c_one_piece_left_ends_the_game_whatever_the_reserve() -> None:
    st = position({"c1": "bT", "c2": "bDrG", "b1": "rT"})
    play(st, "c2-b2", "keep c1")
    assert st.reserve(1) == (3, 2, 2)
    assert st.ended(1) and st.current_player == 0


def test_ruling_R19d_stop_ends_the_players_game() -> None:
    st = position({"c2": "rG", "c3": "rD", "e2": "bT", "e3": "bD"})
    play(st, "stop")
    assert st.ended(0) and st.current_player == 1
    # stop is not offered in the opening
    opening = ArktiaGame(2).new_initial_state()
    assert "stop" not in legal_strings(opening)
    with pytest.raises(IllegalActionError, match="setup"):
        opening.apply_action(opening.game.codec.STOP)


def test_ruling_R20_play_continues_among_the_rest() -> None:
    # 3 players, blue's game has ended: turns go red -> yellow -> red
    stacks = {"c1": "rG", "c2": "rD", "e1": "yT", "e2": "yD", "a1": "bT", "a2": "bD"}
    st = position(stacks, n=3, ended=(1,))
    play(st, "G@b1")
    assert st.current_player == 2
    play(st, "G@e3")
    assert st.current_player == 0
    play(st, "stop")
    assert st.current_player == 2
    play(st, "stop")
    assert st.is_terminal() and st.current_player == -1


def test_ruling_R20_ended_players_pieces_can_still_be_removed() -> None:
    st = position({"c1": "bTbDbG", "c2": "bDrG", "c3": "bT", "b1": "rT"}, ended=(1,))
    play(st, "c2-b2")
    assert st.removed(0) == 2
    assert st.current_player == 0  # blue is out, red plays on


# ---------------------------------------------------------------------- scoring


def test_ruling_R21_scores_removed_melted_controlled() -> None:
    # red controls c1, c2 (not c3: blue on top; not b2: neutral on top); removed 2, melted 1
    st = position(
        {
            "c1": "rG",
            "c2": "bTrD",
            "c3": "rDbG",
            "b2": "rGnT",
            "a1": "nG",
            "a2": "nD",
            "a3": "nT",
            "b3": "nD",
            "b4": "nG",
        },
        neutral=True,
        reserves=[[1, 1, 1], [2, 3, 2]],
        removed=[2, 0],
        melted=[1, 0],
        melted_tiles=("e3",),
    )
    assert st.scores() == [2 + 1 + 2, 1]


def test_ruling_R22_returns_sole_winner_and_ties() -> None:
    def finished(stacks: dict[str, str], n: int) -> ArktiaState:
        return position(stacks, n=n, cur=-1, ended=tuple(range(n)))

    win = finished({"c1": "rG", "c2": "rD", "c3": "bT"}, 2)
    assert win.scores() == [2, 1] and win.returns() == [1.0, -1.0]
    tie = finished({"c1": "rG", "c2": "bD"}, 2)
    assert tie.returns() == [0.0, 0.0]
    three = finished({"d1": "rG", "e1": "rT", "d3": "bD", "d4": "bT", "f4": "yG"}, 3)
    assert three.scores() == [2, 2, 1] and three.returns() == [0.0, 0.0, -1.0]
    live = position({"c1": "rG", "c2": "rD", "c3": "bT"})
    assert live.returns() == [0.0, 0.0]


def test_ruling_R23_turn_counter_counts_whole_turns() -> None:
    st = melt_position(turn=40)
    play(st, "e1-d2")
    assert st.turn == 40  # the melt is still part of red's turn
    play(st, "melt a1")
    assert st.turn == 41
    st2 = ArktiaGame(2).new_initial_state()
    play(st2, "T@c2")
    assert st2.turn == 1


# ---------------------------------------------------------------------- errors, JSON


def test_illegal_action_errors_say_why() -> None:
    st = position({"c2": "rG", "c3": "rD", "e2": "bT", "e3": "bD"})
    with pytest.raises(IllegalActionError, match="out of range"):
        st.apply_action(10**6)
    with pytest.raises(IllegalActionError, match="not an integer"):
        st.apply_action("c2-b2")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="does not control"):
        st.apply_action(st.game.codec.encode_move(16, 4, 1))  # e2 is blue's
    with pytest.raises(IllegalActionError, match="melting|only"):
        st.apply_action(st.game.codec.encode_melt(0))


def test_json_round_trip_through_a_random_game() -> None:
    rng = random.Random(1)
    st = ArktiaGame(3, neutral_pieces=True).new_initial_state()
    while not st.is_terminal():
        copy = ArktiaState.from_json(st.to_json())
        assert copy.to_json() == st.to_json()
        assert copy.legal_actions() == st.legal_actions()
        legal = st.legal_actions()
        non_stop = [a for a in legal if a != st.game.codec.STOP] or legal
        st.apply_action(rng.choice(non_stop))


def _base() -> dict:
    st = position({"c2": "rG", "c3": "rD", "e2": "bT", "e3": "bD"})
    return json.loads(st.to_json())


BAD_JSON = [
    ("not json", "{oops", "not valid JSON"),
    ("not an object", "[1, 2]", "JSON object"),
]


@pytest.mark.parametrize("text,match", [(t, m) for _, t, m in BAD_JSON])
def test_json_syntax_errors(text: str, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        ArktiaState.from_json(text)


def _set(path: str, value) -> dict:
    d = _base()
    keys = path.split(".")
    target = d
    for k in keys[:-1]:
        target = target[k]
    if value is _DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return d


_DELETE = object()

CORRUPTIONS = [
    ("missing key", "turn", _DELETE, "missing keys"),
    ("unknown key", "colour", 1, "unknown keys"),
    ("players", "num_players", 5, "out of range"),
    ("bool players", "num_players", True, "must be an integer"),
    ("layout", "layout", "o\to", "unexpected character"),
    ("stacks type", "stacks", [], "stacks must be an object"),
    ("tile name", "stacks.z9", [[0, "G"]], "unknown tile name"),
    ("stack shape", "stacks.a1", [[0, "G"], [1, "G"]], "not a legal stack"),
    ("stack shape T-G", "stacks.a1", [[0, "T"], [1, "G"]], "not a legal stack"),
    ("owner", "stacks.a1", [[7, "G"]], "owner"),
    ("neutral off", "stacks.a1", [["neutral", "G"]], "neutral_pieces is false"),
    ("kind", "stacks.a1", [[0, "X"]], "kind must be"),
    ("piece format", "stacks.a1", [0, "G"], "must be \\[owner, kind\\]"),
    ("material", "reserves", [[3, 3, 3], [3, 2, 2]], "material is 3"),
    ("reserve type", "reserves", [[3, 3, "3"], [3, 2, 2]], "must be an integer"),
    ("reserves length", "reserves", [[2, 3, 3]], "must have 2 entries"),
    ("removed sum", "removed", [1, 0], "removed counts"),
    ("melted sum", "melted", [1, 0], "melted counts"),
    ("melted unknown", "melted_tiles", ["q1"], "unknown tile name"),
    ("phase", "phase", "dance", "not one of"),
    ("phase mismatch", "phase", "setup", "does not match round"),
    ("current ended", "ended", [0], "listed as ended"),
    ("current out of range", "current_player", 2, "out of range"),
    ("choose without choices", "phase", "choose", "pending_choices"),
    ("turn", "turn", -1, "out of range"),
]


@pytest.mark.parametrize(
    "path,value,match", [(p, v, m) for _, p, v, m in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS]
)
def test_json_corruptions_are_rejected(path: str, value, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        ArktiaState.from_json(json.dumps(_set(path, value)))


def test_json_rejects_melted_tile_with_pieces_and_split_colours() -> None:
    d = _base()
    d["melted_tiles"], d["melted"] = ["c2"], [1, 0]
    with pytest.raises(InvalidStateError, match="melted but holds pieces"):
        ArktiaState.from_json(json.dumps(d))
    d = _base()
    d["stacks"]["a1"] = [[0, "T"]]
    d["reserves"][0] = [2, 2, 2]
    with pytest.raises(InvalidStateError, match="several groups"):
        ArktiaState.from_json(json.dumps(d))
    d = _base()
    d["melted_tiles"], d["melted"] = ["b1", "b2", "c1", "c3", "d1", "d2"], [6, 0]
    d["stacks"]["c3"] = []
    with pytest.raises(InvalidStateError, match="one connected piece"):
        ArktiaState.from_json(json.dumps(d))


def test_json_pending_choice_is_validated() -> None:
    st = position({"c1": "bT", "c2": "bDrG", "b1": "rT"})
    play(st, "c2-b2")
    d = json.loads(st.to_json())
    assert d["pending_choices"] == [{"colour": 1, "groups": [["b2"], ["c1"]]}]
    assert ArktiaState.from_json(st.to_json()).legal_actions() == st.legal_actions()
    d["pending_choices"][0]["groups"] = [["b2"], ["c2"]]
    with pytest.raises(InvalidStateError, match="connected groups"):
        ArktiaState.from_json(json.dumps(d))


def test_from_json_rejects_a_player_without_any_play() -> None:
    with pytest.raises(InvalidStateError, match="R19a"):
        position(
            {"a1": "bGrT", "a2": "bTrD"},
            layout="o o o o",
            reserves=[[3, 2, 2], [0, 0, 0]],
            removed=[7, 0],
            cur=1,
        )


# ---------------------------------------------------------------------- whole games


def _random_game(game: ArktiaGame, seed: int, avoid_stop: bool, cap: int = 300) -> ArktiaState:
    """Random play; with ``avoid_stop`` nobody stops before turn ``cap``, everybody after
    (a game where nobody empties its reserve may never end, R23)."""
    rng = random.Random(seed)
    st = game.new_initial_state()
    stop = game.codec.STOP
    for _ in range(20 * cap):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        if st.turn >= cap and stop in legal:
            legal = [stop]
        elif avoid_stop and len(legal) > 1:
            legal = [a for a in legal if a != stop]
        st.apply_action(rng.choice(legal))
    return st


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_run_to_the_end(n: int) -> None:
    melted_any = False
    for seed in range(4):
        st = _random_game(ArktiaGame(n), seed, avoid_stop=seed % 2 == 0)
        assert st.is_terminal(), "game did not end within the cap"
        assert sum(st.returns()) <= 1.0 and max(st.returns()) >= 0.0
        melted_any |= sum(st.melted(s) for s in range(n)) > 0
    assert melted_any  # without stop, reserves run dry and tiles melt


def test_random_game_on_a_custom_layout() -> None:
    layout = "o o o o o\n o o o o o\no o o o o\n o o o o o"
    game = ArktiaGame(2, layout)
    assert game.num_tiles == 20
    for seed in range(3):
        assert _random_game(game, seed, avoid_stop=True).is_terminal()


def test_str_shows_map_and_status() -> None:
    st = position({"c2": "rTbD", "c3": "rD", "d2": "bT"}, melted_tiles=("a1",), melted=[1, 0])
    text = str(st)
    assert "rTbD" in text and "~~" in text and "a1" in text and "e3" in text
    assert "player 0 (r): score" in text and "phase normal" in text


# ---------------------------------------------------------------------- audit additions
# Each expected answer below was worked out by hand from the texts and rulings.

# R16a, every case: blue's piece inside the b1 stack is cut off when red carries the
# A [blue D, red G] from c2 to c3 (E): blue becomes {b1: 1 piece} and {c3, d2: 2 pieces},
# so blue's piece on b1 is removed and the stack closes up. Red stays connected through
# b2 (b1 - b2 - c3).
R16A_CASES = [
    ("rTrDbG", "rTrD"),  # D tower less G -> B
    ("rTbDrG", "rGrT"),  # D tower less D -> the G drops into the Torus: C
    ("bTrDrG", "rDrG"),  # D tower less T -> A
    ("rDbG", "rD"),  # A less G
    ("bDrG", "rG"),  # A less D
    ("rTbD", "rT"),  # B less D
    ("bTrD", "rD"),  # B less T
    ("rGbT", "rG"),  # C less T uncovers the G
    ("bGrT", "rT"),  # C less G leaves the Torus
]


@pytest.mark.parametrize("before,after", R16A_CASES)
def test_ruling_R16a_removal_closes_up_every_stack(before: str, after: str) -> None:
    st = position({"b1": before, "b2": "rT", "c2": "bDrG", "d2": "bT"})
    play(st, "c2-c3")
    assert cell(st, "b1") == after
    assert cell(st, "c3") == "bDrG" and cell(st, "d2") == "bT"
    assert st.removed(0) == 1 and st.current_player == 1


def test_ruling_R16_player_colour_chosen_before_neutral_then_R16a_drop() -> None:
    # 2 players with neutral pieces (4 of the 6 already removed by red). Red carries the
    # tower [blue T, neutral D, red G] from c2 over its own D on c3 to c4: blue splits
    # {c1} | {c4} and neutral {b1} | {c4}, both 1-1 ties. Blue (seat 1) is offered first.
    st = position(
        {"c2": "bTnDrG", "c1": "bG", "b1": "nG", "c3": "rD"}, neutral=True, removed=[4, 0]
    )
    play(st, "c2-c4")
    assert st.phase == "choose" and st.current_player == 0 and st.choosing_colour == 1
    assert legal_strings(st) == {"keep c1", "keep c4"}
    play(st, "keep c4")
    assert cell(st, "c1") == "." and st.removed(0) == 5
    assert st.choosing_colour == NEUTRAL and st.current_player == 0
    assert legal_strings(st) == {"keep b1", "keep c4"}
    play(st, "keep b1")
    # the neutral D leaves [T, D, G]: the red G drops into the blue Torus (C), blue controls
    assert cell(st, "c4") == "rGbT" and st.controller(st.game.layout.index_of("c4")) == 1
    assert st.removed(0) == 6
    # blue has one piece left (R19c): its game ends, red plays on
    assert st.ended(1) and st.current_player == 0 and st.phase == "normal"


def test_ruling_R14a_gaps_in_a_custom_layout_are_holes() -> None:
    # a1 (0,0) and a2 (0,4) share a row but (0,2) is no tile: the E ray of a1 is empty.
    # The G on a1 may only go SE onto b1 (lone D -> A); b1 - b2 - b3 on the row below.
    layout = "o   o\n o o o"
    st = position({"a1": "rG", "b1": "rD", "b3": "bT", "a2": "bD"}, layout=layout)
    assert moves_from(st, "a1") == {"a1-b1"}
    with pytest.raises(IllegalActionError, match="R14"):
        st.apply_action(st.game.codec.encode_move(0, 1, 1))  # a1-a2


def test_ruling_R6_three_player_neutral_setup_rotates_seats() -> None:
    # option 1: 9 neutral pieces, one G, D and T per player, placed 0, 1, 2, 0, 1, 2, ...
    st = ArktiaGame(3, neutral_pieces=True).new_initial_state()
    order = []
    for t in ("a1", "a2", "a3", "b1", "b2", "b3", "b4", "c1", "c2"):
        order.append(st.current_player)
        kind = next(
            k for k, left in zip("GDT", st.neutral_reserve(st.current_player), strict=True) if left
        )
        play(st, f"{kind}@{t}")
    assert order == [0, 1, 2] * 3
    assert st.phase == "opening" and st.round == 1 and st.current_player == 0
    # R8: seat 0 goes next to a neutral piece: empty tiles touching a1..c2
    # (3-player map: c3 touches b2/b3/c2, c4 b3/b4, c5 b4, d1 c1, d2 c1/c2, d3 c2)
    assert {s.split("@")[1] for s in legal_strings(st)} == {"c3", "c4", "c5", "d1", "d2", "d3"}


def test_ruling_R8_later_seats_may_start_next_to_an_opponent_only() -> None:
    # 4 players, no neutral pieces: red a1; blue next to a1; yellow next to a1 or blue
    st = ArktiaGame(4).new_initial_state()
    play(st, "G@a1", "G@b1")  # b1 touches a1
    assert {s.split("@")[1] for s in legal_strings(st)} == {"a2", "b2", "c1", "c2"}


def test_ruling_R17_reserve_emptied_by_a_placement_melts_only_from_the_next_turn() -> None:
    # red places its last piece (no melt), blue moves, then red must melt after moving
    st = position(
        {
            "c2": "rGrT",
            "c3": "rDrG",
            "b2": "rT",
            "b3": "rD",
            "c1": "rT",
            "d2": "rD",
            "e2": "bT",
            "e3": "bD",
        },
        reserves=[[1, 0, 0], [3, 2, 2]],
    )
    play(st, "G@d1")
    assert st.current_player == 1 and st.phase == "normal"
    play(st, "e3-d3")  # (e3-d4 would split blue, R14b)
    assert st.current_player == 0 and st.must_melt
    play(st, "d1-e1")
    assert st.phase == "melt" and st.current_player == 0
