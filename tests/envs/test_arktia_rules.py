"""Arktia rules engine, rulings R1-R14: the board, the setup, the opening rounds, normal
turns and moves; illegal actions and whole random games. R15-R23 (removal, melting, the
end, scoring) are in ``test_arktia_rules_end.py``, saved states in
``test_arktia_serialization.py``.

Positions are hand-built through ``from_json`` (helper ``position``); the expected
answers are worked out by hand from the rule texts and rulings (tile geometry in
comments).

The 2-player default layout with its cell names: ``arktia_positions.py``.
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_zoo.envs.arktia import NEUTRAL, ArktiaGame, ArktiaState
from tabletop_zoo.envs.errors import IllegalActionError, InvalidLayoutError, InvalidOptionError
from tests.envs.arktia_positions import cell, legal_strings, moves_from, play, position

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
        "a1=nG a2=nT a3=nD b2=nDrG b3=nG b1=rGnT e2=bT e3=bD",
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
        "b2=nDrG c3=rT a1=nG a2=nT a3=nD b3=nG b4=nT e2=bT e3=bD",
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


# ---------------------------------------------------------------------- errors


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
