"""Recordings: status lines, the RecordEpisode wrapper and the animation files."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.evaluation.arena import play_game
from tabletop_zoo.envs._display import (
    LastMove,
    band_lines,
    move_frames,
    move_of,
    status_lines,
    with_status,
)
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import MissingExtraError
from tabletop_zoo.envs.mole_hill import MoleHillState, string_to_action
from tabletop_zoo.envs.registry import GAMES, extended, make_env, new_game
from tabletop_zoo.wrappers.recording import RecordEpisode, save_animation
from tests.envs import nim_game
from tests.envs.nim_game import NIM_SPEC

iio = pytest.importorskip("imageio.v3")


def first_legal(env) -> int:
    obs = env.observe(env.agent_selection)
    return int(np.flatnonzero(obs["action_mask"])[0])


# ------------------------------------------------------------------ status lines
def test_status_lines_of_a_mole_hill_position_worked_out_by_hand() -> None:
    # round 1, the mole (player_0) has left 3 pieces on c3, d3 and e4 (the centre), so
    # 19 of 22 are left and it may jump next; the gardener just put a rod on a1-b1
    state = MoleHillState.from_position(["c3", "d3", "e4"], ["a1-b1"], mole_to_move=True)
    lines = status_lines(state, 6, LastMove(1, "a1-b1"))
    assert lines == [
        "move 6: player_1 (gardener) played a1-b1",
        "round 1 of 2, 19 of 22 pieces left, mole may jump, to act: player_0 (mole)",
        "scores: player_0 (mole) 0, player_1 (gardener) 0",
    ]


def finished_mole_hill_game(seed: int | None) -> MoleHillState:
    """A whole game: first legal move every time (``seed=None``) or random agents."""
    env = make_env("mole_hill")
    agents = [make_agent("random", seed=seed), make_agent("random", seed=seed)]
    if seed is None:
        env.reset(seed=0)
        while not env.unwrapped.game_state.is_terminal():
            env.step(first_legal(env))
    else:
        play_game(env, agents, seed=seed)
    return env.unwrapped.game_state


def test_status_lines_name_the_winner_at_the_end() -> None:
    state = finished_mole_hill_game(seed=1)
    scores = state.scores()
    assert scores[0] != scores[1]  # this seed has a winner: the higher total (M10)
    lines = status_lines(state, 99, LastMove(1, "a1-b1"))
    assert lines[1] == f"game over: player_{int(scores[1] > scores[0])} wins"
    assert lines[2] == f"scores: player_0 {scores[0]}, player_1 {scores[1]}"


def test_status_lines_say_draw_on_equal_totals() -> None:
    state = finished_mole_hill_game(seed=None)  # both moles take the same path: equal totals
    assert state.scores()[0] == state.scores()[1]
    assert status_lines(state, 99)[1] == "game over: draw"


def test_status_lines_of_a_truncated_arktia_game_say_who_leads() -> None:
    env = make_env("arktia", num_players=3, max_turns=4)
    env.reset(seed=1)
    while not any(env.truncations.values()):
        env.step(first_legal(env))
    state = env.unwrapped.game_state
    lines = status_lines(state, 4, LastMove(0, "x"), truncated=True)
    scores = state.scores()
    leaders = [s for s, x in enumerate(scores) if x == max(scores)]
    colours = ("red", "blue", "yellow")
    lead = f"player_{leaders[0]} ({colours[leaders[0]]})" if len(leaders) == 1 else "nobody"
    assert lines[1] == f"stopped at the turn limit: {lead} leads"


def test_status_lines_of_a_game_in_no_registry_are_plain() -> None:
    state = nim_game.NimGame().new_initial_state()
    assert status_lines(state, 0) == [
        "start of the game",
        "in play, to act: player_0",
        "scores: player_0 0, player_1 0",
    ]


def test_a_game_without_gui_records_with_a_plain_band() -> None:
    """The Nim toy's spec declares ``gui=None``: seats are ``player_<n>``, no round."""
    with extended(NIM_SPEC):
        env = RecordEpisode(
            nim_game.raw_env(piles=(1, 2), max_take=2, render_mode="rgb_array"), final_hold=0
        )
        env.reset(seed=0)
        env.step(0)  # 1@0: player_0 takes the single object of pile 0
        env.step(3)  # 2@1: player_1 takes both objects of pile 1, the last ones, and wins
        frames = env.frames
    assert [text for _, text in env._pictures] == [
        ["start of the game", "in play, to act: player_0", "scores: player_0 0, player_1 0"],
        [
            "move 1: player_0 played 1@0",
            "in play, to act: player_1",
            "scores: player_0 1, player_1 0",
        ],
        [
            "move 2: player_1 played 2@1",
            "game over: player_1 wins",
            "scores: player_0 1, player_1 2",
        ],
    ]
    assert len(frames) == 3 and len({f.shape for f in frames}) == 1


