"""Arktia saved states the rules cannot reach (``envs/arktia/reachability.py``): the setup
(R5/R6), the placement counts of the two opening rounds (R8/R9), the turn counter and whose
turn it is. Each check that refuses a position has a test here that fails without it, and
the legal edge cases next to it load.

Mutation testing found these checks under-tested while every mutant of actual play was
killed (issue "No lost work", item 5); ``scripts/lab/mutation_score.py`` measures them.
Positions are written as JSON by hand; 3 players (no neutral pieces) for the opening, tile
names of the 3-player default layout: ``c2``, ``c3``, ``c4`` in a row, ``b2`` next to
``c2`` and ``c3``, ``b3`` next to ``c3`` and ``c4``, ``c5`` next to ``c4``, ``d3`` next to
``c2`` and ``c3``.
"""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.envs.arktia import DEFAULT_LAYOUTS, ArktiaState
from tabletop_zoo.envs.errors import InvalidStateError
from tests.envs.arktia_positions import parse_cell, play, position

ALL_PLACED_ONCE = {"c2": "rG", "c3": "bD", "c4": "yT"}
# 2 players (2-player layout): the 6 neutral pieces of the setup, one connected group
SIX_NEUTRALS = {"a1": "nG", "a2": "nG", "a3": "nD", "b2": "nD", "b3": "nT", "b4": "nT"}
NO_NEUTRAL_LEFT = [[0, 0, 0], [0, 0, 0]]


def _data(
    stacks: dict[str, str],
    *,
    n: int = 3,
    rnd: int = 1,
    cur: int = 0,
    turn: int = 0,
    ended: tuple[int, ...] = (),
    phase: str | None = None,
    reserves: list[list[int]] | None = None,
    removed: list[int] | None = None,
    melted_tiles: list[str] | None = None,
    neutral_reserves: list[list[int]] | None = None,
) -> dict:
    """A saved state; reserves default to "nothing lost", neutral pieces to none."""
    on_board = [[0, 0, 0] for _ in range(n)]
    for text in stacks.values():
        for owner, kind in parse_cell(text):
            if owner != "neutral":
                on_board[owner]["GDT".index(kind)] += 1
    melted_tiles = melted_tiles or []
    return {
        "num_players": n,
        "neutral_pieces": neutral_reserves is not None,
        "layout": DEFAULT_LAYOUTS[n],
        "stacks": {name: parse_cell(text) for name, text in stacks.items()},
        "melted_tiles": melted_tiles,
        "reserves": reserves or [[3 - x for x in on_board[s]] for s in range(n)],
        "neutral_reserves": neutral_reserves or [[0, 0, 0]] * n,
        "removed": removed or [0] * n,
        "melted": [len(melted_tiles)] + [0] * (n - 1),
        "round": rnd,
        "phase": phase or ("setup", "opening", "opening", "normal")[rnd],
        "current_player": cur,
        "ended": list(ended),
        "turn": turn,
        "pending_choices": [],
    }


def _load(stacks: dict[str, str], **kwargs) -> ArktiaState:
    return ArktiaState.from_json(json.dumps(_data(stacks, **kwargs)))


def _refused(match: str, stacks: dict[str, str], **kwargs) -> None:
    with pytest.raises(InvalidStateError, match=match):
        _load(stacks, **kwargs)


# ---------------------------------------------------------------- R8: opening round 1
def test_ruling_R8_opening_round_1_loads_after_each_placement() -> None:
    """R8: seats before the current one have placed one piece each, the others none."""
    for cur, stacks in enumerate([{}, {"c2": "rG"}, {"c2": "rG", "c3": "bD"}]):
        state = _load(stacks, cur=cur, turn=cur)
        assert (state.round, state.current_player, state.turn) == (1, cur, cur)
        assert state.legal_actions()


def test_ruling_R8_seat_before_the_current_one_must_have_placed() -> None:
    """R8: seat 0 placed nothing, yet seat 2 is to place."""
    _refused("opening round 1: seat 0 has placed 0", {"c2": "bG"}, cur=2, turn=1)


def test_ruling_R8_current_seat_has_not_placed_yet() -> None:
    """R8: seat 1 is to place its first piece, so none of its pieces is on the board."""
    _refused("opening round 1: seat 1 has placed 1", {"c2": "rG", "c3": "bD"}, cur=1, turn=2)


def test_ruling_R8_seat_after_the_current_one_has_not_placed_yet() -> None:
    """R8: seat 2 places after seat 1."""
    _refused("opening round 1: seat 2 has placed 1", {"c2": "rG", "c3": "yD"}, cur=1, turn=2)


