"""Mole Hill rules engine: one or more tests per ruling M1-M10, plus notation and JSON.

Positions are built by hand with ``MoleHillState.from_position``; expected answers
were worked out from the rules text and ``docs/rules/MOLE_HILL.md``.
Space index = row * 9 + col (a1 = 0, i1 = 8, a2 = 9, ...).
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_zoo.envs.errors import IllegalActionError, InvalidStateError, NotationError
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import board as A


def sq(name: str) -> int:
    """Space index from the name, computed here independently of the engine."""
    return (int(name[1]) - 1) * 9 + "abcdefghi".index(name[0])


def names(actions: list[int]) -> list[str]:
    return [A.action_to_string(a) for a in actions]


def play(state: MoleHillState, moves: str) -> MoleHillState:
    for move in moves.split():
        state.apply_action(state.string_to_action(move))
    return state


# ---------------------------------------------------------------- M1 board
def test_ruling_M1_board_is_7_rows_by_9_columns_with_e4_centre() -> None:
    assert (A.ROWS, A.COLS, A.NUM_SPACES) == (7, 9, 63)
    assert A.CENTRE == sq("e4") == 31
    assert A.string_to_action("a1") == 0
    assert A.string_to_action("i1") == 8
    assert A.string_to_action("a2") == 9
    assert A.string_to_action("i7") == 62
    assert A.action_to_string(31) == "e4"


def test_ruling_M1_first_placement_offers_every_space() -> None:
    state = MoleHillGame().new_initial_state()
    assert state.legal_actions() == list(range(63))


# ---------------------------------------------------------------- M2 flowers
def test_ruling_M2_default_flowers_on_the_printed_spots() -> None:
    state = MoleHillGame().new_initial_state(seed=123)
    assert sorted(state.red_flowers) == sorted(sq(n) for n in ("e1", "a4", "i4", "e7"))
    assert sorted(state.white_flowers) == sorted(sq(n) for n in ("b2", "h2", "b6", "h6"))


def test_ruling_M2_random_flowers_variant_distinct_off_centre_and_seeded() -> None:
    game = MoleHillGame(random_flowers=True)
    layouts = set()
    for seed in range(30):
        state = game.new_initial_state(seed)
        flowers = state.red_flowers + state.white_flowers
        assert len(state.red_flowers) == len(state.white_flowers) == 4
        assert len(set(flowers)) == 8 and sq("e4") not in flowers
        again = game.new_initial_state(seed)
        assert (again.red_flowers, again.white_flowers) == (state.red_flowers, state.white_flowers)
        layouts.add(flowers)
    assert len(layouts) > 25  # really drawn from the seed


# ---------------------------------------------------------------- M3 material and edges
def test_ruling_M3_110_interior_edges_are_the_rod_actions() -> None:
    assert A.NUM_EDGES == 7 * 8 + 6 * 9 == 110
    assert A.NUM_ACTIONS == 173
    assert A.action_to_string(63) == "a1-b1"  # e = 0: (0,0)-(0,1)
    assert A.action_to_string(63 + 55) == "h7-i7"  # e = 6*8+7
    assert A.action_to_string(63 + 56) == "a1-a2"  # e = 56 + 0
    assert A.action_to_string(63 + 56 + 3 * 9 + 4) == "e4-e5"
    assert A.action_to_string(172) == "i6-i7"
    state = play(MoleHillGame().new_initial_state(), "e4")
    assert state.legal_actions() == list(range(63, 173))


def test_ruling_M3_an_edge_holds_one_rod() -> None:
    state = play(MoleHillGame().new_initial_state(), "a1 c5-c6 b1")
    assert 63 + 56 + 4 * 9 + 2 not in state.legal_actions()  # c5-c6
    with pytest.raises(IllegalActionError, match="free interior edge"):
        state.apply_action(A.string_to_action("c5-c6"))
    assert len(state.legal_actions()) == 109


def test_ruling_M3_pieces_10_light_then_12_dark_at_most_22_spaces() -> None:
    # 21 spaces visited: a1..i1, i2..a2, a3 b3 c3; the mole on c3 is to move.
    trail = [f"{c}1" for c in "abcdefghi"] + [f"{c}2" for c in "ihgfedcba"] + ["a3", "b3", "c3"]
    state = MoleHillState.from_position(trail)
    assert state.pieces_left == 1
    state.apply_action(sq("d3"))  # the 22nd and last piece
    assert state.round == 1  # M8: no piece left, the round is over
    # 22 - 10 dark pieces = 12, + e1 red 2 + b2, h2 white 1 each = 16 (M9)
    assert state.round_scores == [16]


# ---------------------------------------------------------------- M4 turn order
def test_ruling_M4_mole_places_first_then_roles_alternate() -> None:
    state = MoleHillGame().new_initial_state()
    assert state.current_player == 0 and state.mole_to_move
    state.apply_action(sq("c3"))
    assert state.current_player == 1 and not state.mole_to_move  # gardener
    state.apply_action(A.string_to_action("a1-b1"))
    assert state.current_player == 0 and state.mole_to_move
    assert state.legal_actions() == sorted(
        sq(n) for n in ("b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4")
    )


def test_ruling_M4_the_gardener_cannot_act_first() -> None:
    state = MoleHillGame().new_initial_state()
    with pytest.raises(IllegalActionError, match="mole"):
        state.apply_action(A.string_to_action("e4-f4"))


# ---------------------------------------------------------------- M5 gardener
def test_ruling_M5_gardener_may_rod_any_empty_edge_even_far_away() -> None:
    state = MoleHillState.from_position(["a1", "b2"], ["a1-b1"], mole_to_move=False)
    legal = state.legal_actions()
    assert len(legal) == 109
    assert A.string_to_action("h7-i7") in legal
    assert A.string_to_action("a1-b1") not in legal
    with pytest.raises(IllegalActionError):
        state.apply_action(sq("c3"))  # a mole action on the gardener's turn


# ---------------------------------------------------------------- M6 mole movement
def test_ruling_M6_orthogonal_step_blocked_by_rod_and_visited_space() -> None:
    state = MoleHillState.from_position(["c2", "c3"], ["c3-d3"])
    dest = state.legal_actions()
    assert sq("d3") not in dest  # rod on the edge
    assert sq("c2") not in dest  # visited
    assert sq("b3") in dest and sq("c4") in dest


def test_ruling_M6_diagonal_needs_one_free_path() -> None:
    # c3 -> d2: path via c2 (c3-c2, c2-d2), path via d3 (c3-d3, d3-d2)
    one_free = MoleHillState.from_position(["c3"], ["c3-d3"])
    assert sq("d2") in one_free.legal_actions()  # via c2 is free
    both = MoleHillState.from_position(["c3"], ["c3-d3", "c2-d2"])
    assert names(both.legal_actions()) == ["b2", "c2", "b3", "b4", "c4", "d4"]


def test_ruling_M6_diagonal_blocked_when_each_path_has_one_rod() -> None:
    # c3 -> d4: via d3 cut at its first edge, via c4 cut at its second edge
    state = MoleHillState.from_position(["c3"], ["c3-d3", "c4-d4"])
    assert sq("d4") not in state.legal_actions()
    assert sq("c4") in state.legal_actions() and sq("d2") in state.legal_actions()


def test_ruling_M6_diagonal_path_may_pass_a_visited_space() -> None:
    # d3 visited; path c3-d3-d4 is rod-free, the other path (via c4) is cut
    state = MoleHillState.from_position(["d3", "c3"], ["c3-c4"])
    assert sq("d4") in state.legal_actions()
    state.apply_action(sq("d4"))
    assert state.mole_position == sq("d4")


def test_ruling_M6_visited_diagonal_target_is_never_legal() -> None:
    state = MoleHillState.from_position(["d4", "d3", "c3"], [])
    assert sq("d4") not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="unvisited"):
        state.apply_action(sq("d4"))


# ---------------------------------------------------------------- M7 centre jump
def test_ruling_M7_mole_on_centre_jumps_anywhere_unvisited_ignoring_rods() -> None:
    rods = ["e3-e4", "d4-e4", "e4-f4", "e4-e5"]  # the centre is fenced in
    state = MoleHillState.from_position(["d3", "e4"], rods)
    assert state.jump_available
    expected = [s for s in range(63) if s not in (sq("d3"), sq("e4"))]
    assert state.legal_actions() == expected
    state.apply_action(sq("i7"))
    assert state.mole_position == sq("i7") and not state.jump_available


def test_ruling_M7_jump_after_placing_on_centre_then_normal_steps() -> None:
    state = play(MoleHillGame().new_initial_state(), "e4 a1-b1")
    assert state.jump_available
    assert sq("a1") in state.legal_actions() and sq("i7") in state.legal_actions()
    play(state, "a1 h7-i7")
    # after the jump: ordinary steps again (a1-b1 has a rod; a2 and b2 remain)
    assert names(state.legal_actions()) == ["a2", "b2"]


def test_ruling_M7_centre_can_be_entered_only_once() -> None:
    state = MoleHillState.from_position(["e4", "a1", "b2", "c3", "d4"], [])
    assert sq("e4") not in state.legal_actions()


def test_ruling_M7_no_jump_while_not_on_centre() -> None:
    state = MoleHillState.from_position(["e4", "e5"], [])
    assert not state.jump_available
    assert len(state.legal_actions()) == 7  # 8 neighbours of e5 minus the visited e4


# ---------------------------------------------------------------- M8 end of a round
def test_ruling_M8_round_ends_when_rod_leaves_mole_no_move() -> None:
    # mole on a1: b2 visited, b1 behind a rod; the gardener closes a1-a2
    state = MoleHillState.from_position(["b2", "a1"], ["a1-b1"], mole_to_move=False)
    state.apply_action(A.string_to_action("a1-a2"))
    assert state.round == 1 and state.round_scores == [1]  # b2 is a white flower
    # round 2: board cleared, player 1 is the mole and places first
    assert state.current_player == 1 and state.mole_to_move
    assert state.trail == [] and state.rods == []
    assert state.legal_actions() == list(range(63))


def test_ruling_M10_round_end_board_is_the_garden_before_round_2_clears_it() -> None:
    # the position above: the rod a1-a2 ends round 1; pictures of the round's end show it
    state = MoleHillState.from_position(["b2", "a1"], ["a1-b1"], mole_to_move=False)
    before = state.to_json()
    finished = state.round_end_board(A.string_to_action("a1-a2"))
    assert state.to_json() == before  # a copy: the position itself is unchanged
    assert names(finished.trail) == ["b2", "a1"]
    assert names([A.rod_action(e) for e in finished.rods]) == ["a1-b1", "a1-a2"]
    assert finished.round == 0 and finished.mole_seat == 0 and finished.scores() == [1, 0]
    assert A.string_to_action("a1-a2") not in finished.legal_actions()
    assert state.round_end_board(A.string_to_action("h7-i7")) is None  # a2 stays open
    # the last piece ends round 1 too, on the board with all 22 pieces
    trail = [f"{c}3" for c in "abcdefghi"] + ["i4"] + [f"{c}5" for c in "ihgfedcba"]
    last = MoleHillState.from_position([*trail, "a6", "a7"]).round_end_board(sq("b7"))
    assert len(last.trail) == 22 and last.trail[-1] == sq("b7") and last.scores() == [14, 0]
    # the end of round 2 has none: the final board stays (the game is over)
    second = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2, round_scores=[3]
    )
    assert second.round_end_board(A.string_to_action("a1-a2")) is None


def test_ruling_M8_mole_in_dead_end_round_ends_at_its_next_turn() -> None:
    # a1's neighbours: b1 and b2 visited, a2 behind a rod. M8: the round ends "at the
    # mole's turn", so the gardener still places one (pointless) rod first.
    state = MoleHillState.from_position(["b1", "b2"], ["a1-a2"])
    state.apply_action(sq("a1"))
    assert state.round == 0 and state.current_player == 1 and not state.mole_to_move
    assert len(state.legal_actions()) == 109  # every free edge
    state.apply_action(A.string_to_action("h7-i7"))
    assert state.round == 1 and state.round_scores == [1]  # b2 is a white flower
    assert state.current_player == 1 and state.mole_to_move


@pytest.mark.parametrize(
    ("trail", "rod"),
    [(["a2", "b1", "a1"], "a1-a2"), (["b1", "a2", "a1"], "a1-b1")],
    ids=["open-via-b1", "open-via-a2"],
)
def test_ruling_M8_diagonal_exit_open_by_one_path_keeps_the_round(
    trail: list[str], rod: str
) -> None:
    # mole on a1, a2 and b1 visited: its only exit is the diagonal b2, one of whose two
    # paths the rod cuts; the other path is free (M6), so after the gardener's rod the
    # round goes on with the mole to move (M8)
    state = MoleHillState.from_position(trail, [rod], mole_to_move=False)
    state.apply_action(A.string_to_action("h7-i7"))
    assert state.round == 0 and state.mole_to_move
    assert names(state.legal_actions()) == ["b2"]


def test_ruling_M8_blocked_mole_position_is_not_a_position() -> None:
    with pytest.raises(InvalidStateError, match="cannot move"):
        MoleHillState.from_position(["b1", "b2", "a1"], ["a1-a2"])


def test_ruling_M8_last_piece_ends_the_round_at_once_without_a_rod() -> None:
    # 21 spaces: row 3 (a3..i3), i4 (red), row 5 (i5..a5), a6, a7; the 22nd piece goes on b7
    trail = [f"{c}3" for c in "abcdefghi"] + ["i4"] + [f"{c}5" for c in "ihgfedcba"]
    state = MoleHillState.from_position([*trail, "a6", "a7"])
    assert state.pieces_left == 1
    state.apply_action(sq("b7"))
    # no piece left: round 1 is over before the gardener's turn, so no rod is placed
    assert state.round_scores == [(22 - 10) + 2]  # 12 dark pieces + red i4
    assert state.round == 1 and state.current_player == 1 and state.mole_to_move
    assert state.rods == [] and state.trail == []
    assert state.legal_actions() == list(range(63))  # player_1 places its stack


def test_ruling_M8_mole_on_centre_is_never_blocked() -> None:
    # the mole walked round the centre and into it; all 8 neighbours are visited and the
    # centre is fenced in, but M7 lets it jump, so the gardener's rod does not end the round
    trail = ["d3", "e3", "f3", "f4", "f5", "e5", "d5", "d4", "e4"]
    rods = ["e3-e4", "d4-e4", "e4-f4", "e4-e5"]
    state = MoleHillState.from_position(trail, rods, mole_to_move=False)
    state.apply_action(A.string_to_action("h7-i7"))
    assert state.round == 0 and state.current_player == 0 and state.mole_to_move
    assert state.legal_actions() == [s for s in range(63) if A.SPACE_NAMES[s] not in trail]


def test_ruling_M7_jump_cannot_land_on_a_visited_space() -> None:
    state = MoleHillState.from_position(["a1", "b2", "c3", "d4", "e4"])
    for visited in ("a1", "d4", "e4"):
        with pytest.raises(IllegalActionError, match="unvisited"):
            state.apply_action(sq(visited))
    state.apply_action(sq("i1"))  # far away, unvisited: fine
    assert state.mole_position == sq("i1")


# ---------------------------------------------------------------- M9 scoring
def test_ruling_M9_only_pieces_beyond_ten_score() -> None:
    ten = [f"{c}3" for c in "abcdefghi"] + ["h4"]  # row 3 has no flower
    assert MoleHillState.from_position(ten).scores() == [0, 0]
    assert MoleHillState.from_position([*ten, "g4"]).scores() == [1, 0]


def test_ruling_M9_flower_bonus_counts_with_fewer_than_ten_spaces() -> None:
    state = play(MoleHillGame().new_initial_state(), "e1")  # red flower, the start space
    assert state.scores() == [2, 0]
    play(state, "a7-b7 f2")
    assert state.scores() == [2, 0]
    play(state, "a6-b6 g1 a5-b5 h2")  # white flower: +1, the mole's own space counts
    assert state.scores() == [3, 0]


def test_ruling_M9_round_score_formula() -> None:
    trail = [f"{c}1" for c in "abcdefghi"] + [f"{c}2" for c in "ihgfedcba"]  # 18 spaces
    state = MoleHillState.from_position(trail)
    assert state.round_score() == (18 - 10) + 2 + 1 + 1  # e1 red, h2 and b2 white


def test_ruling_M9_start_and_end_spaces_both_count() -> None:
    # start on a4 (red, 2), end on b6 (white, 1); a5 between is plain; 3 pieces, none dark
    state = MoleHillState.from_position(["a4", "a5", "b6"])
    assert state.scores() == [3, 0]


# ---------------------------------------------------------------- M10 two rounds
def _round2_final_rod(first_round_score: int) -> MoleHillState:
    # round 2, player 1 is the mole on a1 with b2 (white) visited; the rod ends it
    state = MoleHillState.from_position(
        ["b2", "a1"], ["a1-b1"], mole_to_move=False, round_number=2,
        round_scores=[first_round_score],
    )  # fmt: skip
    assert state.current_player == 0  # player 0 is the gardener in round 2
    state.apply_action(A.string_to_action("a1-a2"))
    return state


@pytest.mark.parametrize(
    ("first", "returns"), [(0, [-1.0, 1.0]), (1, [0.0, 0.0]), (3, [1.0, -1.0])]
)
def test_ruling_M10_higher_total_wins_equal_draws(first: int, returns: list[float]) -> None:
    state = _round2_final_rod(first)
    assert state.is_terminal() and state.current_player == -1
    assert state.scores() == [first, 1]
    assert state.returns() == returns
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        state.apply_action(0)


def test_ruling_M10_roles_swap_and_returns_zero_until_the_end() -> None:
    state = MoleHillState.from_position(["b1", "b2"], ["a1-a2"])
    assert state.mole_seat == 0 and state.returns() == [0.0, 0.0]
    play(state, "a1 h7-i7")  # dead end, then the gardener's last rod (M8)
    assert state.mole_seat == 1 and not state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    play(state, "b1 a1-a2 b2 h6-i6 a1")  # the same trap for player 1
    assert not state.is_terminal() and state.current_player == 0  # gardener's turn
    play(state, "h7-i7")
    assert state.is_terminal() and state.scores() == [1, 1]
    assert state.returns() == [0.0, 0.0]


# ---------------------------------------------------------------- notation
def test_notation_round_trip_for_every_action() -> None:
    for a in range(A.NUM_ACTIONS):
        assert A.string_to_action(A.action_to_string(a)) == a
    assert A.string_to_action(" F4-E4 ") == A.string_to_action("e4-f4")


@pytest.mark.parametrize("text", ["", "z9", "e8", "e4-g4", "e4-f5", "e4-f4-g4", "e4 f4"])
def test_notation_rejects_bad_strings(text: str) -> None:
    with pytest.raises(NotationError):
        A.string_to_action(text)


def test_state_string_to_action_checks_legality() -> None:
    state = play(MoleHillGame().new_initial_state(), "c3")
    with pytest.raises(IllegalActionError):
        state.string_to_action("d4")  # gardener's turn
    with pytest.raises(NotationError):
        A.action_to_string(173)


@pytest.mark.parametrize("bad", [-1, 173, 2.0, "e4", None])
def test_apply_action_rejects_non_actions(bad: object) -> None:
    state = MoleHillGame().new_initial_state()
    with pytest.raises(IllegalActionError):
        state.apply_action(bad)  # type: ignore[arg-type]
    assert state.trail == []


# ---------------------------------------------------------------- JSON and clone
def test_json_round_trip_and_clone_independence() -> None:
    state = play(MoleHillGame().new_initial_state(), "b1 a1-a2 b2 h6-i6 a1 h7-i7 e4 c1-d1")
    text = state.to_json()
    again = MoleHillState.from_json(text)
    assert again.to_json() == text and str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    copy = state.clone()
    copy.apply_action(sq("a1"))
    assert state.to_json() == text


def _json(**changes: object) -> str:
    state = play(MoleHillGame().new_initial_state(), "c3 a1-b1 d4")
    data = json.loads(state.to_json())
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "keys"),
        (_json(version=2), "version"),
        (_json(moves=["c3", "a1-b1", "c3"]), "move 3"),
        (_json(moves=["c3", "c3"]), "move 2"),
        (_json(moves=["c3", "zz"]), "move 2"),
        (_json(round=3), "round"),
        (_json(round_scores=[4]), "round_scores"),
        (_json(red_flowers=["a1", "a2", "a3", "a5"]), "random_flowers"),
        (_json(red_flowers=["e4", "a2", "a3", "a5"], random_flowers=True), "centre"),
        (_json(random_flowers="yes"), "random_flowers"),
    ],
)
def test_from_json_rejects_corrupt_input(text: str, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        MoleHillState.from_json(text)


def test_from_json_rejects_moves_past_the_end_of_the_round() -> None:
    # a1 is a dead end; after the gardener's rod h7-i7 round 1 is over (M8)
    text = _json(moves=["b1", "a1-a2", "b2", "h6-i6", "a1", "h7-i7", "c3"])
    with pytest.raises(InvalidStateError, match="after the round ended"):
        MoleHillState.from_json(text)


def test_bools_are_not_actions() -> None:
    state = MoleHillGame().new_initial_state()
    with pytest.raises(IllegalActionError, match="integer"):
        state.apply_action(True)


def test_ruling_M9_the_best_round_scores_24() -> None:
    from tabletop_zoo.envs.mole_hill.rules import LIGHT_PIECES, MAX_ROUND_SCORE, MOLE_PIECES

    # 12 dark pieces past the 10 light ones, every red flower (2 each) and white (1 each)
    assert MAX_ROUND_SCORE == (MOLE_PIECES - LIGHT_PIECES) + 4 * 2 + 4 * 1 == 24


def test_max_game_length_is_reached_by_the_longest_game_and_never_passed() -> None:
    """86 = 2 rounds x (22 mole actions + 21 rods): the mole snakes through the low spaces
    and the gardener puts every rod far away, so both rounds use all 22 pieces."""
    for random_flowers in (False, True):
        game = MoleHillGame(random_flowers=random_flowers)
        assert game.max_game_length == 86
        state = game.new_initial_state(seed=3)
        length = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(min(legal) if state.mole_to_move else max(legal))
            length += 1
        assert length == game.max_game_length
        assert len(state.trail) == 22  # the second round too used every piece
    rng = random.Random(0)
    for seed in range(30):
        state = MoleHillGame().new_initial_state(seed=seed)
        length = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            length += 1
        assert length <= 86
