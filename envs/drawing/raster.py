"""Shared rendering helpers: numpy drawing primitives and a pygame window for ``human`` mode.

Images are ``(height, width, 3)`` ``uint8`` arrays drawn with numpy only, so
``rgb_array`` works without pygame. pygame is imported lazily by
:class:`HumanWindow` on the first ``human`` render (headless runs can set
``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.envs.extras import install_command

Color = tuple[int, int, int]


def blank_image(height: int, width: int, color: Color) -> np.ndarray:
    """A ``(height, width, 3)`` ``uint8`` image filled with ``color``."""
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = color
    return img


def fill_rect(img: np.ndarray, y0: int, x0: int, y1: int, x1: int, color: Color) -> None:
    """Fill rows ``y0..y1-1`` and columns ``x0..x1-1`` (clipped to the image)."""
    h, w = img.shape[:2]
    img[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)] = color


def fill_disc(img: np.ndarray, cy: float, cx: float, radius: float, color: Color) -> None:
    """Fill a disc centred at ``(cy, cx)`` (pixel units): a ring with no hole."""
    fill_ring(img, cy, cx, radius, 0.0, color)


def fill_ring(
    img: np.ndarray, cy: float, cx: float, outer: float, inner: float, color: Color
) -> None:
    """Fill the annulus between radii ``inner`` and ``outer``."""
    h, w = img.shape[:2]
    y0, y1 = max(0, int(cy - outer)), min(h, int(cy + outer) + 2)
    x0, x1 = max(0, int(cx - outer)), min(w, int(cx + outer) + 2)
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2
    img[y0:y1, x0:x1][(d2 <= outer**2) & (d2 >= inner**2)] = color


def draw_segment(
    img: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], width: float, color: Color
) -> None:
    """A thick line segment from ``p0`` to ``p1`` (``(y, x)`` points) with round ends."""
    (ay, ax), (by, bx) = p0, p1
    r = width / 2
    h, w = img.shape[:2]
    y0, y1 = max(0, int(min(ay, by) - r)), min(h, int(max(ay, by) + r) + 2)
    x0, x1 = max(0, int(min(ax, bx) - r)), min(w, int(max(ax, bx) + r) + 2)
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.ogrid[y0:y1, x0:x1]
    py, px = yy + 0.5 - ay, xx + 0.5 - ax
    dy, dx = by - ay, bx - ax
    length2 = dy * dy + dx * dx or 1.0
    t = np.clip((py * dy + px * dx) / length2, 0.0, 1.0)  # projection onto the segment
    d2 = (py - t * dy) ** 2 + (px - t * dx) ** 2
    img[y0:y1, x0:x1][d2 <= r * r] = color


# 3x5 bitmap glyphs (rows top to bottom, "1" = ink) for labels on images; "@" is 5 wide.
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001010010010", "8": "111101111101111",
    "9": "111101111001111", "a": "010101111101101", "b": "110101110101110",
    "c": "011100100100011", "d": "110101101101110", "e": "111100110100111",
    "f": "111100110100100", "g": "011100101101011", "h": "101101111101101",
    "i": "111010010010111", "j": "001001001101010", "k": "101101110101101",
    "l": "100100100100111", "m": "101111111101101", "n": "110101101101101",
    "o": "010101101101010", "p": "110101110100100", "q": "010101101110011",
    "r": "110101110101101", "s": "011100010001110", "t": "111010010010010",
    "u": "101101101101111", "v": "101101101101010", "w": "101101111111101",
    "x": "101101010101101", "y": "101101010010010", "z": "111001010100111",
    "-": "000000111000000", " ": "000000000000000",
    # punctuation for status lines and legends (move notation uses "@" and "/")
    ":": "000010000010000", "/": "001001010100100", "@": "0111010001101111010101111",
    ",": "000000000010100", ".": "000000000000010", "(": "010100100100010",
    ")": "010001001001010", "=": "000111000111000", "+": "000010111010000",
    "|": "010010010010010", "!": "010010010000010", "_": "000000000000111",
    "?": "111001011000010",
}  # fmt: skip


def draw_text(img: np.ndarray, text: str, y: int, x: int, scale: int, color: Color) -> None:
    """Draw ``text`` (digits, letters drawn lower case, space and ``-:/@,.()=+|!_?``) with
    its top-left corner at ``(y, x)``: each glyph 3x5 cells of ``scale`` pixels (``@``:
    5x5), one empty cell between glyphs."""
    gx = x
    for ch in text.lower():
        bits = _GLYPHS.get(ch)
        if bits is None:
            raise ValueError(f"draw_text has no glyph for {ch!r}")
        width = len(bits) // 5
        for i, bit in enumerate(bits):
            if bit == "1":
                row, col = divmod(i, width)
                fill_rect(
                    img,
                    y + row * scale,
                    gx + col * scale,
                    y + (row + 1) * scale,
                    gx + (col + 1) * scale,
                    color,
                )
        gx += (width + 1) * scale


def text_size(text: str, scale: int) -> tuple[int, int]:
    """``(height, width)`` in pixels of ``text`` drawn by :func:`draw_text`."""
    cells = sum(len(_GLYPHS.get(ch, "0" * 15)) // 5 + 1 for ch in text.lower())
    return 5 * scale, max(0, cells - 1) * scale


class HumanWindow:
    """A pygame window showing RGB arrays, opened by the first :meth:`show`."""

    def __init__(self, caption: str, fps: int) -> None:
        self.caption = caption
        self.fps = fps
        self._screen: Any = None
        self._clock: Any = None

    def show(self, img: np.ndarray) -> None:
        """Display ``img`` (``(h, w, 3)`` uint8), opening the window if needed."""
        try:
            import pygame  # lazy: only human rendering needs pygame
        except ImportError:
            raise ImportError(
                f'render_mode="human" needs pygame: {install_command("render")} '
                '(or use render_mode="rgb_array", which needs no pygame)'
            ) from None

        h, w = img.shape[:2]
        if self._screen is None:
            pygame.display.init()
            pygame.display.set_caption(self.caption)
            self._screen = pygame.display.set_mode((w, h))
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(img.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        """Close the window if it is open."""
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = None
            self._clock = None
