"""Whether the rules can reach a saved Arktia position: the rule-level checks of loading.

:func:`.serialization.loads` checks the *form* of a saved state and builds a plain
snapshot; :func:`load_position` fills a blank state from it and checks, ruling by ruling,
that legal play can reach it (legal stacks, material, connected groups, rounds and turns,
whose decision it is). Together the checks make every accepted state one from which legal
play only reaches states they accept again.

Imports run one way: ``rules`` -> ``reachability`` -> ``serialization``, ``constants``.
This module never imports ``rules``: it receives the blank ``ArktiaState`` (from
``ArktiaState._blank``) and fills its slots, so there is no import circle.
"""

from __future__ import annotations

from typing import Any

from tabletop_zoo.envs.arktia.constants import (
    KIND_LETTERS,
    NEUTRAL,
    NORMAL,
    NUM_COLOURS,
    OPENING_1,
    OPENING_2,
    PIECES_PER_KIND,
    SETUP,
    STACK_SHAPES,
)
from tabletop_zoo.envs.arktia.serialization import ArktiaSnapshot, bad, kinds_of


def load_position(st: Any, snapshot: ArktiaSnapshot) -> None:
    """Fill the blank state ``st`` (an ``ArktiaState`` of the snapshot's game, fresh from
    ``ArktiaState._blank``) from ``snapshot``, checking that the rules can reach it.

    Raises :class:`~tabletop_zoo.envs.errors.InvalidStateError` naming the ruling a check
    enforces; ``st`` is then half filled and must be dropped.
    """
    _load_board(st, snapshot)
    _load_material(st, snapshot)
    _load_progress(st, snapshot)
    _load_pending_choices(st, snapshot)
    _load_decision(st, snapshot)


def _load_board(st: Any, snapshot: ArktiaSnapshot) -> None:
    """Tiles (one connected piece, R17) and stacks (legal shapes, R11-R14)."""
    lay = st.game.layout
    alive = snapshot.alive
    low = alive & -alive
    if lay.component_of(low.bit_length() - 1, alive) != alive:
        raise bad("the tiles that are not melted do not form one connected piece (R17)")
    st._alive = alive
    for t, stack in enumerate(snapshot.stacks):
        if stack and kinds_of(stack) not in STACK_SHAPES:
            shape = "".join(KIND_LETTERS[k] for k in kinds_of(stack))
            raise bad(
                f"stack on {lay.names[t]} is {shape} (bottom to top), not a legal stack: "
                "singles, A=[D,G], B=[T,D], C=[G,T], D=[T,D,G]"
            )
        st._stacks[t] = stack
        st._kinds[t] = kinds_of(stack)
        if stack:
            st._occupied |= 1 << t
            for owner, _ in stack:
                st._colour_tiles[owner] |= 1 << t


def _load_material(st: Any, snapshot: ArktiaSnapshot) -> None:
    """Pieces on the board + in reserve never exceed the material (R5, R7); removed
    pieces and melted tiles add up."""
    game = st.game
    n = game.num_players
    st._reserve = list(snapshot.reserves)
    st._neutral_reserve = list(snapshot.neutral_reserves)
    on_board = [[0, 0, 0] for _ in range(NUM_COLOURS)]
    for stack in snapshot.stacks:
        for owner, kind in stack:
            on_board[owner][kind] += 1
    for colour in [*range(n), NEUTRAL]:
        if colour == NEUTRAL:
            reserve = [sum(r[k] for r in st._neutral_reserve) for k in range(3)]
        else:
            reserve = list(st._reserve[colour])
        who = "neutral" if colour == NEUTRAL else f"player {colour}"
        material = game.material_per_kind[colour]
        for k in range(3):
            total = on_board[colour][k] + reserve[k]
            if total > material:
                raise bad(
                    f"{who} has {total} {KIND_LETTERS[k]} ({on_board[colour][k]} on the board "
                    f"+ {reserve[k]} to place); the material is {material}"
                )
        st._lost_pieces[colour] = 3 * material - sum(on_board[colour]) - sum(reserve)
    st._removed = list(snapshot.removed)
    st._melted = list(snapshot.melted)
    if sum(st._removed) != sum(st._lost_pieces):
        raise bad(
            f"removed counts sum to {sum(st._removed)} but {sum(st._lost_pieces)} pieces are "
            "missing from the board and reserves"
        )
    num_melted = game.num_tiles - st._alive.bit_count()
    if sum(st._melted) != num_melted:
        raise bad(f"melted counts sum to {sum(st._melted)} but {num_melted} tiles are melted")