def test_ruling_R8_R19a_no_game_ends_in_opening_round_1() -> None:
    """R8/R19a (docs/rules/DECISIONS.md): a seat's game ends at the start of its turn only
    when it has no legal action, and in opening round 1 every seat has one: the layout is
    connected and holds a tile for every neutral piece and one more per player (R3), so an
    empty tile borders an occupied one. Play cannot end a game there, so a saved state that
    says so is refused: a seat before the current one that placed nothing, or one after."""
    match = "cannot end during the setup or opening round 1"
    for stacks, cur, ended in (({"c3": "bD"}, 2, (0,)), ({"c2": "rG"}, 1, (2,))):
        _refused(match, stacks, cur=cur, ended=ended, turn=1)


def test_ruling_R8_turn_counter_counts_the_placements_exactly() -> None:
    """R8: in round 1 every turn so far was one placement."""
    _refused("turn is 2, but 1 turns have been played", {"c2": "rG"}, cur=1, turn=2)
    _refused("turn is 0, but 1 turns have been played", {"c2": "rG"}, cur=1, turn=0)


def test_ruling_R6_R8_turn_counter_counts_the_setup_placements_too() -> None:
    """R6/R8: with 2 players the 6 neutral placements of the setup came first."""
    stacks = {**SIX_NEUTRALS, "c2": "rG"}
    state = _load(stacks, n=2, cur=1, turn=7, neutral_reserves=NO_NEUTRAL_LEFT)
    assert state.turn == 7 and state.current_player == 1
    _refused(
        "7 turns have been played", stacks, n=2, cur=1, turn=1, neutral_reserves=NO_NEUTRAL_LEFT
    )


def test_ruling_R9_no_stacks_in_opening_round_1() -> None:
    """R9: stacks form only by moving, and moves come in round 2 at the earliest."""
    _refused("stacks form only by moving", {"c2": "rTbD"}, cur=2, turn=2)


def test_ruling_R10_R15_no_removals_in_opening_round_1() -> None:
    """R10/R15: pieces are removed after moves, which round 1 does not have: seat 1's
    placed piece is gone and counted as removed by seat 2."""
    reserves = [[2, 3, 3], [2, 3, 3], [3, 3, 3]]
    _refused(
        "removed only later", {"c2": "rG"}, cur=2, turn=2, reserves=reserves, removed=[0, 0, 1]
    )


# ---------------------------------------------------------------- R9: opening round 2
def test_ruling_R9_opening_round_2_loads_after_each_placement() -> None:
    """R9: seats before the current one have placed two pieces, the others one."""
    more = [{}, {"b2": "rD"}, {"b2": "rD", "b3": "bT"}]
    for cur, extra in enumerate(more):
        state = _load({**ALL_PLACED_ONCE, **extra}, rnd=2, cur=cur, turn=3 + cur)
        assert (state.round, state.current_player) == (2, cur)


def test_ruling_R9_current_seat_has_not_placed_its_second_piece() -> None:
    """R9: seat 1 is to place its second piece, so it has only one on the board."""
    stacks = {**ALL_PLACED_ONCE, "b2": "rD", "b3": "bT"}
    _refused("opening round 2: seat 1 has placed 2", stacks, rnd=2, cur=1, turn=5)


def test_ruling_R9_seat_after_the_current_one_has_not_placed_its_second_piece() -> None:
    """R9: seat 2 places its second piece after seat 0."""
    stacks = {**ALL_PLACED_ONCE, "c5": "yG"}
    _refused("opening round 2: seat 2 has placed 2", stacks, rnd=2, cur=0, turn=4)


def test_ruling_R8_R9_every_seat_placed_in_round_1() -> None:
    """R8/R9: a seat still in the game has placed its round-1 piece."""
    _refused("opening round 2: seat 2 has placed 0", {"c2": "rG", "c3": "bD"}, rnd=2, turn=2)


def test_ruling_R9_no_seat_has_placed_three_pieces_in_the_opening() -> None:
    """R9: one piece in round 1 and one in round 2."""
    stacks = {**ALL_PLACED_ONCE, "b2": "rD", "d3": "rT"}
    _refused("opening round 2: seat 0 has placed 3", stacks, rnd=2, cur=1, turn=5)


def test_ruling_R9_R19a_a_game_ends_at_the_start_of_a_round_2_turn() -> None:
    """R9/R19a: a seat ends at the start of its round-2 turn, holding its round-1 piece; the
    others play on. Not before its turn comes, and not without its round-1 piece (R8)."""
    state = _load(ALL_PLACED_ONCE, rnd=2, cur=1, ended=(0,), turn=3)
    assert state.ended(0) and state.current_player == 1 and state.legal_actions()
    _refused("opening round 2: seat 2 has placed 1", ALL_PLACED_ONCE, rnd=2, cur=1, ended=(2,))
    without = {"c3": "bD", "c4": "yT"}
    _refused("opening round 2: seat 0 has placed 0", without, rnd=2, cur=1, ended=(0,), turn=2)


