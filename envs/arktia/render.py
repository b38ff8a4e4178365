"""Drawing Arktia positions: ``rgb_array`` images (numpy only).

Images use the shared primitives of :mod:`tabletop_zoo.envs.drawing.raster`, so they need no
pygame (``human`` mode shows them in a pygame window through ``raster.HumanWindow``).

Pictures: ice tiles are pale hexes with their name (``a1``...) inside the bottom corner,
melted tiles dark water-blue hexes; a Torus is a ring, a Diskus a disc, a Globus a small
ball with a highlight, all in the owner's colour with a dark outline. Stacks are drawn
bottom to top, each level shifted up a little so the pieces underneath stay visible.
Below the board a legend line (the three piece shapes with their names, and a melted
tile), then one line per seat: the seat's colour (a black bar on its left when it is to
act, a black cross when its game has ended), its name and score, then one small piece per
piece still in its reserve. The hex size is chosen so that the board is about
:data:`TARGET_BOARD_WIDTH` pixels wide (never smaller than :data:`MIN_HEX_RADIUS`), so the
small 2-player board is drawn large enough to read its tile names.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop_zoo.envs.arktia import ArktiaGame, ArktiaState
from tabletop_zoo.envs.arktia.constants import NEUTRAL
from tabletop_zoo.envs.drawing.raster import (
    Color,
    blank_image,
    draw_segment,
    draw_text,
    fill_disc,
    fill_rect,
    fill_ring,
    text_size,
)

#: RGB colour per owner: seats 0..3 (red, blue, yellow, green), neutral grey.
OWNER_RGB: dict[int, Color] = {
    0: (214, 48, 49),
    1: (45, 105, 220),
    2: (240, 200, 30),
    3: (40, 160, 70),
    NEUTRAL: (160, 160, 160),
}
#: Colour names (they match the engine's colour letters r, b, y, g, n).
OWNER_NAMES: dict[int, str] = {0: "red", 1: "blue", 2: "yellow", 3: "green", NEUTRAL: "neutral"}

BACKGROUND: Color = (245, 245, 240)
ICE: Color = (222, 238, 250)
ICE_EDGE: Color = (120, 150, 175)
WATER: Color = (40, 80, 140)
WATER_EDGE: Color = (90, 130, 190)
OUTLINE: Color = (30, 30, 30)
LABEL: Color = (95, 115, 135)

SQRT3 = math.sqrt(3.0)
# piece sizes as fractions of the hex circumradius, the lift of the bottom piece above the
# hex centre (room for the tile name below it) and the upward shift per stack level
TORUS_OUTER, TORUS_INNER = 0.52, 0.30
DISKUS_RADIUS = 0.39
GLOBUS_RADIUS = 0.22
PIECE_LIFT = 0.1
LEVEL_SHIFT = 0.15
#: Board width the automatic hex size aims at, and the smallest hex radius (pixels).
TARGET_BOARD_WIDTH = 470
MIN_HEX_RADIUS = 36
KIND_NAMES = ("Globus", "Diskus", "Torus")


class ArktiaImageRenderer:
    """Draws positions of one layout as ``(height, width, 3)`` ``uint8`` arrays."""

    def __init__(self, game: ArktiaGame, hex_radius: int | None = None) -> None:
        """Precompute hex centres, label positions and the image size for ``game``'s layout.

        ``hex_radius`` (pixels): ``None`` picks one from the layout's width (see the module
        docstring).
        """
        layout = game.layout
        num_players = game.num_players
        self.game = game
        self.layout = layout
        self.num_players = num_players
        min_c = min(c for _, c in layout.coords)
        min_r = min(r for r, _ in layout.coords)
        span = max(c for _, c in layout.coords) - min_c  # in half hex widths
        if hex_radius is None:  # board width = (0.6 + (span + 2) * sqrt(3) / 2) radii
            hex_radius = max(
                MIN_HEX_RADIUS, int(TARGET_BOARD_WIDTH / (0.6 + (span + 2) * SQRT3 / 2))
            )
        s = self.s = float(hex_radius)
        margin = 0.3 * s
        half_w = SQRT3 / 2.0 * s  # half the width of a pointy-top hex
        # doubled columns: one text column is half a hex width, one text line 1.5 radii
        self.centres = [
            (margin + s + (r - min_r) * 1.5 * s, margin + half_w + (c - min_c) * half_w)
            for r, c in layout.coords
        ]  # (y, x) like the raster primitives
        board_w = max(x for _, x in self.centres) + half_w + margin
        board_h = max(y for y, _ in self.centres) + s + margin
        self.board_h = int(math.ceil(board_h))
        self.line_h = max(22, int(0.55 * s))
        self.text_scale = 2 if self.line_h < 34 else 3
        self.label_scale = max(1, int(s) // 18)
        self.labels = [self._label(name) for name in layout.names]
        self.width = int(math.ceil(max(board_w, self._panel_width())))
        self.height = self.board_h + self.line_h * (num_players + 1) + 4

    def _panel_width(self) -> int:
        """Width the panel needs: the legend line, or a seat line with a full reserve."""
        lh, scale = self.line_h, self.text_scale
        legend = 10 + sum(lh + text_size(name, scale)[1] + lh // 2 for name in KIND_NAMES)
        legend += lh + text_size("melted", scale)[1]
        piece_s = lh / 1.6
        seat = 16 + lh + text_size("player_0: 99", scale)[1] + lh // 2
        seat += 9 * int(piece_s * 1.3) + 3 * (lh // 3)
        return max(legend, seat) + 8

    def _label(self, name: str) -> tuple[str, int, int]:
        """``(name, dy, dx)``: the name and its top-left corner relative to the hex centre,
        placed inside the bottom corner of the hex."""
        h, w = text_size(name, self.label_scale)
        inner = self.s - 3.0  # radius of the ice fill
        # the lower hex edges at |dx| = w / 2 lie at dy = inner - (w / 2) / sqrt(3)
        bottom = inner - w / 2.0 / SQRT3
        return name, int(bottom - h - 1.0), -int(w / 2)

    def draw(self, state: ArktiaState) -> np.ndarray:
        """The picture of ``state``."""
        img = blank_image(self.height, self.width, BACKGROUND)
        s = self.s
        for t, (cy, cx) in enumerate(self.centres):
            alive = state.alive(t)
            _fill_hex(img, cy, cx, s - 1.0, ICE_EDGE if alive else WATER_EDGE)
            _fill_hex(img, cy, cx, s - 3.0, ICE if alive else WATER)
            name, dy, dx = self.labels[t]
            colour = LABEL if alive else WATER_EDGE
            draw_text(img, name, int(cy) + dy, int(cx) + dx, self.label_scale, colour)
            if alive:
                for lvl, (owner, kind) in enumerate(state.stack(t)):
                    y = cy - (PIECE_LIFT + lvl * LEVEL_SHIFT) * s
                    draw_piece(img, y, cx, s, kind, OWNER_RGB[owner])
        self._draw_panel(img, state)
        return img

    def _draw_panel(self, img: np.ndarray, state: ArktiaState) -> None:
        """The legend line, then one line per seat: colour swatch, name and score, reserve."""
        lh, scale = self.line_h, self.text_scale
        scores = state.scores()
        text_dy = (lh - 5 * scale) // 2
        piece_s = lh / 1.6  # a hex radius whose Torus fits in the line
        # legend: each kind's shape with its name, then a melted tile
        y0 = self.board_h + 2
        x = 10
        for kind, name in enumerate(KIND_NAMES):
            draw_piece(img, y0 + lh / 2, x + lh / 2, piece_s, kind, OWNER_RGB[NEUTRAL])
            x += lh
            draw_text(img, name, y0 + text_dy, x, scale, OUTLINE)
            x += text_size(name, scale)[1] + lh // 2
        _fill_hex(img, y0 + lh / 2, x + lh / 2, lh / 2 - 1, WATER_EDGE)
        _fill_hex(img, y0 + lh / 2, x + lh / 2, lh / 2 - 3, WATER)
        draw_text(img, "melted", y0 + text_dy, x + lh + 2, scale, OUTLINE)
        for seat in range(self.num_players):
            y0 = self.board_h + (seat + 1) * lh + 2
            fill_rect(img, y0 + 2, 10, y0 + lh - 2, 10 + lh - 4, OWNER_RGB[seat])
            if state.current_player == seat:
                fill_rect(img, y0 + 2, 2, y0 + lh - 2, 6, OUTLINE)
            if state.ended(seat):
                a, b = (y0 + 3, 11), (y0 + lh - 3, 10 + lh - 5)
                draw_segment(img, a, b, 2, OUTLINE)
                draw_segment(img, (a[0], b[1]), (b[0], a[1]), 2, OUTLINE)
            x = 16 + lh
            text = f"player_{seat}: {scores[seat]}"
            draw_text(img, text, y0 + text_dy, x, scale, OUTLINE)
            x += text_size("player_0: 99", scale)[1] + lh // 2
            for kind, count in enumerate(state.reserve(seat)):
                for _ in range(count):
                    draw_piece(img, y0 + lh / 2, x + piece_s * 0.6, piece_s, kind, OWNER_RGB[seat])
                    x += int(piece_s * 1.3)
                x += lh // 3


def _fill_hex(img: np.ndarray, cy: float, cx: float, r: float, color: Color) -> None:
    """Fill a pointy-top hexagon of circumradius ``r`` centred at ``(cy, cx)``."""
    h, w = img.shape[:2]
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 2)
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 2)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    adx, ady = np.abs(xx + 0.5 - cx), np.abs(yy + 0.5 - cy)
    inside = (adx <= SQRT3 / 2.0 * r) & (ady <= r - adx / SQRT3)
    img[y0:y1, x0:x1][inside] = color


def draw_piece(img: np.ndarray, cy: float, cx: float, s: float, kind: int, color: Color) -> None:
    """One piece for hex radius ``s``: kind 0 Globus (ball), 1 Diskus (disc), 2 Torus (ring)."""
    if kind == 2:
        fill_ring(img, cy, cx, TORUS_OUTER * s + 1.5, TORUS_INNER * s - 1.5, OUTLINE)
        fill_ring(img, cy, cx, TORUS_OUTER * s, TORUS_INNER * s, color)
        return
    r = (DISKUS_RADIUS if kind == 1 else GLOBUS_RADIUS) * s
    fill_disc(img, cy, cx, r + 1.5, OUTLINE)
    fill_disc(img, cy, cx, r, color)
    if kind == 0:
        light = (min(255, color[0] + 90), min(255, color[1] + 90), min(255, color[2] + 90))
        fill_disc(img, cy - 0.35 * r, cx - 0.35 * r, 0.3 * r, light)  # highlight
