"""Play any game of :data:`~tabletop_zoo.envs.registry.GAMES` with the mouse in a pygame
window, against any agents (``scripts/play.py --gui``).

The window shows, from top to bottom: a status band (last move in notation, round or
phase, who is to act or the final result, scores), the game's ``rgb_array`` picture with
the legal targets marked, and a panel with a prompt and buttons. What can be clicked comes
from the game's ``envs/<game>/gui.py`` ``Picker`` (its ``choices(state, selection)``):
clicking a choice either plays an action or narrows the selection (e.g. the stack to
move, then its target, then how many pieces). Closing the window or pressing Escape
abandons the game.

Example (a person plays seat 0 against the greedy agent)::

    from tabletop_zoo.baselines.gui import play_in_window
    play_in_window("mole_hill", ["human", "greedy"], seed=1)

Needs the ``render`` extra (pygame). Tests drive it headless (``SDL_VIDEODRIVER=dummy``)
with synthetic mouse events through the ``on_wait`` hook.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_zoo.envs._display import (
    Choice,
    LastMove,
    band_height,
    band_lines,
    game_gui,
    status_lines,
    with_status,
    wrap,
)
from tabletop_zoo.envs._extras import require
from tabletop_zoo.envs._render import blank_image, draw_segment, draw_text, fill_rect, fill_ring
from tabletop_zoo.envs._render import text_size as bitmap_text_size
from tabletop_zoo.envs.registry import get_spec, make_raw_env

__all__ = ["HUMAN", "PlayWindow", "WindowResult", "play_in_window"]

HUMAN = "human"
TARGET = (250, 210, 40)
SELECTED = (220, 40, 40)
HOVER = (255, 255, 255)
PANEL = (235, 235, 228)
BUTTON = (210, 215, 225)
BUTTON_SELECTED = (250, 210, 40)
INK = (20, 20, 20)
BAND_LINES = 4
PANEL_HEIGHT = 110
BUTTON_HEIGHT = 26
SCALE = 2


@dataclass
class WindowResult:
    """How a game in the window ended: ``finished`` False when the person quit."""

    finished: bool
    scores: list[int]
    returns: list[float]
    moves: list[str]


class PlayWindow:
    """The window: draws positions and turns clicks into actions.

    Args:
        game: a name in ``GAMES``.
        engine: the engine's Game object (``env.unwrapped.engine`` / ``new_game(...)``).
        on_wait: called as ``on_wait(window, choices)`` every time the window waits for a
            click (tests post synthetic mouse events from it).
    """

    def __init__(
        self,
        game: str,
        engine: Any,
        on_wait: Callable[[PlayWindow, list[Choice]], None] | None = None,
    ) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        self.pygame = require("pygame", "render", "the play window")
        self.spec = get_spec(game)
        self.picker = game_gui(self.spec).Picker(engine)
        self.on_wait = on_wait
        self._screen: Any = None
        self._size: tuple[int, int] = (0, 0)
        self._buttons: list[tuple[tuple[int, int, int, int], Choice]] = []
        self.picture_top = 0
        self.hover: Choice | None = None
        self.last_frame: np.ndarray | None = None
        self.last_lines: list[str] = []
        self.prompt = ""

    # ------------------------------------------------------------ drawing
    def compose(
        self,
        state: Any,
        lines: list[str],
        prompt: str = "",
        choices: Sequence[Choice] = (),
    ) -> np.ndarray:
        """The whole window as an image; remembers where the buttons and picture are."""
        picture = self.picker.draw(state).copy()
        for choice in choices:
            if not choice.is_button:
                _mark(picture, choice, choice is self.hover)
        width = max(picture.shape[1], 420)
        if picture.shape[1] < width:
            wide = blank_image(picture.shape[0], width, tuple(int(v) for v in picture[0, 0]))
            wide[:, : picture.shape[1]] = picture
            picture = wide
        wrapped = len(band_lines(lines, width))
        top = with_status(picture, lines, min_lines=max(BAND_LINES, wrapped))
        self.picture_top = band_height(max(BAND_LINES, wrapped))
        panel = blank_image(PANEL_HEIGHT, width, PANEL)
        prompt_lines = wrap(prompt, width - 16)[:2] if prompt else []
        for k, line in enumerate(prompt_lines):
            draw_text(panel, line, 6 + 14 * k, 8, SCALE, INK)
        self._buttons = []
        x, y = 8, 10 + 14 * max(1, len(prompt_lines))
        for choice in choices:
            if not choice.is_button:
                continue
            w = bitmap_text_size(choice.label, SCALE)[1] + 16
            if x + w > width - 8:
                x, y = 8, y + BUTTON_HEIGHT + 6
            colour = BUTTON_SELECTED if choice.selected else BUTTON
            if choice is self.hover:
                colour = HOVER
            fill_rect(panel, y, x, y + BUTTON_HEIGHT, x + w, (90, 90, 90))
            fill_rect(panel, y + 1, x + 1, y + BUTTON_HEIGHT - 1, x + w - 1, colour)
            draw_text(panel, choice.label, y + (BUTTON_HEIGHT - 5 * SCALE) // 2, x + 8, SCALE, INK)
            self._buttons.append(
                ((top.shape[0] + y, x, top.shape[0] + y + BUTTON_HEIGHT, x + w), choice)
            )
            x += w + 8
        return np.concatenate([top, panel])

    def present(self, frame: np.ndarray) -> None:
        """Show ``frame`` in the window (opened, or resized, to fit it)."""
        pygame = self.pygame
        size = (frame.shape[1], frame.shape[0])
        if self._screen is None or size != self._size:
            if self._screen is None:
                pygame.display.init()
                pygame.display.set_caption(f"tabletop-zoo: {self.spec.title}")
            self._screen = pygame.display.set_mode(size)
            self._size = size
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self.last_frame = frame

    def show(self, state: Any, lines: list[str], prompt: str = "") -> None:
        """Draw a position without anything to click."""
        self.last_lines = lines
        self.prompt = prompt
        self.present(self.compose(state, lines, prompt))

    def button_centre(self, choice: Choice) -> tuple[int, int]:
        """Window pixel ``(x, y)`` at the middle of a button shown in the last frame."""
        for (y0, x0, y1, x1), shown in self._buttons:
            if shown == choice:
                return (x0 + x1) // 2, (y0 + y1) // 2
        raise ValueError(f"button {choice.label!r} is not shown")

    def spot_centre(self, choice: Choice) -> tuple[int, int]:
        """Window pixel ``(x, y)`` at the middle of a spot on the picture."""
        if choice.spot is not None:
            y, x, _ = choice.spot
        elif choice.box is not None:
            y0, x0, y1, x1 = choice.box
            y, x = (y0 + y1) / 2, (x0 + x1) / 2
        else:
            return self.button_centre(choice)
        return int(x), int(y + self.picture_top)

    def hit(self, x: int, y: int, choices: Sequence[Choice]) -> Choice | None:
        """The choice under window pixel ``(x, y)``, if any."""
        for (y0, x0, y1, x1), choice in self._buttons:
            if y0 <= y < y1 and x0 <= x < x1:
                return choice
        for choice in choices:
            if not choice.is_button and choice.hit(y - self.picture_top, x):
                return choice
        return None

    # ------------------------------------------------------------ input
    def choose(self, state: Any, lines: list[str]) -> int | None:
        """Wait until the person clicks their way to a legal action; ``None`` if they quit
        (window closed or Escape)."""
        pygame = self.pygame
        selection: tuple = ()
        self.hover = None
        while True:
            prompt, choices = self.picker.choices(state, selection)
            self.prompt = prompt
            self.last_lines = lines
            self.present(self.compose(state, lines, prompt, choices))
            if self.on_wait is not None:
                self.on_wait(self, choices)
            event = pygame.event.wait(200)
            events = [event, *pygame.event.get()] if event.type != pygame.NOEVENT else []
            for event in events:
                if event.type == pygame.QUIT:
                    return None
                if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                    return None
                if event.type == pygame.MOUSEMOTION:
                    self.hover = self.hit(*event.pos, choices)
                elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                    clicked = self.hit(*event.pos, choices)
                    if clicked is None:
                        continue
                    if clicked.play is not None:
                        return clicked.play
                    selection = clicked.selection
                    break  # new choices for the new selection

    def pause(self, seconds: float) -> bool:
        """Keep the window responsive for ``seconds``; False if the person closed it."""
        pygame = self.pygame
        end = time.monotonic() + seconds
        while True:
            for event in pygame.event.get():
                if event.type == pygame.QUIT or (
                    event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
                ):
                    return False
            left = end - time.monotonic()
            if left <= 0:
                return True
            time.sleep(min(left, 0.05))

    def close(self) -> None:
        """Close the window."""
        if self._screen is not None:
            self.pygame.display.quit()
            self._screen = None


def _mark(picture: np.ndarray, choice: Choice, hover: bool) -> None:
    """Mark a clickable spot on the picture: a ring (red when selected, white under the
    mouse), or a line along a rod's edge."""
    colour = HOVER if hover else SELECTED if choice.selected else TARGET
    if choice.spot is not None:
        y, x, r = choice.spot
        width = 4 if hover or choice.selected else 3
        fill_ring(picture, y, x, r, r - width, colour)
    elif choice.box is not None:
        y0, x0, y1, x1 = choice.box
        a, b = ((y0 + y1) / 2, x0), ((y0 + y1) / 2, x1)
        if y1 - y0 > x1 - x0:  # a vertical edge
            a, b = (y0, (x0 + x1) / 2), (y1, (x0 + x1) / 2)
        draw_segment(picture, a, b, 5 if hover else 2, colour)


