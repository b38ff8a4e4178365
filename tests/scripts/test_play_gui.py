"""scripts/play.py --gui: the window game through the script, and its missing-extra line."""

from __future__ import annotations

import sys

import pytest

from tabletop_zoo.envs.registry import GAMES
from tests.baselines.gui_clicks import spot_centre

pygame = pytest.importorskip("pygame")


def first_target(window, choices) -> None:
    """Click the first choice that plays a move, else the last one that leads to one (so
    an Arktia player soon stops: a short game)."""
    choice = next((c for c in choices if c.play is not None), None)
    choice = choice or [c for c in choices if c.actions and not c.selected][-1]
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot_centre(window, choice), button=1)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [n if n != "mole_hill" else pytest.param(n, marks=pytest.mark.slow) for n in sorted(GAMES)],
)
def test_play_gui_plays_a_whole_game(script, name: str, capsys) -> None:
    play = script("play")
    specs = ["random", "human"]
    assert play.play_gui(name, specs, seed=4, delay=0, linger=False, on_wait=first_target)
    out = capsys.readouterr().out
    assert "game over; scores: player_0" in out


def test_gui_flag_without_pygame_prints_one_line(script, monkeypatch, capsys) -> None:
    play = script("play")
    monkeypatch.setitem(sys.modules, "pygame", None)
    assert play.main(["--gui", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--gui needs the 'render' extra" in err


@pytest.mark.slow
def test_a_lingering_window_says_in_the_terminal_how_to_leave(script, monkeypatch, capsys) -> None:
    play = script("play")
    waits = []
    # the person closes the window at the first wait after the game (delay 0: no other wait)
    monkeypatch.setattr(play.PlayWindow, "pause", lambda self, seconds: waits.append(1) and False)
    assert play.play_gui(sorted(GAMES)[0], ["greedy", "random"], seed=1, delay=0, linger=True)
    out = capsys.readouterr().out
    assert out.index("game over; scores:") < out.index("close it or press Escape to leave")
    assert waits == [1]
