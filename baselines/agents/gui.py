"""A person plays with the mouse in a pygame window (``tabletop-zoo play --gui``).

The window shows a status band, the game's picture with the legal targets marked, and a
panel with a prompt and buttons; what can be clicked comes from the ``Picker`` of the
game's ``GameSpec.gui``. Closing the window or Escape abandons the game. Needs the
``render`` extra; tests drive it headless (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.human import GameAbandoned
from tabletop_zoo.envs._display import (
    Choice,
    LastMove,
    band_height,
    band_lines,
    move_of,
    status_lines,
    with_status,
    wrap,
)
from tabletop_zoo.envs._render import blank_image, draw_segment, draw_text, fill_rect, fill_ring
from tabletop_zoo.envs._render import text_size as bitmap_text_size
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import spec_of

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


class PlayWindow:
    """The window of one game of ``env`` (its ``renderer`` draws the pictures): shows every
    position and turns clicks into actions for the seats ``humans``; an agent's move stays
    on screen ``delay`` seconds. ``start`` and ``step`` are the arena's ``on_start`` /
    ``on_step`` hooks; ``on_wait(window, choices)`` is called each time the window waits for
    a click (tests post synthetic mouse events from it)."""

    def __init__(
        self,
        env: Any,
        humans: Collection[int] = (0,),
        delay: float = 0.6,
        on_wait: Callable[[PlayWindow, list[Choice]], None] | None = None,
    ) -> None:
        raw = env.unwrapped
        spec = spec_of(raw.engine)
        gui = spec.gui_module()
        if gui is None:
            raise InvalidOptionError(f"{spec.name} has no play window (its GameSpec has no gui)")
        require_extra("render", "the play window (--gui)")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self.pygame = pygame
        self.picker = gui.Picker(raw.renderer)
        self.title = f"tabletop-zoo: {spec.title}"
        self.humans = set(humans)
        self.delay = delay
        self.on_wait = on_wait
        self._screen: Any = None
        self._buttons: list[tuple[tuple[int, int, int, int], Choice]] = []
        self.picture_top = 0
        self.hover: Choice | None = None
        self.last_frame: np.ndarray | None = None
        self.last_lines: list[str] = []
        self.moves: list[str] = []
        self.last: LastMove | None = None
        self.truncated = False
        self._before: Any = None

    def start(self, env: Any) -> None:
        """``on_start`` hook: the first position."""
        state = env.unwrapped.game_state
        self.moves, self.last, self.truncated = [], None, False
        self._before = state.clone()
        self.show(state)

    def step(self, env: Any, seat: int, action: int) -> None:
        """``on_step`` hook: show the position after ``seat`` played ``action``; an agent's
        move stays on screen for ``delay`` seconds."""
        raw = env.unwrapped
        state = raw.game_state
        self.last = move_of(self._before, action)
        self.moves.append(self.last.notation)
        self.truncated = any(raw.truncations.values())
        self._before = state.clone()
        self.show(state)
        if seat not in self.humans and self.delay > 0 and not self.pause(self.delay):
            raise GameAbandoned("the window was closed")

    def finish(self, env: Any, linger: bool = True) -> None:
        """Show the result; with ``linger`` wait until the person closes the window."""
        self.show(env.unwrapped.game_state, "game over: close the window to leave")
        while linger and self.pause(0.2):
            pass
        self.close()

    def status(self, state: Any) -> list[str]:
        """The status band's lines for ``state`` after the moves seen so far."""
        return status_lines(state, len(self.moves), self.last, self.truncated)

    def compose(
        self, state: Any, lines: list[str], prompt: str = "", choices: Sequence[Choice] = ()
    ) -> np.ndarray:
        """The whole window as an image; remembers where the buttons and picture are."""
        picture = self.picker.draw(state).copy()
        for choice in choices:
            if not choice.is_button:
                _mark(picture, choice, choice == self.hover)
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
            colour = (
                HOVER if choice == self.hover else BUTTON_SELECTED if choice.selected else BUTTON
            )
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
        if self._screen is None:
            pygame.display.init()
            pygame.display.set_caption(self.title)
        if self._screen is None or size != self._screen.get_size():
            self._screen = pygame.display.set_mode(size)
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self.last_frame = frame

    def show(self, state: Any, prompt: str = "") -> None:
        """Draw ``state`` with nothing to click."""
        self.last_lines = self.status(state)
        self.present(self.compose(state, self.last_lines, prompt))

    def hit(self, x: int, y: int, choices: Sequence[Choice]) -> Choice | None:
        """The choice under window pixel ``(x, y)``, if any."""
        for (y0, x0, y1, x1), choice in self._buttons:
            if y0 <= y < y1 and x0 <= x < x1:
                return choice
        for choice in choices:
            if not choice.is_button and choice.hit(y - self.picture_top, x):
                return choice
        return None

    def choose(self, state: Any) -> int | None:
        """Wait until the person clicks their way to a legal action; ``None`` if they quit
        (window closed or Escape)."""
        pygame = self.pygame
        selection: tuple = ()
        self.hover = None
        self.last_lines = self.status(state)
        while True:
            prompt, choices = self.picker.choices(state, selection)
            self.present(self.compose(state, self.last_lines, prompt, choices))
            if self.on_wait is not None:
                self.on_wait(self, choices)
            event = pygame.event.wait(200)
            events = [event, *pygame.event.get()] if event.type != pygame.NOEVENT else []
            for event in events:
                if self._quits(event):
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

    def _quits(self, event: Any) -> bool:
        """The window was closed or Escape pressed."""
        pygame = self.pygame
        return event.type == pygame.QUIT or (
            event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
        )

    def pause(self, seconds: float) -> bool:
        """Keep the window responsive for ``seconds``; False if the person closed it."""
        pygame = self.pygame
        end = time.monotonic() + seconds
        while True:
            if any(self._quits(event) for event in pygame.event.get()):
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


class WindowAgent:
    """A person's seat played with the mouse in a :class:`PlayWindow`; ``act`` raises
    :class:`~.human.GameAbandoned` when the person closes the window."""

    def __init__(self, window: PlayWindow, name: str = "you") -> None:
        self.window = window
        self.name = name

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any) -> int:
        """The action the person clicks (always one of ``state.legal_actions()``)."""
        action = self.window.choose(state)
        if action is None:
            raise GameAbandoned("the window was closed")
        return action


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
