"""Record episodes of any of our AEC envs as animations (GIF, or MP4 with imageio-ffmpeg) or
as one-file HTML replays.

:class:`RecordEpisode` wraps an env made with ``render_mode="rgb_array"`` and keeps one
frame per position (the start and after every action, plus the finished board of a round
the next one clears: :func:`~tabletop_zoo.envs.drawing.status.move_frames`), each with a status
band (:mod:`tabletop_zoo.envs.drawing.status`: move number, the move in notation and its mover,
who acts or the result, the scores); the file is written when the episode ends::

    env = RecordEpisode(make_env("mole_hill", render_mode="rgb_array"), path="game.gif")

Writing animations needs the ``record`` extra (imageio); MP4 the ``video`` extra
(imageio-ffmpeg). ``format="html"`` (any render mode) keeps every position's SVG picture
instead and writes a page that steps through the game (:mod:`.replay`, no extra needed);
given the ``agents``, it shows their analysis of each move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from tabletop_zoo.envs._files import atomic_path, write_bytes_atomic
from tabletop_zoo.envs.drawing.status import (
    LastMove,
    band_lines,
    move_frames,
    move_of,
    status_lines,
    with_status,
)
from tabletop_zoo.envs.drawing.svg import state_svg
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import spec_of
from tabletop_zoo.wrappers.replay import analysis_entry, frame, save_replay

#: File suffixes :func:`save_animation` writes.
FORMATS = (".gif", ".mp4")


def _even_size(frame: np.ndarray, block: int = 16) -> np.ndarray:
    """Pad ``frame`` with its top-left colour to a multiple of ``block`` pixels (video codecs)."""
    h, w = frame.shape[:2]
    if not h % block and not w % block:
        return frame
    return _pad_to(frame, h + -h % block, w + -w % block, frame[0, 0])


def save_animation(frames: list[np.ndarray], path: str | Path, fps: float = 2.0) -> Path:
    """Write ``frames`` (equal-size ``(h, w, 3)`` uint8) as ``.gif`` or ``.mp4``, atomically
    (a failed write leaves the previous file at ``path`` as it was, and no temporary file)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InvalidOptionError(
            f"cannot record to {path.name!r}: the file name must end in {' or '.join(FORMATS)}"
        )
    if not frames:
        raise InvalidOptionError("no frames to save: reset() and play at least the start")
    if not fps > 0:
        raise InvalidOptionError(f"fps must be a positive number, got {fps!r}")
    require_extra("record", "recording a game")
    import imageio.v3 as iio

    if suffix == ".mp4":
        require_extra("video", "recording an MP4")
    if suffix == ".gif":  # encoded in memory, then written: a failed write leaves imageio
        # no half-open file to retry when it is collected (its "Exception ignored" traceback)
        # duration per frame in milliseconds; loop=0 repeats forever
        data = iio.imwrite(
            "<bytes>", np.stack(frames), extension=".gif", duration=1000.0 / fps, loop=0
        )
        return write_bytes_atomic(path, data)
    with atomic_path(path) as temporary:  # the temporary name keeps the suffix (the format)
        video = np.stack([_even_size(f) for f in frames])
        iio.imwrite(temporary, video, plugin="FFMPEG", fps=fps, macro_block_size=1)
    return path


