"""Legends of the ``rgb_array`` pictures and the size of the Arktia picture."""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia import render as arktia_render
from tabletop_zoo.envs.mole_hill import MoleHillState
from tabletop_zoo.envs.mole_hill import render as mole_render
from tabletop_zoo.envs.registry import make_raw_env, new_game


def test_mole_hill_legend_names_round_roles_and_scores() -> None:
    # round 2: player_1 is the mole; round 1 gave player_0 7 points; player_1 has left
    # 3 pieces (c3, d3, e3): no dark piece, no flower, so 0 so far
    state = MoleHillState.from_position(["c3", "d3", "e3"], round_number=2, round_scores=[7])
    assert mole_render.legend_lines(state) == (
        "round 2 of 2: mole player_1, gardener player_0",
        "scores so far: player_0 7, player_1 0",
    )


def test_mole_hill_legend_at_the_end_says_final_scores() -> None:
    env = make_raw_env("mole_hill")
    env.reset(seed=0)
    state = env.unwrapped.game_state
    while not state.is_terminal():
        env.step(state.legal_actions()[-1])
    first, second = mole_render.legend_lines(state)
    scores = state.scores()
    assert first == "game over after 2 rounds"
    assert second == f"final scores: player_0 {scores[0]}, player_1 {scores[1]}"


def test_mole_hill_picture_has_the_legend_under_the_board() -> None:
    renderer = mole_render.MoleHillImageRenderer(new_game("mole_hill"))
    img = renderer.draw(MoleHillState.from_position([]))
    assert img.shape == (renderer.height, renderer.width, 3)
    legend = img[mole_render.BOARD_HEIGHT :]
    assert legend.shape[0] == mole_render.LEGEND_HEIGHT
    for colour in (mole_render.INK, mole_render.LIGHT_PIECE, mole_render.DARK_PIECE):
        assert (legend == colour).all(axis=2).any(), colour


def test_two_player_arktia_picture_is_large_enough_for_its_tile_names() -> None:
    small = arktia_render.ArktiaImageRenderer(new_game("arktia", num_players=2), hex_radius=36)
    auto = arktia_render.ArktiaImageRenderer(new_game("arktia", num_players=2))
    assert auto.s > small.s
    assert auto.label_scale >= 3  # tile names 15 pixels high
    assert auto.width >= arktia_render.TARGET_BOARD_WIDTH - 20
    for players in (3, 4):
        renderer = arktia_render.ArktiaImageRenderer(new_game("arktia", num_players=players))
        assert renderer.s >= arktia_render.MIN_HEX_RADIUS
        assert renderer.width <= arktia_render.TARGET_BOARD_WIDTH + 20


def test_arktia_legend_shows_the_three_shapes_and_a_melted_tile() -> None:
    renderer = arktia_render.ArktiaImageRenderer(new_game("arktia", num_players=3))
    img = renderer.draw(new_game("arktia", num_players=3).new_initial_state())
    legend = img[renderer.board_h : renderer.board_h + renderer.line_h + 2]
    grey = arktia_render.OWNER_RGB[arktia_render.NEUTRAL]
    assert (legend == grey).all(axis=2).any()  # the pieces are drawn in neutral grey
    assert (legend == arktia_render.WATER).all(axis=2).any()
    # the legend's grey shapes: three separate blobs of grey (ball, disc, ring)
    columns = (legend == grey).all(axis=2).any(axis=0)
    starts = np.flatnonzero(columns[1:] & ~columns[:-1])
    assert len(starts) == 3