def play_in_window(
    game: str,
    specs: Sequence[str],
    seed: int | None = None,
    delay: float = 0.6,
    linger: bool = True,
    on_wait: Callable[[PlayWindow, list[Choice]], None] | None = None,
    **env_options: Any,
) -> WindowResult:
    """Play one game in the window; ``specs[i]`` is ``"human"`` or an agent spec for seat i.

    Agents' moves are shown for ``delay`` seconds. At the end the result stays on screen
    until the window is closed (``linger=False`` returns at once).
    """
    from tabletop_zoo.baselines import make_agent
    from tabletop_zoo.baselines.arena import agent_seeds

    env = make_raw_env(game, num_players=len(specs), **env_options)
    agents = [
        None if spec == HUMAN else make_agent(spec, seed=agent_seed)
        for spec, agent_seed in zip(specs, agent_seeds(seed, len(specs)), strict=True)
    ]
    for agent, agent_seed in zip(agents, agent_seeds(seed, len(specs)), strict=True):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(seed=agent_seed)
    env.reset(seed=seed)
    window = PlayWindow(game, _engine_of(env), on_wait=on_wait)
    names = list(env.possible_agents)
    moves: list[str] = []
    last: LastMove | None = None
    finished = True
    was_truncated = False
    try:
        for name in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                was_truncated = was_truncated or truncated
                env.step(None)
                continue
            seat = names.index(name)
            state = env.unwrapped.game
            lines = status_lines(state, len(moves), last)
            agent = agents[seat]
            if agent is None:
                action = window.choose(state, lines)
                if action is None:
                    finished = False
                    break
            else:
                window.show(state, lines, f"{name} ({specs[seat]}) is thinking...")
                action = int(agent.act(obs["observation"], obs["action_mask"], state))
            last = LastMove(seat, state.action_to_string(action))  # before it is applied
            env.step(action)
            moves.append(last.notation)
            if agent is not None and delay > 0:
                state = env.unwrapped.game
                window.show(state, status_lines(state, len(moves), last), "")
                if not window.pause(delay):
                    finished = False
                    break
        state = env.unwrapped.game
        lines = status_lines(state, len(moves), last, was_truncated)
        end = "game abandoned" if not finished else "close the window to leave"
        window.show(state, lines, end)
        if linger and finished:
            while window.pause(0.2):
                pass
    finally:
        window.close()
    scores = [int(s) for s in state.scores()]
    returns = [float(r) for r in state.returns()] if state.is_terminal() else []
    return WindowResult(finished, scores, returns, moves)


def _engine_of(env: Any) -> Any:
    """The engine's Game object behind a raw env (``engine`` once every env has it)."""
    raw = env.unwrapped
    engine = getattr(raw, "engine", None)
    return engine if engine is not None else raw.game.game