def test_ruling_R9_turn_counter_may_exceed_the_placements_but_not_fall_short() -> None:
    """R9: a seat without a placement takes a normal turn instead (a move), so in round 2
    the turns are at least the pieces placed."""
    assert _load(ALL_PLACED_ONCE, rnd=2, turn=7).turn == 7
    _refused("the pieces placed alone took 3 turns", ALL_PLACED_ONCE, rnd=2, turn=2)


def test_ruling_R9_R15_stacks_and_removals_can_exist_in_round_2() -> None:
    """R9/R15: a normal turn of round 2 may move onto a stack and remove pieces."""
    state = _load({"c2": "rGbT", "c4": "yT"}, rnd=2, turn=3)
    assert state.stack(state.game.layout.index_of("c2")) == ((0, 0), (1, 2))
    reserves = [[2, 3, 3], [3, 2, 3], [3, 3, 2]]  # seat 2's piece was removed by seat 1
    state = _load({"c2": "rG", "c3": "bD"}, rnd=2, turn=3, reserves=reserves, removed=[0, 1, 0])
    assert state.removed(1) == 1


def test_ruling_R17_no_melted_tiles_in_the_opening() -> None:
    """R17: tiles melt only in normal play."""
    stacks = ALL_PLACED_ONCE
    _refused(
        "tiles melt and pieces are removed only later", stacks, rnd=2, turn=3, melted_tiles=["a1"]
    )


# ---------------------------------------------------------------- R5/R6: setup
SETUP_STACKS = {"a1": "nG", "a2": "nG"}  # 2 players: one neutral G placed by each seat
SETUP = {"n": 2, "rnd": 0, "turn": 2, "neutral_reserves": [[0, 1, 1], [0, 1, 1]]}


def test_ruling_R6_setup_loads_after_each_seat_placed_once() -> None:
    """R6: seat 0, then seat 1, placed a neutral piece; seat 0 is to place again."""
    state = _load(SETUP_STACKS, **SETUP)
    assert (state.round, state.current_player, state.neutral_reserve(0)) == (0, 0, (0, 1, 1))


def test_ruling_R6_setup_needs_neutral_pieces_left_to_place() -> None:
    """R6: once all 6 neutral pieces are placed the setup is over."""
    none_left = {**SETUP, "turn": 6, "neutral_reserves": NO_NEUTRAL_LEFT}
    _refused("no neutral pieces are left to place", SIX_NEUTRALS, **none_left)


def test_ruling_R6_R8_no_player_piece_during_the_setup() -> None:
    """R6/R8: players place their own pieces only after the setup."""
    stacks = {**SETUP_STACKS, "b2": "rG"}
    _refused("player pieces left their reserve during the setup", stacks, **SETUP)


def test_ruling_R6_R19_no_game_ends_during_the_setup() -> None:
    """R6/R19: a player's game can end only from the opening on."""
    _refused("cannot end during the setup or opening", SETUP_STACKS, **{**SETUP, "ended": (1,)})


def test_ruling_R6_setup_seats_take_turns_from_seat_0() -> None:
    """R6: after two placements seat 0 is to act, and each seat placed one."""
    _refused("place their neutral pieces in turn", SETUP_STACKS, **{**SETUP, "cur": 1})
    uneven = {**SETUP, "neutral_reserves": [[0, 0, 1], [1, 1, 1]]}  # seat 0 placed both
    _refused("place their neutral pieces in turn", {"a1": "nG", "a2": "nD"}, **uneven)


def test_ruling_R6_setup_must_finish_before_the_opening() -> None:
    """R6/R8: round 1 starts once every neutral piece is placed."""
    _refused("setup unfinished", SETUP_STACKS, **{**SETUP, "rnd": 1})


# ---------------------------------------------------------------- R16-R20: whose turn
def test_ruling_R16_R17_melt_and_choose_phases_only_in_their_rounds() -> None:
    """R17: melting comes in normal play; R16: group choices follow a move (round 2 on)."""
    _refused("phase 'melt' cannot happen in round 2", ALL_PLACED_ONCE, rnd=2, turn=3, phase="melt")
    _refused("phase 'choose' cannot happen in round 1", {}, phase="choose")


def test_ruling_R20_current_player_is_minus_1_exactly_when_all_games_ended() -> None:
    """R20: the whole game ends when every player's game has ended."""
    _refused("current_player must be -1 exactly", ALL_PLACED_ONCE, rnd=3, cur=-1, turn=3)
    _refused("current_player must be -1 exactly", ALL_PLACED_ONCE, rnd=3, turn=3, ended=(0, 1, 2))
    _refused(
        "current_player 1 is listed as ended", ALL_PLACED_ONCE, rnd=3, cur=1, turn=3, ended=(1,)
    )