def _load_progress(st: Any, snapshot: ArktiaSnapshot) -> None:
    """Round, phase, turn counter, ended seats and whose decision it is (R5-R10, R19, R20)."""
    game = st.game
    n = game.num_players
    rnd, phase, cur = snapshot.round, snapshot.phase, snapshot.current_player
    st._round = rnd
    st._turn = snapshot.turn
    st._ended = list(snapshot.ended)
    st._current = cur
    if phase == "melt" and rnd != NORMAL or phase == "choose" and rnd < OPENING_2:
        raise bad(f"phase {phase!r} cannot happen in round {rnd}")
    if all(st._ended) != (cur == -1):
        raise bad("current_player must be -1 exactly when every player's game has ended")
    if cur >= 0 and st._ended[cur]:
        raise bad(f"current_player {cur} is listed as ended")
    if cur < 0 and phase in ("melt", "choose"):
        raise bad(f"a finished game cannot be in phase {phase!r}")
    if rnd < OPENING_2 and any(st._ended):
        why = "R19a: the layout leaves every seat a tile to place on, R3, R6, R8"
        raise bad(f"a player's game cannot end during the setup or opening round 1 ({why})")
    neutral_left = [sum(r) for r in st._neutral_reserve]
    if rnd != SETUP and any(neutral_left):
        raise bad(f"round {rnd} but neutral pieces are still to be placed (setup unfinished)")
    if rnd < NORMAL:
        if any(st._melted) or any(st._removed) and rnd < OPENING_2:
            raise bad(f"round {rnd}: tiles melt and pieces are removed only later (R10, R15)")
        if rnd < OPENING_2 and any(len(stack) > 1 for stack in st._stacks):
            raise bad(f"round {rnd}: stacks form only by moving, from opening round 2 (R9)")
    placed = [3 * PIECES_PER_KIND - sum(st._reserve[s]) for s in range(n)]  # own pieces out
    neutral_placed = game.num_neutral - sum(neutral_left)
    turn = neutral_placed + sum(placed)  # the turns the placements alone took
    if rnd == SETUP:
        # R5-R6: the seats place one neutral piece each in turn, seat 0 first
        if not any(neutral_left):
            raise bad("round 0 (setup) but no neutral pieces are left to place")
        if any(st._colour_tiles[s] for s in range(n)) or any(placed):
            raise bad("player pieces left their reserve during the setup")
        expected = [turn // n + (1 if s < turn % n else 0) for s in range(n)]
        if [3 - left for left in neutral_left] != expected or cur != turn % n:
            raise bad(
                "setup: the seats place their neutral pieces in turn from seat 0 (R6), so "
                f"after {turn} placements seat {turn % n} is to act and the seats have "
                f"placed {expected}"
            )
    elif rnd == OPENING_1:
        # R8: one placement per seat in seat order
        for s in range(n):
            if placed[s] != int(s < cur):
                raise bad(
                    f"opening round 1: seat {s} has placed {placed[s]} piece(s); seats before "
                    "the current player place one each (R8), the others none yet"
                )
    elif rnd == OPENING_2:
        for s in range(n):  # a seat can end only at the start of its round-2 turn (R19a)
            done = cur < 0 or s < cur
            allowed = (1,) if st._ended[s] or not done else (1, 2)  # (R9: or a move instead)
            if placed[s] not in allowed or st._ended[s] and not done:
                raise bad(
                    f"opening round 2: seat {s} has placed {placed[s]} piece(s); one in round "
                    "1 (R8) and one more once its round-2 turn is over (R9), unless its game "
                    "ended at that turn (R19a)"
                )
    if rnd <= OPENING_1 and st._turn != turn:
        raise bad(f"turn is {st._turn}, but {turn} turns have been played to reach round {rnd}")
    if st._turn < turn:
        raise bad(f"turn is {st._turn}, but the pieces placed alone took {turn} turns")


def _load_pending_choices(st: Any, snapshot: ArktiaSnapshot) -> None:
    """Tied groups the mover chooses among (R16); every other colour is one group (R15)."""
    lay = st.game.layout
    n = st.game.num_players
    cur, phase = st._current, snapshot.phase
    if bool(snapshot.pending_choices) != (phase == "choose"):
        raise bad("pending_choices must be non-empty exactly in phase 'choose'")
    last = -1
    for i, (colour, groups) in enumerate(snapshot.pending_choices):
        if colour <= last or colour == cur:
            raise bad(
                f"pending_choices[{i}]: colours must be other players' or neutral, "
                "in seat order then neutral (R16)"
            )
        if colour == NEUTRAL and not st.game.neutral_pieces:
            raise bad(f"pending_choices[{i}]: neutral colour but neutral_pieces is false")
        last = colour
        comps = lay.components(st._colour_tiles[colour])
        if len(groups) < 2 or sorted(groups) != sorted(comps):
            raise bad(
                f"pending_choices[{i}]: groups must be exactly the (2 or more) "
                "connected groups of that colour on the board"
            )
        if len({st._count(colour, g) for g in groups}) != 1:
            raise bad(f"pending_choices[{i}]: the groups must tie in size (R16)")
    st._pending_choices = snapshot.pending_choices
    pending_colours = {c for c, _ in snapshot.pending_choices}
    for colour in list(range(n)) + ([NEUTRAL] if st.game.neutral_pieces else []):
        if colour not in pending_colours and len(lay.components(st._colour_tiles[colour])) > 1:
            who = "neutral" if colour == NEUTRAL else f"player {colour}"
            raise bad(
                f"{who}'s pieces are in several groups; between turns every colour "
                "is one connected group (R15)"
            )


def _load_decision(st: Any, snapshot: ArktiaSnapshot) -> None:
    """The decision at hand and its legal actions (R17-R19)."""
    cur, rnd, phase = st._current, st._round, snapshot.phase
    if cur < 0:
        st._legal = []
        return
    if rnd == SETUP and not any(st._neutral_reserve[cur]):
        raise bad(f"setup: player {cur} has no neutral piece left to place")
    st._must_melt = rnd == NORMAL and not any(st._reserve[cur])
    if phase == "melt":
        if not st._must_melt:
            raise bad("phase 'melt' but the current player still has pieces in reserve (R17)")
        st._pending_decision = "melt"
        st._legal = st._melt_actions()
        if not st._legal:
            raise bad("phase 'melt' but no tile can melt (R18 should have ended the game)")
    elif phase == "choose":
        st._pending_decision = "choose"
        st._legal = st._keep_actions()
    else:
        st._legal = st._turn_actions()
        if not st._legal or st._legal == [st.game.codec.STOP]:
            raise bad(
                f"player {cur} has no legal placement or move; its game should have ended (R19a)"
            )
