"""Property tests (hypothesis) over random legal Arktia play.

After every completed turn: each colour is one connected group, material is conserved,
stacks have legal shapes, scores follow R21, JSON round-trips; at every decision the
legal moves equal a slow reference generator written directly from R12-R14b.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_zoo.envs.arktia import NEUTRAL, STACK_SHAPES, ArktiaGame, ArktiaState


def _connected(tiles: set[int], lay) -> bool:
    if not tiles:
        return True
    seen, todo = set(), [next(iter(tiles))]
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo.extend(x for x in lay.neighbours[t] if x in tiles)
    return seen == tiles


def _colour_tiles(state: ArktiaState, colour: int) -> set[int]:
    return {t for t in range(state.game.num_tiles) if any(o == colour for o, _ in state.stack(t))}


def reference_moves(state: ArktiaState) -> set[int]:
    """Moves of the current player from the rule text, by brute force over (o, t, k)."""
    game, p = state.game, state.current_player
    lay, codec = game.layout, game.codec
    pos = {rc: t for t, rc in enumerate(lay.coords)}
    out = set()
    for o in range(game.num_tiles):
        stack = state.stack(o)
        if not stack or stack[-1][0] != p:
            continue
        for t in range(game.num_tiles):
            if t == o or not state.alive(t):
                continue
            (r0, c0), (r1, c1) = lay.coords[o], lay.coords[t]
            dr, dc = r1 - r0, c1 - c0
            steps = abs(dr) if dr else abs(dc) // 2
            if dr and abs(dc) != abs(dr) or not dr and dc % 2:
                continue  # not one of the six straight lines
            path = [pos.get((r0 + i * dr // steps, c0 + i * dc // steps)) for i in range(1, steps)]
            if any(x is None or not state.alive(x) for x in path):
                continue  # holes cannot be crossed
            for k in range(1, len(stack) + 1):
                unit, rest = stack[len(stack) - k :], stack[: len(stack) - k]
                result = tuple(kd for _, kd in state.stack(t) + unit)
                if result not in STACK_SHAPES:
                    continue
                own = _colour_tiles(state, p) - {o} | {t}
                if any(ow == p for ow, _ in rest):
                    own.add(o)
                if _connected(own, lay):
                    out.add(codec.encode_move(o, t, k))
    return out


def check_turn_start(state: ArktiaState, material: dict[int, int], removed_before: int) -> None:
    game = state.game
    lay = game.layout
    n = game.num_players
    colours = list(range(n)) + ([NEUTRAL] if game.neutral_pieces else [])
    total_lost = 0
    for c in colours:
        tiles = _colour_tiles(state, c)
        assert _connected(tiles, lay), f"colour {c} split after a completed turn"
        on_board = sum(1 for t in tiles for o, _ in state.stack(t) if o == c)
        assert on_board == state.pieces_on_board(c)
        reserve = (
            sum(sum(state.neutral_reserve(s)) for s in range(n))
            if c == NEUTRAL
            else sum(state.reserve(c))
        )
        assert on_board + reserve <= material[c]
        total_lost += material[c] - on_board - reserve
    assert total_lost == sum(state.removed(s) for s in range(n)) >= removed_before
    for t in range(game.num_tiles):
        kinds = tuple(k for _, k in state.stack(t))
        assert not kinds or kinds in STACK_SHAPES
        assert state.alive(t) or not kinds
    controlled = [0] * n
    for t in range(game.num_tiles):
        if state.stack(t) and state.stack(t)[-1][0] != NEUTRAL:
            controlled[state.stack(t)[-1][0]] += 1
    assert state.scores() == [state.removed(s) + state.melted(s) + controlled[s] for s in range(n)]
    alive = {t for t in range(game.num_tiles) if state.alive(t)}
    assert _connected(alive, lay)


def run(n: int, seed: int, neutral: bool | None, max_turns: int) -> None:
    game = ArktiaGame(n, neutral_pieces=neutral)
    rng = random.Random(seed)
    state = game.new_initial_state()
    material = {s: 9 for s in range(n)}
    material[NEUTRAL] = game.num_neutral
    stop = game.codec.STOP
    removed = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and legal
        assert all(0 <= a < game.num_actions for a in legal)
        moves = {a for a in legal if game.codec.decode(a)[0] == "move"}
        if state.phase == "normal" or state.round == 2 and len(moves) == len(legal):
            assert moves == reference_moves(state)  # R9: round 2 moves only as a fallback
        elif state.phase != "normal":
            assert not moves or state.round == 2
        if state.phase in ("setup", "opening", "normal"):
            check_turn_start(state, material, removed)
            removed = sum(state.removed(s) for s in range(n))
            copy = ArktiaState.from_json(state.to_json())
            assert copy.to_json() == state.to_json() and copy.legal_actions() == legal
        player = state.current_player
        clone = state.clone()
        choices = [a for a in legal if a != stop] or legal
        action = rng.choice(legal if state.turn >= max_turns else choices)
        state.apply_action(action)
        assert clone.legal_actions() == legal  # clones are independent
        if state.phase in ("melt", "choose"):
            assert state.current_player == player  # same player's further decision
    assert all(state.ended(s) for s in range(n))
    check_turn_start(state, material, removed)
    r = state.returns()
    best = max(state.scores())
    winners = state.scores().count(best)
    assert r == [(1.0 if winners == 1 else 0.0) if s == best else -1.0 for s in state.scores()]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), max_turns=st.integers(5, 150))
def test_random_play_two_players(seed: int, max_turns: int) -> None:
    run(2, seed, None, max_turns)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), neutral=st.booleans(), max_turns=st.integers(5, 150))
def test_random_play_three_players(seed: int, neutral: bool, max_turns: int) -> None:
    run(3, seed, neutral, max_turns)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), max_turns=st.integers(5, 150))
def test_random_play_four_players(seed: int, max_turns: int) -> None:
    run(4, seed, None, max_turns)
