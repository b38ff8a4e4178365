"""Mole Hill positions built by hand (``MoleHillState.from_position``) and the flower lists
of saved states (``serialization.parse_flowers``): each check that refuses a bad position
has a test here that fails without it, and each loader loads its legal edge cases.

Mutation testing found these loaders under-tested while every mutant of actual play was
killed (issue "No lost work", item 5); ``scripts/lab/mutation_score.py`` measures them.
Each refusal asserts ``InvalidStateError`` and the key words of its one-line message.
"""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.envs.errors import InvalidStateError
from tabletop_zoo.envs.mole_hill import MoleHillGame, MoleHillState
from tabletop_zoo.envs.mole_hill import board as B

RED = ["a1", "b1", "c1", "d1"]
WHITE = ["a7", "b7", "c7", "d7"]
# 22 spaces, each a king step from the one before: row 1 left to right, row 2 right to
# left, then a3..d3. The mole ends on d3 with e3, e4 (the centre) and c4, d4 unvisited.
FULL_TRAIL = (
    [f"{c}1" for c in "abcdefghi"] + [f"{c}2" for c in "ihgfedcba"] + [f"{c}3" for c in "abcd"]
)


def _refused(match: str, *args, **kwargs) -> None:
    with pytest.raises(InvalidStateError, match=match):
        MoleHillState.from_position(*args, **kwargs)


# ---------------------------------------------------------------- M3/M8: trail length
def test_ruling_M3_M8_full_trail_is_refused_with_the_mole_to_move() -> None:
    """M3/M8: 22 spaces visited = no piece left to leave: the round is over, even though the
    mole on d3 has free unvisited neighbours."""
    assert len(FULL_TRAIL) == len(set(FULL_TRAIL)) == 22
    _refused("mole cannot move: the round is over", FULL_TRAIL, mole_to_move=True)


def test_ruling_M8_full_trail_is_refused_with_the_gardener_to_move() -> None:
    """M8: the 22nd piece ends the round at once: the gardener never answers it."""
    _refused("mole cannot move: the round is over", FULL_TRAIL, mole_to_move=False)


def test_ruling_M3_M8_trail_of_21_loads_with_either_player_to_move() -> None:
    """M3/M8: one piece left (21 visited): the mole may still move, the gardener may answer."""
    for mole_to_move in (True, False):
        state = MoleHillState.from_position(FULL_TRAIL[:-1], mole_to_move=mole_to_move)
        assert state.pieces_left == 1 and state.mole_to_move is mole_to_move
        assert state.current_player == (0 if mole_to_move else 1)
        assert not state.is_terminal() and state.legal_actions()


def test_ruling_M3_trail_longer_than_the_material_is_refused() -> None:
    """M3: 22 mole pieces, so 23 distinct spaces cannot have been visited."""
    _refused("at most 22 distinct spaces", [*FULL_TRAIL, "e3"])


def test_ruling_M6_trail_revisiting_a_space_is_refused() -> None:
    """M6: the mole only moves to spaces it never visited."""
    _refused("at most 22 distinct spaces", ["c3", "d3", "c3"])


# ---------------------------------------------------------------- M6/M7: trail steps
def test_ruling_M6_trail_step_that_is_not_a_king_step_is_refused() -> None:
    """M6: a step goes to one of the 8 neighbours; c3 -> e3 skips a column."""
    _refused("trail step c3->e3 is neither a king step", ["c3", "e3"])


def test_ruling_M1_M6_trail_step_across_the_board_edge_is_refused() -> None:
    """M1/M6: i1 and a2 follow each other in space order but are not neighbours."""
    assert B.parse_space("a2") == B.parse_space("i1") + 1
    _refused("trail step i1->a2 is neither a king step", ["i1", "a2"])


def test_ruling_M6_diagonal_and_orthogonal_trail_steps_load() -> None:
    """M6: king steps in every direction load (rods need not be in a legal order)."""
    trail = ["c3", "d4", "d5", "c6", "b6", "a5", "b4", "b3"]
    state = MoleHillState.from_position(trail, ["d3-d4"])
    assert [B.SPACE_NAMES[s] for s in state.trail] == trail


def test_ruling_M7_trail_jump_from_the_centre_loads() -> None:
    """M7: from the centre the mole may jump to any unvisited space, however far."""
    state = MoleHillState.from_position(["e4", "a7", "b7"])
    assert state.mole_position == B.parse_space("b7")


def test_ruling_M7_jump_only_from_the_centre_so_later_steps_are_still_checked() -> None:
    """M7: a jump is allowed from the centre only; the step after it is checked again."""
    _refused("trail step a7->c7", ["e4", "a7", "c7"])


# ---------------------------------------------------------------- notation, rods
def test_ruling_M1_bad_space_names_are_refused() -> None:
    """M1: spaces are a-i by 1-7."""
    _refused("space", ["j1"])
    _refused("a1-c1", ["a1"], ["a1-c1"])


def test_ruling_M3_rod_given_as_a_space_is_refused() -> None:
    """M3: a rod sits on an edge; 'e4' names a space (an action of the mole)."""
    _refused("rods must be distinct edges", ["c3"], ["e4"])


def test_ruling_M3_same_rod_twice_is_refused() -> None:
    """M3: an edge holds one rod."""
    _refused("rods must be distinct edges", ["c3"], ["c3-d3", "d3-c3"])


def test_ruling_M3_rods_on_the_first_and_last_edges_load() -> None:
    """M3: edge 0 (a1-b1) and the last edge (i6-i7) are edges like any other."""
    state = MoleHillState.from_position(["e4"], ["a1-b1", "i6-i7"])
    assert state.rods == [0, B.NUM_EDGES - 1]
    state = MoleHillState.from_position(["e4"], ["a1-b1", "i6-i7"], mole_to_move=False)
    assert B.rod_action(0) not in state.legal_actions()
    assert len(state.legal_actions()) == B.NUM_EDGES - 2