# ------------------------------------------------------------------ round ends
def test_the_move_ending_mole_hills_round_1_shows_the_finished_garden_then_round_2() -> None:
    # mole on a1 (b2, a white flower, visited; a1-b1 closed): the gardener's rod a1-a2
    # leaves it no move, so round 1 ends (M8) and round 2 starts on a cleared garden (M10)
    before = MoleHillState.from_position(["b2", "a1"], ["a1-b1"], mole_to_move=False)
    last = move_of(before, string_to_action("a1-a2"))
    after = before.clone()
    after.apply_action(last.action)
    (board, mark, lines), (start, no_mark, next_lines) = move_frames(before, last, after, 4)
    assert lines == [
        "move 4: player_1 (gardener) played a1-a2",
        "round 1 is over",
        "scores: player_0 (mole) 1, player_1 (gardener) 0",
    ]
    assert mark == last and len(board.trail) == 2 and len(board.rods) == 2
    assert start is after and no_mark is None and after.trail == []
    assert next_lines == [
        "round 2 begins",
        "round 2 of 2, 22 of 22 pieces left, round 1 over: player_0 scored 1, "
        "to act: player_1 (mole)",
        "scores: player_0 (gardener) 1, player_1 (mole) 0",
    ]
    # the game's last move names its mover in its role too: player_1's mole trapped alike
    for move in ["b2", "a1-b1", "a1", "a1-a2"]:
        before = after.clone()
        last = move_of(before, before.string_to_action(move))
        after.apply_action(last.action)
    lines = ["move 8: player_0 (gardener) played a1-a2", "game over: draw"]
    assert move_frames(before, last, after, 8) == [
        (after, last, [*lines, "scores: player_0 1, player_1 1"])
    ]


def test_arktias_phase_ends_are_named_on_the_board_they_leave() -> None:
    """Arktia never clears its board: the picture of the move that ends the setup or an
    opening round is the finished board, and says which ended (R6, R8, R9)."""
    state = new_game("arktia", 2).new_initial_state(seed=0)
    ends = {}
    for moves in range(1, 12):  # 6 neutral pieces, 2 opening rounds of 2, a normal turn
        before = state.clone()
        last = move_of(before, state.legal_actions()[0])
        state.apply_action(last.action)
        (picture,) = move_frames(before, last, state, moves)
        assert picture[0] is state and picture[1] == last
        if " is over" in picture[2][1]:
            ends[moves] = picture[2][1]
    assert ends == {
        6: "the setup is over, turn 7, opening: placing, to act: player_0 (red)",
        8: "opening round 1 is over, turn 9, opening: placing, to act: player_0 (red)",
        10: "opening round 2 is over, turn 11, normal play, to act: player_0 (red)",
    }


def test_with_status_wraps_to_the_picture_width_and_keeps_the_picture() -> None:
    img = np.full((50, 120, 3), 7, np.uint8)
    text = ["one two three four five six seven eight nine ten"]
    wrapped = band_lines(text, 120)
    assert len(wrapped) > 1 and " ".join(wrapped) == text[0]
    out = with_status(img, text, min_lines=5)
    assert out.shape[1] == 120
    assert (out[-50:] == 7).all()  # the picture sits unchanged under the band
    assert out.shape[0] - 50 == with_status(img, ["x"] * 5).shape[0] - 50  # room for 5 lines