class RecordEpisode(BaseWrapper):
    """Keeps a status-banded frame of every position; saves the episode when it ends.

    Args:
        env: one of our AEC envs (raw or wrapped) with ``render_mode="rgb_array"`` (any
            render mode for ``format="html"``).
        path: where to write each finished episode (``.gif`` / ``.mp4`` / ``.html``);
            ``None`` keeps the frames in memory only (:attr:`frames`, :meth:`save`).
        fps: positions shown per second.
        final_hold: how many extra copies of the last frame to append, so the result
            stays on screen before a GIF loops.
        format: ``"gif"``, ``"mp4"`` or ``"html"``; default the suffix of ``path``
            (``"gif"`` without one).
        agents: the players, seat by seat (HTML only): each one that can keeps its
            analysis of every move (``keep_analysis``), which the page shows.
    """

    def __init__(
        self,
        env: AECEnv,
        path: str | Path | None = None,
        fps: float = 2.0,
        final_hold: int = 3,
        format: str | None = None,  # the word the callers know
        agents: Any = None,
    ) -> None:
        super().__init__(env)
        suffix = None if path is None else Path(path).suffix.lower()
        if format is None:  # the file name says, as it does for animations
            format = "html" if suffix == ".html" else "gif"
        if format not in ("gif", "mp4", "html"):
            raise InvalidOptionError(f"format must be 'gif', 'mp4' or 'html', got {format!r}")
        self.html = format == "html"
        suffixes = (".html",) if self.html else FORMATS
        if suffix is not None and suffix not in suffixes:
            raise InvalidOptionError(
                f"cannot record to {Path(path).name!r}: use a {' or '.join(suffixes)} file name"
            )
        if not self.html and env.render_mode != "rgb_array":
            raise InvalidOptionError(
                f"RecordEpisode needs an env made with render_mode='rgb_array', "
                f"got {env.render_mode!r}"
            )
        self.players = list(agents or [])
        for agent in self.players:
            if hasattr(agent, "keep_analysis"):
                agent.keep_analysis = True
        self.replay: list[dict[str, Any]] = []
        self.path = None if path is None else Path(path)
        self.fps = fps
        self.final_hold = final_hold
        self._pictures: list[tuple[np.ndarray, list[str]]] = []
        self._moves = 0
        self.saved: list[Path] = []

    # ------------------------------------------------------------ recording
    def _capture(self, state: Any, last: LastMove | None, lines: list[str]) -> None:
        if self.html:
            svg = state_svg(state, last, lines=lines)
            self.replay.append(frame(state, svg, lines, last))
        else:
            self._pictures.append((np.asarray(self.env.unwrapped.renderer.draw(state)), lines))

    def _analysis(self, state: Any) -> dict[str, Any] | None:
        """The analysis of the move about to be played from ``state`` (taken from its
        player, who keeps it until the next move)."""
        seat = state.current_player
        agent = self.players[seat] if seat < len(self.players) else None
        raw = getattr(agent, "last_analysis", None)
        if raw is None:
            return None
        agent.last_analysis = None  # a forced move next time is not this move's analysis
        return analysis_entry(state, getattr(agent, "name", type(agent).__name__), raw)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode (and a new recording)."""
        super().reset(seed=seed, options=options)
        self._pictures = []
        self.replay = []
        self._moves = 0
        state = self.env.unwrapped.game_state
        self._capture(state, None, status_lines(state, 0))

    def step(self, action: Any) -> None:
        """Play ``action`` and capture the new position; save when the episode is over."""
        raw = self.env.unwrapped
        agent = raw.agent_selection
        done = raw.terminations.get(agent, False) or raw.truncations.get(agent, False)
        was_over = self._episode_over()
        before = last = analysis = None
        if not done:
            before = raw.game_state.clone()
            last = move_of(before, action)
            if self.html:
                analysis = self._analysis(before)
        super().step(action)
        if last is not None:
            self._moves += 1
            first = len(self.replay)
            truncated = any(raw.truncations.values())
            for picture in move_frames(before, last, raw.game_state, self._moves, truncated):
                self._capture(*picture)
            if self.html:
                self.replay[first]["analysis"] = analysis
        if not was_over and self._episode_over() and self.path is not None:
            self.save(self.path)

    def _episode_over(self) -> bool:
        raw = self.env.unwrapped  # no agents left: over as well
        return all(raw.terminations[a] or raw.truncations[a] for a in raw.agents)

    # ------------------------------------------------------------ output
    @property
    def frames(self) -> list[np.ndarray]:
        """The recorded frames with their status bands, all of one size."""
        if not self._pictures:
            return []
        width = max(img.shape[1] for img, _ in self._pictures)
        lines = max(len(band_lines(text, width)) for _, text in self._pictures)
        frames = [with_status(img, text, min_lines=lines) for img, text in self._pictures]
        height = max(f.shape[0] for f in frames)
        if any(f.shape[:2] != (height, width) for f in frames):
            frames = [_pad_to(f, height, width, f[-1, -1]) for f in frames]
        return frames + [frames[-1]] * self.final_hold

    def save(self, path: str | Path) -> Path:
        """Write the frames so far to ``path`` (``.gif`` / ``.mp4``, or ``.html`` for
        ``format="html"``) and return it."""
        if self.html:
            title = spec_of(self.env.unwrapped.game_state).title
            names = [getattr(a, "name", type(a).__name__) for a in self.players]
            if names:
                title += ": " + " vs ".join(names)
            written = save_replay(self.replay, path, title)
        else:
            written = save_animation(self.frames, path, self.fps)
        self.saved.append(written)
        return written


def _pad_to(frame: np.ndarray, height: int, width: int, fill: np.ndarray) -> np.ndarray:
    """``frame`` in the top-left corner of a ``(height, width)`` picture of colour ``fill``."""
    out = np.empty((height, width, 3), dtype=np.uint8)
    out[:] = fill
    out[: frame.shape[0], : frame.shape[1]] = frame
    return out
