"""Arktia engine against an independent, deliberately naive reference of the rules.

The reference below was written from the rule texts and rulings (R8-R17), not from the
engine: it works on plain lists of stacks, walks rays tile by tile and recomputes groups
from scratch. Random games compare, at every decision, the engine's legal actions (normal
turns, round-2 fallback, melting) and, after every move, the board after removals (R15,
R16a) or the colours offered for a group choice (R16).
"""

from __future__ import annotations

import random

import pytest

from tabletop_zoo.envs.arktia import DIRECTIONS, NEUTRAL, ArktiaGame, ArktiaState, D, G, T

# R14: (unit kinds, target kinds) that may stack; anything may land on an empty tile
LANDINGS = {((G,), (D,)), ((G,), (T, D)), ((D,), (T,)), ((T,), (G,)), ((D, G), (T,))}
LEGAL_STACKS = {(G,), (D,), (T,), (D, G), (T, D), (G, T), (T, D, G)}


class Ref:
    """Plain geometry of a layout: tiles by (row, column), neighbours by offset (R1)."""

    def __init__(self, state: ArktiaState) -> None:
        lay = state.game.layout
        self.coords = lay.coords
        self.at = {rc: t for t, rc in enumerate(lay.coords)}
        self.n = lay.num_tiles

    def adjacent(self, t: int) -> list[int]:
        r, c = self.coords[t]
        return [self.at[(r + dr, c + dc)] for dr, dc in DIRECTIONS if (r + dr, c + dc) in self.at]

    def groups(self, tiles: set[int]) -> list[set[int]]:
        left, out = set(tiles), []
        while left:
            todo = [left.pop()]
            group = set(todo)
            while todo:
                for u in self.adjacent(todo.pop()):
                    if u in left:
                        left.remove(u)
                        group.add(u)
                        todo.append(u)
            out.append(group)
        return out


def board(state: ArktiaState) -> list[list[tuple[int, int]]]:
    return [list(state.stack(t)) for t in range(state.game.num_tiles)]


def ref_places(state: ArktiaState, p: int) -> set[int]:
    """R11: an empty tile next to a tile holding any piece of p (covered ones count)."""
    ref, codec, out = Ref(state), state.game.codec, set()
    for t in range(ref.n):
        if (
            state.alive(t)
            and not state.stack(t)
            and any(owner == p for u in ref.adjacent(t) for owner, _ in state.stack(u))
        ):
            out |= {codec.encode_place(k, t) for k in (G, D, T) if state.reserve(p)[k]}
    return out


def ref_moves(state: ArktiaState, p: int) -> set[int]:
    """R12-R14b by brute force: try every top part, every ray, every landing."""
    ref, codec, out = Ref(state), state.game.codec, set()
    stacks = board(state)
    for o in range(ref.n):
        if not stacks[o] or stacks[o][-1][0] != p:
            continue
        for k in range(1, len(stacks[o]) + 1):
            unit, rest = stacks[o][-k:], stacks[o][:-k]
            r, c = ref.coords[o]
            for dr, dc in DIRECTIONS:
                rr, cc = r + dr, c + dc
                while (rr, cc) in ref.at and state.alive(ref.at[(rr, cc)]):
                    t = ref.at[(rr, cc)]
                    target = stacks[t]
                    kinds = (tuple(x[1] for x in unit), tuple(x[1] for x in target))
                    if not target or kinds in LANDINGS:
                        assert tuple(x[1] for x in target + unit) in LEGAL_STACKS
                        after = [list(s) for s in stacks]
                        after[o], after[t] = rest, target + unit
                        own = {i for i in range(ref.n) if any(q[0] == p for q in after[i])}
                        if len(ref.groups(own)) == 1:
                            out.add(codec.encode_move(o, t, k))
                    rr, cc = rr + dr, cc + dc
    return out


def ref_melts(state: ArktiaState) -> set[int]:
    """R17: empty, fewer than 6 existing neighbours, the other tiles stay connected."""
    ref = Ref(state)
    alive = {t for t in range(ref.n) if state.alive(t)}
    return {
        state.game.codec.encode_melt(t)
        for t in alive
        if not state.stack(t)
        and sum(u in alive for u in ref.adjacent(t)) < 6
        and len(ref.groups(alive - {t})) == 1
    }


def ref_after_move(state: ArktiaState, action: int) -> tuple[list, list[int], int]:
    """Board after a move and the removal of every non-largest group (R15, R16a), the
    colours with a tie for largest (R16, seat order then neutral) and pieces removed."""
    ref, p = Ref(state), state.current_player
    _, o, t, k = state.game.codec.decode(action)
    stacks = board(state)
    stacks[t] = stacks[t] + stacks[o][-k:]
    stacks[o] = stacks[o][:-k]
    tied, removed = [], 0
    for colour in [*range(state.num_players), NEUTRAL]:
        if colour == p:
            continue
        groups = ref.groups({i for i in range(ref.n) if any(q[0] == colour for q in stacks[i])})
        sizes = [sum(q[0] == colour for i in g for q in stacks[i]) for g in groups]
        if sizes and sizes.count(max(sizes)) > 1:
            tied.append(colour)
        for group, size in zip(groups, sizes, strict=True):
            if size < max(sizes):
                for i in group:
                    kept = [q for q in stacks[i] if q[0] != colour]
                    removed += len(stacks[i]) - len(kept)
                    if [q[1] for q in kept] == [T, G]:
                        kept.reverse()  # R16a: the G drops into the Torus
                    stacks[i] = kept
    return [tuple(s) for s in stacks], tied, removed


def check_decision(state: ArktiaState) -> None:
    p, codec = state.current_player, state.game.codec
    legal = set(state.legal_actions())
    if state.phase == "normal":
        assert legal == ref_moves(state, p) | ref_places(state, p) | {codec.STOP}, str(state)
    elif state.phase == "melt":
        assert legal == ref_melts(state), str(state)
    elif state.phase == "opening" and state.round == 2:
        assert legal == (ref_places(state, p) or ref_moves(state, p)), str(state)  # R9


@pytest.mark.slow
@pytest.mark.parametrize(
    "num_players,neutral,seed",
    [(2, True, 0), (2, True, 1), (3, False, 2), (3, True, 3), (4, False, 4), (4, False, 5)],
)
def test_engine_matches_the_reference_in_random_games(
    num_players: int, neutral: bool, seed: int
) -> None:
    rng = random.Random(seed)
    game = ArktiaGame(num_players, neutral_pieces=neutral)
    state = game.new_initial_state()
    moves = melts = 0
    while not state.is_terminal():
        check_decision(state)
        legal = state.legal_actions()
        # avoid "stop" for a long while so that reserves run dry and tiles melt
        playable = [a for a in legal if a != game.codec.STOP] or legal
        action = rng.choice(playable if state.turn < 150 else legal)
        kind = game.codec.decode(action)[0]
        if kind != "move":
            melts += kind == "melt"
            state.apply_action(action)
            continue
        moves += 1
        mover = state.current_player
        expected, tied, removed = ref_after_move(state, action)
        before = state.removed(mover)
        state.apply_action(action)
        if tied:
            assert state.phase == "choose" and state.current_player == mover
            assert [c for c, _ in state.pending_groups()] == tied
        else:
            assert [state.stack(t) for t in range(game.num_tiles)] == expected
            assert state.removed(mover) - before == removed
    assert moves > 20 and melts > 0