# ------------------------------------------------------------------ the wrapper
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_record_episode_keeps_one_frame_per_position(name: str, tmp_path: Path) -> None:
    spec = GAMES[name]
    n = spec.players[-1]
    out = tmp_path / f"{name}.gif"
    env = RecordEpisode(make_env(name, num_players=n, render_mode="rgb_array"), out, final_hold=2)
    agents = [make_agent("random", seed=s) for s in range(n)]
    result = play_game(env, agents, seed=5)
    frames = env.frames
    lines = [text for _, text in env._pictures]
    cleared = name == "mole_hill"  # round 1's finished garden is a picture of its own
    assert len(frames) == result.num_steps + 1 + cleared + 2
    assert len({f.shape for f in frames}) == 1
    raw_picture = env.unwrapped.render()
    assert frames[-1].shape[1] == raw_picture.shape[1]
    assert (frames[-1][-raw_picture.shape[0] :] == raw_picture).all()
    assert lines[0][0] == "start of the game"
    assert lines[1][0].startswith("move 1: player_0")
    assert lines[-1][1].startswith("game over")
    assert env.saved == [out]
    written = iio.imread(out, index=None)
    assert written.shape[1:3] == frames[0].shape[:2]
    assert 2 <= written.shape[0] <= len(frames)  # identical frames may be merged in a GIF


def test_the_animation_of_mole_hill_shows_round_1s_finished_garden_then_round_2() -> None:
    env = RecordEpisode(make_env("mole_hill", render_mode="rgb_array"), final_hold=0)
    result = play_game(env, [make_agent("random", seed=s) for s in (1, 2)], seed=0)
    frames, lines = env.frames, [text for _, text in env._pictures]
    assert len(frames) == result.num_steps + 2  # the start, every move, the finished garden
    (k,) = [k for k, text in enumerate(lines) if " is over" in text[1]]
    mover = r"(player_0 \(mole\)|player_1 \(gardener\))"  # their roles in round 1
    assert re.fullmatch(rf"move {k}: {mover} played [a-i1-7-]+", lines[k][0])
    assert lines[k][1] == "round 1 is over" and lines[k][2].startswith("scores: player_0 (mole)")
    assert lines[k + 1][0] == "round 2 begins" and lines[k + 2][0].startswith(f"move {k + 1}: ")
    assert not np.array_equal(frames[k], frames[k + 1])  # the garden is cleared in between
    assert lines[-1][0].startswith(f"move {result.num_steps}: ")


def test_record_episode_writes_notation_of_each_move() -> None:
    env = RecordEpisode(make_env("mole_hill", render_mode="rgb_array"))
    env.reset(seed=0)
    env.step(31)  # the mole starts on the centre e4
    env.step(63)  # the gardener's rod on the first edge a1-b1
    assert env._pictures[1][1][0] == "move 1: player_0 (mole) played e4"
    assert env._pictures[2][1][0] == "move 2: player_1 (gardener) played a1-b1"


def test_record_episode_needs_rgb_array_and_a_known_file_type(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError, match="render_mode='rgb_array'"):
        RecordEpisode(make_env("mole_hill"))
    with pytest.raises(InvalidOptionError, match=r"\.gif or \.mp4"):
        RecordEpisode(make_env("mole_hill", render_mode="rgb_array"), tmp_path / "x.avi")


def test_save_animation_without_imageio_names_the_extra(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "imageio", None)  # import now fails
    frame = np.zeros((16, 16, 3), np.uint8)
    with pytest.raises(MissingExtraError) as info:
        save_animation([frame], tmp_path / "x.gif")
    message = str(info.value)
    assert "\n" not in message
    assert "recording a game needs the 'record' extra" in message and "[record]" in message
    assert not (tmp_path / "x.gif").exists()


def test_save_animation_mp4(tmp_path: Path) -> None:
    pytest.importorskip("imageio_ffmpeg")
    frames = [np.full((30, 41, 3), v, np.uint8) for v in (0, 120, 250)]  # odd sizes get padded
    path = save_animation(frames, tmp_path / "x.mp4", fps=3)
    assert path.stat().st_size > 0
    video = iio.imread(path, index=None, plugin="FFMPEG")
    assert video.shape[0] == 3 and video.shape[1:3] == (32, 48)