def test_ruling_R20_finished_game_loads_but_not_in_a_pending_decision() -> None:
    """R20: a finished game loads as terminal, but has no melt or choice pending."""
    done = {"rnd": 3, "cur": -1, "turn": 3, "ended": (0, 1, 2)}
    assert _load(ALL_PLACED_ONCE, **done).is_terminal()
    _refused("a finished game cannot be in phase 'melt'", ALL_PLACED_ONCE, **done, phase="melt")


# ---------------------------------------------------------------- R16: pending group choices
def _choice(n: int = 2) -> dict:
    """Seat 0 split blue in two tied groups (b2, c1): blue's choice is pending (R16); with 3
    players a yellow G on e3 stands alone."""
    extra = {"e3": "yG"} if n == 3 else {}
    state = position({"c1": "bT", "c2": "bDrG", "b1": "rT", **extra}, n=n)
    play(state, "c2-b2")
    data = json.loads(state.to_json())
    assert data["pending_choices"] == [{"colour": 1, "groups": [["b2"], ["c1"]]}]
    return data


def _refused_json(match: str, data: dict) -> None:
    with pytest.raises(InvalidStateError, match=match):
        ArktiaState.from_json(json.dumps(data))


def test_ruling_R16_pending_choice_loads() -> None:
    """R16: the mover (seat 0) chooses which of blue's tied groups stays."""
    state = ArktiaState.from_json(json.dumps(_choice()))
    assert state.phase == "choose" and state.choosing_colour == 1


def test_ruling_R16_mover_does_not_choose_among_its_own_groups() -> None:
    """R14b/R16: the mover's own pieces stay one group; it never chooses for itself."""
    data = _choice()
    data["pending_choices"][0]["colour"] = 0
    _refused_json("colours must be other players' or neutral", data)


def test_ruling_R16_choices_come_once_per_colour_in_seat_order() -> None:
    """R16: one choice per colour, in seat order then neutral."""
    data = _choice()
    data["pending_choices"] *= 2
    _refused_json("in seat order then neutral", data)


def test_ruling_R16_no_neutral_choice_without_neutral_pieces() -> None:
    """R5/R16: a game without neutral pieces has no neutral group to keep."""
    data = _choice()
    data["pending_choices"].append({"colour": "neutral", "groups": [["b2"], ["c1"]]})
    _refused_json("neutral colour but neutral_pieces is false", data)


def test_ruling_R16_a_choice_needs_two_groups() -> None:
    """R16: a colour in one group (yellow on e3) has nothing to choose."""
    data = _choice(n=3)
    data["pending_choices"].append({"colour": 2, "groups": [["e3"]]})
    _refused_json("the \\(2 or more\\) connected groups", data)


def test_ruling_R16_groups_to_choose_from_tie_in_size() -> None:
    """R15/R16: only groups tied for largest are a choice; a larger group simply stays."""
    data = _choice()
    data["stacks"]["c1"] = [[1, "T"], [1, "D"]]
    data["reserves"][1][1] -= 1
    _refused_json("must tie in size", data)


# ---------------------------------------------------------------- R17-R19: the decision
def test_ruling_R17_melt_phase_needs_an_empty_reserve() -> None:
    """R17: only a player whose reserve is empty melts."""
    _refused("still has pieces in reserve", ALL_PLACED_ONCE, rnd=3, turn=3, phase="melt")


def test_ruling_R17_R18_melt_phase_needs_a_tile_that_can_melt() -> None:
    """R17/R18: red's reserve is empty but every tile is occupied: no tile can melt, so
    its game would have ended."""
    stacks = {"a1": "rTrDrG", "a2": "rTrDrG", "a3": "bT", "a4": "bG"}
    kwargs = {"n": 2, "rnd": 3, "turn": 20, "phase": "melt"}
    reserves = [[0, 0, 0], [2, 3, 2]]  # red: 6 on the board, 3 removed by blue
    with pytest.raises(InvalidStateError, match="no tile can melt"):
        ArktiaState.from_json(
            json.dumps(
                {
                    **_data(stacks, reserves=reserves, removed=[0, 3], **kwargs),
                    "layout": "o o o o",
                }
            )
        )


def test_ruling_R19a_opening_seat_without_any_action_is_refused() -> None:
    """R9/R19a: in round 2 seat 0 has no empty tile and no move (Tori land only on a lone
    G): it has no legal action, so its game would have ended."""
    data = _data({"a1": "rT", "a2": "bT", "a3": "yT"}, rnd=2, turn=3)
    _refused_json("no legal placement or move", {**data, "layout": "o o o"})
