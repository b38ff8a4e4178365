"""Shared image helpers (envs/drawing/raster.py)."""

from __future__ import annotations

import string

import numpy as np
import pytest

from tabletop_zoo.envs.drawing.raster import draw_text


def test_draw_text_has_every_letter_and_digit_for_tile_names() -> None:
    # custom Arktia layouts may have up to 26 rows (a..z), each needing its label
    for ch in string.ascii_lowercase + string.digits:
        img = np.zeros((5, 3, 3), np.uint8)
        draw_text(img, ch, 0, 0, 1, (255, 255, 255))
        assert img.any(), f"glyph {ch!r} draws nothing"


def test_draw_text_rejects_unknown_characters() -> None:
    with pytest.raises(ValueError, match="no glyph"):
        draw_text(np.zeros((5, 3, 3), np.uint8), "#", 0, 0, 1, (255, 255, 255))