# ---------------------------------------------------------------- M4/M8: whose turn
def test_ruling_M4_gardener_cannot_move_before_the_mole_is_placed() -> None:
    """M4: the mole starts; an empty trail with the gardener to move is no position."""
    _refused("gardener cannot move before the mole is placed", [], mole_to_move=False)


def test_ruling_M4_empty_trail_with_the_mole_to_move_loads() -> None:
    """M4: the start of a round: the mole places its stack anywhere."""
    state = MoleHillState.from_position([])
    assert state.legal_actions() == list(range(B.NUM_SPACES))


def test_ruling_M4_an_empty_board_has_no_mole_position() -> None:
    """M4: before its first placement the mole stands on no space: ``mole_position`` is -1
    (spaces are numbered from 0), at the start of either round, as built, played and
    loaded from a saved state; no jump is offered (M7) and all 22 pieces are left (M3)."""
    round_2 = MoleHillState.from_position([], round_number=2, round_scores=[5])
    loaded = MoleHillState.from_json(round_2.to_json())
    for state in (MoleHillGame().new_initial_state(), round_2, loaded):
        assert (state.mole_position, state.jump_available, state.pieces_left) == (-1, False, 22)


def test_ruling_M8_boxed_in_mole_is_refused_with_the_mole_to_move() -> None:
    """M8: at the mole's turn, no legal move ends the round."""
    _refused("mole cannot move", ["a1"], ["a1-b1", "a1-a2"])


def test_ruling_M8_boxed_in_mole_loads_with_the_gardener_to_move() -> None:
    """M8: a mole that stepped into a dead end still gets the gardener's rod first."""
    state = MoleHillState.from_position(["a1"], ["a1-b1", "a1-a2"], mole_to_move=False)
    assert state.current_player == 1 and not state.mole_to_move
    state.apply_action(B.string_to_action("h7-i7"))
    assert state.round == 1 and state.round_scores == [0]


# ---------------------------------------------------------------- M10: rounds
def test_ruling_M10_round_number_must_be_1_or_2() -> None:
    """M10: the game has two rounds."""
    _refused("round_number must be 1 or 2", ["c3"], round_number=3, round_scores=[1, 2])
    _refused("round_number must be 1 or 2", ["c3"], round_number=0, round_scores=[])


def test_ruling_M10_one_score_per_finished_round() -> None:
    """M10: round 2 needs round 1's score, round 1 none."""
    _refused("one score per finished round", ["c3"], round_number=2)
    _refused("one score per finished round", ["c3"], round_scores=[3])


def test_ruling_M10_round_2_loads_with_seat_1_as_the_mole() -> None:
    """M10: the mole of round 1 is the gardener of round 2."""
    state = MoleHillState.from_position(["c3"], round_number=2, round_scores=[7])
    assert state.round == 1 and state.current_player == 1 and state.scores() == [7, 0]


# ---------------------------------------------------------------- M2: flowers
def test_ruling_M2_custom_flowers_load_as_the_variant() -> None:
    """M2 variant: any 8 distinct non-centre spaces; the game is "flowers anywhere"."""
    state = MoleHillState.from_position(["a1", "b1"], red_flowers=RED, white_flowers=WHITE)
    assert state.game.random_flowers
    assert state.red_flowers == tuple(B.parse_space(s) for s in RED)
    assert state.white_flowers == tuple(B.parse_space(s) for s in WHITE)
    assert state.round_score() == 2 + 2  # two red flowers visited


def test_ruling_M2_default_flowers_without_flower_lists() -> None:
    """M2: no flower lists = the printed spots, not the variant."""
    state = MoleHillState.from_position(["e1"])
    assert not state.game.random_flowers and state.round_score() == 2


def test_ruling_M2_flower_lists_need_four_spaces_each() -> None:
    """M2: 4 red and 4 white flowers; one list alone is not a flower set."""
    _refused("lists of 4 spaces each", ["c3"], red_flowers=RED)
    _refused("lists of 4 spaces each", ["c3"], red_flowers=RED[:3], white_flowers=WHITE)


def test_ruling_M2_flower_on_a_bad_space_name_is_refused() -> None:
    """M2/M1: flowers lie on spaces of the garden."""
    _refused("bad flower space", ["c3"], red_flowers=[*RED[:3], "z9"], white_flowers=WHITE)


def test_ruling_M2_flowers_on_one_space_twice_are_refused() -> None:
    """M2: 8 distinct spaces (a red and a white flower cannot share one)."""
    _refused("8 distinct spaces", ["c3"], red_flowers=RED, white_flowers=[*WHITE[:3], "a1"])


def test_ruling_M2_flower_on_the_centre_is_refused() -> None:
    """M2: the centre is never a flower space."""
    _refused("other than the centre", ["c3"], red_flowers=RED, white_flowers=[*WHITE[:3], "e4"])


def test_ruling_M2_saved_state_with_custom_flowers_needs_the_variant() -> None:
    """M2: a saved state with flowers off the printed spots must say random_flowers."""
    game = MoleHillGame(random_flowers=True)
    data = json.loads(game.new_initial_state(seed=3).to_json())
    assert MoleHillState.from_json(json.dumps(data)).game.random_flowers
    data["random_flowers"] = False
    with pytest.raises(InvalidStateError, match="need random_flowers=true"):
        MoleHillState.from_json(json.dumps(data))
    printed = json.loads(MoleHillGame().new_initial_state().to_json())
    assert not MoleHillState.from_json(json.dumps(printed)).game.random_flowers
