"""The play window, driven headless (SDL dummy driver) by synthetic pygame mouse events."""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.gui import PlayWindow, WindowAgent
from tabletop_zoo.baselines.agents.human import GameAbandoned
from tabletop_zoo.baselines.evaluation.arena import make_env, play_game
from tabletop_zoo.envs.drawing.status import Choice
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import MissingExtraError
from tabletop_zoo.envs.registry import GAMES, extended
from tests.baselines.gui_clicks import button_centre, spot_centre
from tests.envs import nim_game
from tests.envs.nim_game import NIM_SPEC

pygame = pytest.importorskip("pygame")


@dataclass
class Played:
    finished: bool
    moves: list[str]
    returns: list[float]
    window: PlayWindow


def play_in_window(game: str, specs: list[str], seed: int, on_wait=None) -> Played:
    """What ``scripts/play.py --gui`` does: the arena with a WindowAgent per person."""
    env = make_env(game, num_players=len(specs))
    humans = {i for i, s in enumerate(specs) if s == "human"}
    window = PlayWindow(env, humans=humans, delay=0, on_wait=on_wait)
    agents = [
        WindowAgent(window) if s == "human" else make_agent(s, seed=i) for i, s in enumerate(specs)
    ]
    try:
        play_game(env, agents, seed=seed, on_start=window.start, on_step=window.step)
    except GameAbandoned:
        window.close()
        return Played(False, window.moves, [], window)
    state = env.unwrapped.game_state
    window.finish(env, linger=False)
    return Played(True, window.moves, list(state.returns()), window)


class Clicker:
    """Plays like a person: picks a legal action at random, then clicks its way to it
    through whatever the window shows (spot or button), one click per wait."""

    def __init__(self, seed: int, avoid_stop: bool = True) -> None:
        self.rng = random.Random(seed)
        self.avoid_stop = avoid_stop
        self.target: int | None = None
        self.clicks = 0
        self.played: list[int] = []
        self.shown_legal: list[set[int]] = []

    def __call__(self, window, choices: list[Choice]) -> None:
        offered = set().union(*(c.actions for c in choices))
        if self.target is None or self.target not in offered:
            pool = sorted(offered)
            if self.avoid_stop and len(pool) > 1:
                pool = [a for a in pool if not any(c.label == "stop" and a in c.actions
                                                   for c in choices)]  # fmt: skip
            self.target = self.rng.choice(pool)
            self.shown_legal.append(offered)
        path = [c for c in choices if c.play == self.target]
        path = path or [c for c in choices if self.target in c.actions and not c.selected]
        choice = path[0]
        if choice.play == self.target:
            self.played.append(self.target)
            self.target = None
        x, y = spot_centre(window, choice)
        pygame.event.post(
            pygame.event.Event(pygame.MOUSEMOTION, pos=(x, y), rel=(0, 0), buttons=(0, 0, 0))
        )
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))
        self.clicks += 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "players"),
    [
        ("mole_hill", 2),
        *(pytest.param(*c, marks=pytest.mark.slow) for c in [("arktia", 2), ("arktia", 3)]),
    ],
)
def test_a_full_game_played_with_the_mouse_against_a_random_agent(name, players) -> None:
    clicker = Clicker(seed=players)
    specs = ["human"] + ["random"] * (players - 1)
    result = play_in_window(name, specs, seed=7, on_wait=clicker)
    assert result.finished
    assert len(result.returns) == players  # the game reached its end
    assert clicker.played  # the person's moves came from clicks
    assert clicker.clicks >= len(clicker.played)
    # every human move appears in the game record in the person's turns
    assert len(result.moves) > len(clicker.played)


@pytest.mark.slow
def test_the_window_shows_status_and_the_final_result() -> None:
    shown = []

    def watch(window, choices):
        shown.append(list(window.last_lines))
        Clicker(seed=len(shown))(window, choices)

    result = play_in_window("mole_hill", ["human", "greedy"], seed=1, on_wait=watch)
    assert result.finished
    assert shown[0][0] == "start of the game"
    assert shown[0][1].endswith("to act: player_0 (mole)")
    assert shown[1][0].startswith("move 2: player_1 (gardener) played ")
    assert all(lines[2].startswith("scores: player_0") for lines in shown)


@pytest.mark.slow
def test_stop_needs_a_second_click_to_confirm() -> None:
    spec = GAMES["arktia"]
    steps: list[str] = []

    def stop_when_possible(window, choices):
        labels = [c.label for c in choices]
        if "yes, stop" in labels:
            wanted = "no" if steps.count("asked") == 0 else "yes, stop"
            steps.append("asked")
            choice = next(c for c in choices if c.label == wanted)
            steps.append(wanted)
        elif "stop" in labels:
            choice = next(c for c in choices if c.label == "stop")
        else:
            Clicker(seed=len(steps))(window, choices)
            steps.append("move")
            return
        x, y = button_centre(window, choice)
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))

    result = play_in_window(spec.name, ["human", "random"], seed=3, on_wait=stop_when_possible)
    assert result.finished
    assert steps.count("no") == 1 and steps.count("yes, stop") == 1
    assert "stop" in result.moves  # played once, after the confirmation


def test_closing_the_window_abandons_the_game() -> None:
    def close(window, choices):
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    result = play_in_window("mole_hill", ["human", "random"], seed=0, on_wait=close)
    assert not result.finished and result.moves == [] and result.returns == []


def test_clicks_outside_any_target_change_nothing() -> None:
    calls = []

    def miss_then_quit(window, choices):
        calls.append(len(choices))
        if len(calls) == 1:
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(2, 2), button=1))
        else:
            pygame.event.post(pygame.event.Event(pygame.QUIT))

    result = play_in_window("mole_hill", ["human", "random"], seed=0, on_wait=miss_then_quit)
    assert calls == [63, 63] and result.moves == []  # still the first placement


def test_a_game_without_gui_has_no_play_window_and_says_so() -> None:
    with extended(NIM_SPEC), pytest.raises(InvalidOptionError, match="nim has no play window"):
        PlayWindow(nim_game.env(render_mode="rgb_array"))


def test_without_pygame_the_window_names_the_render_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(MissingExtraError) as info:
        PlayWindow(make_env("mole_hill"))
    assert "[render]" in str(info.value) and "\n" not in str(info.value)


def test_the_spot_under_the_mouse_is_ringed_in_white() -> None:
    seen = []

    def hover_then_quit(window, choices):
        spot = next(c for c in choices if c.spot is not None)
        if not seen:
            seen.append(spot)
            x, y = spot_centre(window, spot)
            pygame.event.post(
                pygame.event.Event(pygame.MOUSEMOTION, pos=(x, y), rel=(0, 0), buttons=(0, 0, 0))
            )
            return
        cy, cx, r = spot.spot
        ring = window.last_frame[int(cy) + window.picture_top, int(cx + r - 2)]
        seen.append(tuple(int(v) for v in ring))
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    play_in_window("mole_hill", ["human", "random"], seed=0, on_wait=hover_then_quit)
    assert seen[1] == (255, 255, 255)
