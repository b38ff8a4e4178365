"""Drawing Mole Hill positions: ``rgb_array`` images (numpy only).

Images use the shared primitives of :mod:`tabletop_zoo.envs.drawing.raster` (no pygame):
a checkered lawn, flowers in the top-left corner of their space, the centre hole, rods as
white bars on the edges, the trail as numbered pieces (light 1-10, dark 11-22) joined by
earth lines (thin for a jump), the mole's stack ringed in yellow and its possible
destinations dotted. Under the board a legend: the round and who plays which role, the
scores so far, and what the pieces and flowers are worth.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.drawing import raster
from tabletop_zoo.envs.mole_hill import board
from tabletop_zoo.envs.mole_hill.rules import (
    LIGHT_PIECES,
    MOLE_PIECES,
    NUM_ROUNDS,
    MoleHillGame,
    MoleHillState,
)

CELL = 56
MARGIN = 28
LAWN = ((104, 168, 80), (94, 156, 72))  # checkered lawn
GRID = (70, 120, 55)
RED = (215, 40, 40)
WHITE = (245, 245, 245)
YELLOW = (250, 215, 50)
EARTH = (110, 72, 40)
HOLE = (60, 40, 25)
LIGHT_PIECE = (240, 150, 50)
DARK_PIECE = (45, 35, 30)
ROD_EDGE = (40, 40, 40)
INK = (20, 20, 20)
PAPER = (235, 230, 215)
#: Height of the legend under the board: three lines of scale-2 text.
LEGEND_LINE = 18
LEGEND_HEIGHT = 3 * LEGEND_LINE + 8
BOARD_HEIGHT = MARGIN + board.ROWS * CELL + 8
#: The picture's size: the 7 x 9 board, then the legend.
HEIGHT, WIDTH = BOARD_HEIGHT + LEGEND_HEIGHT, MARGIN + board.COLS * CELL + 8


def space_centre(space: int) -> tuple[float, float]:
    """``(y, x)`` pixel centre of ``space`` in the picture."""
    row, col = divmod(space, board.COLS)
    return MARGIN + (row + 0.5) * CELL, MARGIN + (col + 0.5) * CELL


def edge_rect(edge: int, half: float, inset: float = 0.0) -> tuple[float, float, float, float]:
    """``(y0, x0, y1, x1)`` of a bar ``2 * half`` thick along ``edge``, its ends ``inset``
    from the corners (a negative ``inset`` runs past them)."""
    a, b = board.EDGE_SPACES[edge]
    ay, ax = space_centre(a)
    if b == a + 1:  # vertical: the edge to the right of a
        x = ax + CELL / 2
        return ay - CELL / 2 + inset, x - half, ay + CELL / 2 - inset, x + half
    y = ay + CELL / 2  # horizontal: the edge below a
    return y - half, ax - CELL / 2 + inset, y + half, ax + CELL / 2 - inset


def _draw_flower(img: np.ndarray, y: float, x: float, colour: raster.Color) -> None:
    """Four petals of ``colour`` around a yellow heart centred at ``(y, x)``."""
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        raster.fill_disc(img, y + dy * 4, x + dx * 4, 4.5, colour)
    raster.fill_disc(img, y, x, 3, YELLOW)


class MoleHillImageRenderer:
    """Draws Mole Hill positions as ``(height, width, 3)`` ``uint8`` arrays."""

    def __init__(self, game: MoleHillGame) -> None:
        """The picture size is fixed by the 7 x 9 board."""
        self.game = game
        self.height, self.width = HEIGHT, WIDTH

    def draw(self, state: MoleHillState) -> np.ndarray:
        """The picture of ``state`` (:func:`draw_board`)."""
        return draw_board(state)


def draw_board(state: MoleHillState) -> np.ndarray:
    """RGB image of the position: lawn, flowers, centre hole, rods, numbered trail, mole,
    and the legend under the board."""
    img = raster.blank_image(HEIGHT, WIDTH, PAPER)
    for s in range(board.NUM_SPACES):
        r, c = divmod(s, board.COLS)
        y, x = MARGIN + r * CELL, MARGIN + c * CELL
        raster.fill_rect(img, y, x, y + CELL, x + CELL, GRID)
        raster.fill_rect(img, y + 1, x + 1, y + CELL - 1, x + CELL - 1, LAWN[(r + c) % 2])
    for c, letter in enumerate(board.COLUMN_LETTERS):
        raster.draw_text(img, letter, 8, MARGIN + c * CELL + CELL // 2 - 3, 2, INK)
    for r in range(board.ROWS):
        raster.draw_text(img, str(r + 1), MARGIN + r * CELL + CELL // 2 - 5, 8, 2, INK)
    cy, cx = space_centre(board.CENTRE)
    raster.fill_ring(img, cy, cx, 0.45 * CELL, 0.36 * CELL, HOLE)
    for spaces, colour in ((state.red_flowers, RED), (state.white_flowers, WHITE)):
        for s in spaces:  # a flower in the top-left corner stays visible under a piece
            fy, fx = space_centre(s)
            _draw_flower(img, fy - 0.3 * CELL, fx - 0.3 * CELL, colour)
    if not state.is_terminal() and state.mole_to_move:
        for s in state.mole_destinations():
            dy, dx = space_centre(s)
            raster.fill_disc(img, dy, dx, 4, YELLOW)
    trail = state.trail
    for p, q in zip(trail[:-1], trail[1:], strict=True):
        width = 3 if p == board.CENTRE else 7  # thin line for a jump
        raster.draw_segment(img, space_centre(p), space_centre(q), width, EARTH)
    for k, s in enumerate(trail):
        y, x = space_centre(s)
        light = k < LIGHT_PIECES
        raster.fill_disc(img, y, x, 0.3 * CELL, LIGHT_PIECE if light else DARK_PIECE)
        label = str(k + 1)
        th, tw = raster.text_size(label, 2)
        raster.draw_text(img, label, int(y - th / 2), int(x - tw / 2), 2, INK if light else WHITE)
    if trail:
        y, x = space_centre(trail[-1])
        raster.fill_ring(img, y, x, 0.46 * CELL, 0.36 * CELL, YELLOW)  # the mole's stack
    for e in state.rods:  # a white bar with a dark rim, a pixel past the corners
        raster.fill_rect(img, *map(int, edge_rect(e, 4, -1)), ROD_EDGE)
        raster.fill_rect(img, *map(int, edge_rect(e, 2, 1)), WHITE)
    draw_legend(img, state, BOARD_HEIGHT)
    return img


def legend_lines(state: MoleHillState) -> tuple[str, str]:
    """The round with the roles, and the scores (``"final scores"`` once the game is over)."""
    if state.is_terminal():
        first = f"game over after {NUM_ROUNDS} rounds"
        second = "final scores: "
    else:
        mole = state.mole_seat
        first = (
            f"round {state.round + 1} of {NUM_ROUNDS}: mole player_{mole}, "
            f"gardener player_{1 - mole}"
        )
        second = "scores so far: "
    scores = state.scores()
    second += ", ".join(f"player_{seat} {score}" for seat, score in enumerate(scores))
    return first, second


def draw_legend(img: np.ndarray, state: MoleHillState, top: int) -> None:
    """Under the board: round and roles, scores, and a key to the pieces and flowers."""
    x0 = MARGIN
    for k, line in enumerate(legend_lines(state)):
        raster.draw_text(img, line, top + 2 + k * LEGEND_LINE, x0, 2, INK)
    y = top + 2 + 2 * LEGEND_LINE + 5  # middle of the third line
    x = x0 + 6
    key = [
        (LIGHT_PIECE, f"1-{LIGHT_PIECES}: 0 points"),
        (DARK_PIECE, f"{LIGHT_PIECES + 1}-{MOLE_PIECES}: 1 point each"),
    ]
    for colour, text in [*key, (RED, "2"), (WHITE, "1")]:
        if colour in (RED, WHITE):
            _draw_flower(img, y, x, colour)
        else:
            raster.fill_disc(img, y, x, 7, colour)
        raster.draw_text(img, text, y - 5, x + 12, 2, INK)
        x += 12 + raster.text_size(text, 2)[1] + 18
