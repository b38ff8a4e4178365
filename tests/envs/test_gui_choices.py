"""The per-game click maps (``envs/<game>/gui.py``): every legal action is reachable by
clicks, nothing illegal is offered, and pixels map to the right spaces, edges and tiles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_zoo.envs.drawing.status import Choice, game_gui
from tabletop_zoo.envs.mole_hill import MoleHillState
from tabletop_zoo.envs.mole_hill import board as A
from tabletop_zoo.envs.registry import GAMES, make_raw_env


def picker_and_game(name: str, players: int | None = None):
    """The game's click map (built from the env's renderer) and its engine Game."""
    env = make_raw_env(name, num_players=players)
    return game_gui(GAMES[name]).Picker(env.unwrapped.renderer), env.unwrapped.engine


def reachable(picker, state, start: tuple = ()) -> set[int]:
    """Actions that some sequence of clicks starting at selection ``start`` plays.

    Also checks every choice on the way: it offers only legal actions, and the actions a
    narrowing choice promises are reachable from the selection it leads to.
    """
    legal = set(state.legal_actions())
    edges: dict[tuple, list[Choice]] = {}
    todo = [start]
    while todo:  # every selection reachable by clicks (the graph may have cycles)
        selection = todo.pop()
        if selection in edges:
            continue
        edges[selection] = picker.choices(state, selection)[1]
        todo += [c.selection for c in edges[selection] if c.play is None]
    assert len(edges) < 200, "click paths must stay few"

    def plays_from(selection: tuple) -> set[int]:
        seen, todo, found = set(), [selection], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for choice in edges[current]:
                if choice.play is not None:
                    found.add(choice.play)
                else:
                    todo.append(choice.selection)
        return found

    for choices in edges.values():
        for choice in choices:
            assert choice.actions <= legal, choice
            if choice.play is not None:
                assert choice.actions == {choice.play}
            else:
                assert choice.actions <= plays_from(choice.selection), choice
    return plays_from(start)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_legal_action_is_reachable_by_clicks(name: str) -> None:
    rng = random.Random(4)
    for players in GAMES[name].players:
        picker, game = picker_and_game(name, players)
        state = game.new_initial_state(seed=rng.randrange(1000))
        while not state.is_terminal():
            assert reachable(picker, state) == set(state.legal_actions())
            state.apply_action(rng.choice(state.legal_actions()))
        assert picker.choices(state)[1] == []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_spots_lie_inside_the_picture_and_do_not_overlap(name: str) -> None:
    picker, game = picker_and_game(name, GAMES[name].players[-1])
    state = game.new_initial_state(seed=0)
    h, w = picker.draw(state).shape[:2]
    spots = [c for c in picker.choices(state)[1] if not c.is_button]
    assert spots
    for choice in spots:
        y, x = _middle(choice)
        assert 0 <= y < h and 0 <= x < w
        assert [c for c in spots if c.hit(y, x)] == [choice]


def _middle(choice: Choice) -> tuple[float, float]:
    if choice.spot is not None:
        return choice.spot[0], choice.spot[1]
    y0, x0, y1, x1 = choice.box
    return (y0 + y1) / 2, (x0 + x1) / 2


def _hits(choices: list[Choice], y: float, x: float) -> list[Choice]:
    return [c for c in choices if c.hit(y, x)]


def test_mole_hill_pixels_worked_out_from_the_board_geometry() -> None:
    # 56-pixel cells after a 28-pixel margin: e4 (column 4, row 3) spans x 252..308 and
    # y 196..252, so its middle is (y, x) = (224, 280); the edge e4-f4 is the line x = 308
    picker, _game = picker_and_game("mole_hill")
    state = MoleHillState.from_position([])
    (hit,) = _hits(picker.choices(state)[1], 224, 280)
    assert hit.play == A.parse_space("e4") == 31
    state = MoleHillState.from_position(["c3"], mole_to_move=False)  # gardener to act
    rods = picker.choices(state)[1]
    (hit,) = _hits(rods, 224, 308 + 3)
    assert A.ACTION_NAMES[hit.play] == "e4-f4"
    (hit,) = _hits(rods, 252 - 2, 280)  # the line y = 252 between e4 and e5
    assert A.ACTION_NAMES[hit.play] == "e4-e5"
    assert _hits(rods, 252, 308) == []  # a corner where four spaces meet: no edge
    assert _hits(rods, 224, 280) == []  # the middle of a space: no edge


def test_mole_hill_mole_is_offered_only_its_destinations() -> None:
    state = MoleHillState.from_position(["a1"])  # from the corner a1: b1, a2, b2
    _prompt, choices = picker_and_game("mole_hill")[0].choices(state)
    assert sorted(c.label for c in choices) == ["a2", "b1", "b2"]


def test_arktia_move_needs_source_then_target_then_count() -> None:
    """Seat 0 moves a two-piece stack: source, target, then how many pieces."""
    picker, game = picker_and_game("arktia", 2)
    rng = random.Random(0)
    for _ in range(200):  # random games until a position offers a choice of count
        state = game.new_initial_state(seed=rng.randrange(10**6))
        while not state.is_terminal():
            _prompt, root = picker.choices(state)
            for source in [c for c in root if c.selection[:1] == ("from",)]:
                _p, targets = picker.choices(state, source.selection)
                for target in [c for c in targets if len(c.selection) == 3]:
                    prompt, counts = picker.choices(state, target.selection)
                    assert prompt.endswith("how many pieces from the top?")
                    buttons = [c for c in counts if c.play is not None]
                    assert len(buttons) >= 2 and {c.play for c in buttons} == target.actions
                    assert all(c.is_button for c in buttons)
                    assert buttons[-1].label in ("whole stack", "2 pieces", "3 pieces")
                    return
            state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("no position with a choice of how many pieces to move was found")


def test_arktia_stop_asks_for_confirmation() -> None:
    picker, game = picker_and_game("arktia", 2)
    rng = random.Random(1)
    state = game.new_initial_state(seed=1)
    while game.codec.STOP not in state.legal_actions():
        state.apply_action(rng.choice([a for a in state.legal_actions()]))
    _prompt, root = picker.choices(state)
    (stop,) = [c for c in root if c.label == "stop"]
    assert stop.play is None and stop.is_button  # a click does not stop yet
    prompt, confirm = picker.choices(state, stop.selection)
    assert "sure?" in prompt.lower()
    assert [(c.label, c.play) for c in confirm] == [("yes, stop", game.codec.STOP), ("no", None)]
    assert confirm[1].selection == ()


def test_arktia_tile_spots_sit_on_the_hex_centres() -> None:
    picker, game = picker_and_game("arktia", 3)
    renderer = picker.renderer
    state = game.new_initial_state(seed=0)  # first placement: every tile is a target
    spots = picker.choices(state)[1]
    tiles = [c for c in spots if not c.is_button]
    assert len(tiles) == game.num_tiles
    centres = np.array(renderer.centres)
    for t, (y, x) in enumerate(centres):
        (hit,) = _hits(tiles, y, x)
        assert hit.label.endswith(game.layout.names[t])
    # halfway between two neighbouring hexes (a1 and a2) is on their shared edge: no spot
    (y0, x0), (y1, x1) = centres[0], centres[1]
    assert _hits(tiles, (y0 + y1) / 2, (x0 + x1) / 2) == []


@pytest.mark.parametrize("players", GAMES["arktia"].players)
def test_arktia_target_rings_end_above_the_tile_names(players: int) -> None:
    """A tile's ring (its clickable disc) stays inside the tile and above its name."""
    picker, game = picker_and_game("arktia", players)
    renderer = picker.renderer
    for tile in range(game.num_tiles):
        y, x, radius = picker._spot(tile)
        centre_y, centre_x = renderer.centres[tile]
        _name, label_top, _dx = renderer.labels[tile]
        assert y + radius <= centre_y + label_top - 1  # the ring's bottom above the name
        assert y - radius >= centre_y - renderer.s  # and inside the hex at the top
        assert x == centre_x and radius >= 0.5 * renderer.s  # still easy to click
