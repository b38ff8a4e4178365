"""Arktia rules engine, rulings R15-R23: removal of cut-off groups and the mover's choice
between tied groups, melting, the end of a game and of a player's game, scoring and
returns, the turn counter.

Positions are hand-built through ``from_json`` (helper ``position``); the expected
answers are worked out by hand from the rule texts and rulings (tile geometry in
comments).

The 2-player default layout with its cell names: ``arktia_positions.py``.
"""

from __future__ import annotations

import pytest

from tabletop_zoo.envs.arktia import NEUTRAL, ArktiaGame, ArktiaState
from tabletop_zoo.envs.errors import IllegalActionError
from tests.envs.arktia_positions import cell, legal_strings, play, position

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
        "c1=rG c2=bTrD c3=rDbG b2=rGnT a1=nG a2=nD a3=nT b3=nD b4=nG",
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


def test_ruling_R17_reserve_emptied_by_a_placement_melts_only_from_the_next_turn() -> None:
    # red places its last piece (no melt), blue moves, then red must melt after moving
    st = position(
        "c2=rGrT c3=rDrG b2=rT b3=rD c1=rT d2=rD e2=bT e3=bD",
        reserves=[[1, 0, 0], [3, 2, 2]],
    )
    play(st, "G@d1")
    assert st.current_player == 1 and st.phase == "normal"
    play(st, "e3-d3")  # (e3-d4 would split blue, R14b)
    assert st.current_player == 0 and st.must_melt
    play(st, "d1-e1")
    assert st.phase == "melt" and st.current_player == 0
