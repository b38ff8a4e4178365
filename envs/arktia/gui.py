"""Arktia in pictures: seat names, status text and clicks on the board picture.

Used by the generic status band of :mod:`tabletop_zoo.envs.drawing.status` (recordings) and by
the play window (:mod:`tabletop_zoo.baselines.agents.gui`).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tabletop_zoo.envs.arktia.layout import iter_bits
from tabletop_zoo.envs.arktia.render import OWNER_NAMES, ArktiaImageRenderer
from tabletop_zoo.envs.arktia.rules import ArktiaState
from tabletop_zoo.envs.drawing.status import Choice

#: Piece kinds G, D, T by name (R1).
KIND_NAMES = ("Globus", "Diskus", "Torus")
#: A tile's clickable disc, as a fraction of the hex radius (neighbouring discs never touch).
SPOT_RADIUS = 0.8

#: What each phase of :attr:`ArktiaState.phase` means, for status lines.
PHASE_TEXT = {
    "setup": "setup: neutral pieces",
    "opening": "opening: placing",
    "normal": "normal play",
    "melt": "melting a tile",
    "choose": "choosing a group",
}


def seat_label(state: ArktiaState, seat: int) -> str:
    """``"player_0 (red)"``: the seat and its colour."""
    return f"player_{seat} ({OWNER_NAMES[seat]})"


def status(state: ArktiaState) -> str:
    """Turn number and phase, e.g. ``"turn 7, normal play"``; a pending tie names the
    colour whose groups are offered."""
    text = f"turn {state.turn + 1}, {PHASE_TEXT[state.phase]}"
    colour = state.choosing_colour
    if state.phase == "choose" and colour is not None:
        text += f" ({OWNER_NAMES[colour]} groups tied)"
    return text


class Picker:
    """Clicks on the Arktia picture: pick a piece kind and click a tile to place; click a
    stack, then its target, then (if several may move) how many pieces; click a tile to
    melt or a tied group to keep; ``stop`` asks for confirmation.

    Selections: ``()``, ``("kind", k)``, ``("from", tile)``, ``("from", tile, target)``,
    ``("stop?",)``.
    """

    def __init__(self, renderer: ArktiaImageRenderer) -> None:
        """Built from the env's image renderer (``env.unwrapped.renderer``), whose hex
        centres the spots use."""
        self.renderer = renderer
        self.game = renderer.game
        self.codec = self.game.codec
        self.names = self.game.layout.names

    def draw(self, state: ArktiaState) -> np.ndarray:
        """The picture the spots of :meth:`choices` refer to."""
        return self.renderer.draw(state)

    def _spot(self, tile: int) -> tuple[float, float, float]:
        """``(y, x, radius)`` of a tile's clickable disc: its top where a disc of
        ``SPOT_RADIUS`` around the centre would reach, its bottom ending above the tile's
        name, so the target ring never runs over the label."""
        y, x = self.renderer.centres[tile]
        radius = SPOT_RADIUS * self.renderer.s
        _name, label_top, _dx = self.renderer.labels[tile]  # offsets from the hex centre
        bottom = min(radius, label_top - 2.0)
        return y + (bottom - radius) / 2.0, x, (bottom + radius) / 2.0

    def _selected(self, label: str, selection: tuple, tile: int) -> Choice:
        """The highlighted spot of a chosen ``tile``: clicking it goes back to ``selection``."""
        return Choice(label, frozenset(), selection=selection, spot=self._spot(tile), selected=True)

    def choices(self, state: ArktiaState, selection: tuple = ()) -> tuple[str, list[Choice]]:
        """The prompt and the clickable choices for the player to act (none when over)."""
        if state.is_terminal():
            return "the game is over", []
        legal = state.legal_actions()
        codec = self.codec
        if state.phase == "melt":
            return "melt: click an empty border tile to melt it (1 point)", [
                Choice(
                    f"melt {self.names[a - codec.MELT]}",
                    frozenset((a,)),
                    play=a,
                    spot=self._spot(a - codec.MELT),
                )
                for a in legal
            ]
        if state.phase == "choose":
            return self._keep_choices(state, legal)
        if selection == ("stop?",):
            return "stop: your game ends now and you take no more turns. Sure?", [
                Choice("yes, stop", frozenset((codec.STOP,)), play=codec.STOP),
                Choice("no", frozenset(), selection=()),
            ]
        return self._turn_choices(state, legal, selection)

    def _keep_choices(self, state: ArktiaState, legal: list[int]) -> tuple[str, list[Choice]]:
        colour, groups = state.pending_groups()[0]
        out = []
        for group in groups:
            tiles = iter_bits(group)
            keep = self.codec.encode_keep(tiles[0])  # a group is kept by its lowest tile
            if keep not in legal:
                continue
            label = f"keep {self.names[tiles[0]]}"
            out += [Choice(label, frozenset((keep,)), play=keep, spot=self._spot(t)) for t in tiles]
        name = OWNER_NAMES[colour]
        return f"{name} groups tie for largest: click a tile of the {name} group to keep", out

    def _turn_choices(
        self, state: ArktiaState, legal: list[int], selection: tuple
    ) -> tuple[str, list[Choice]]:
        codec, n = self.codec, self.game.num_tiles
        places: dict[int, list[int]] = defaultdict(list)  # kind -> legal tiles
        moves: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for a in legal:
            if a < codec.MOVE:
                places[a // n].append(a % n)
            elif a < codec.MELT:
                _, frm, to, k = codec.decode(a)
                moves[frm][to].append(k)
        kind = selection[1] if selection[:1] == ("kind",) and selection[1] in places else None
        if kind is None and not moves and places:
            kind = min(places)  # nothing to move: placing is the only thing to do
        source = selection[1] if selection[:1] == ("from",) and selection[1] in moves else None
        target = selection[2] if source is not None and len(selection) > 2 else None
        out: list[Choice] = []
        if kind is not None:
            prompt = f"place a {KIND_NAMES[kind]}: click a marked tile"
            out += [
                Choice(
                    f"{KIND_NAMES[kind][0]}@{self.names[t]}",
                    frozenset((kind * n + t,)),
                    play=kind * n + t,
                    spot=self._spot(t),
                )
                for t in places[kind]
            ]
        elif source is None:
            prompt = "click one of your stacks to move it" + (
                ", or pick a piece to place" if places else ""
            )
            for frm, targets in moves.items():
                reach = frozenset(
                    codec.encode_move(frm, to, k) for to, ks in targets.items() for k in ks
                )
                out.append(
                    Choice(self.names[frm], reach, selection=("from", frm), spot=self._spot(frm))
                )
        elif target is None:
            prompt = (
                f"move from {self.names[source]}: click a marked target (or the stack to cancel)"
            )
            out.append(self._selected("cancel", (), source))
            for to, ks in moves[source].items():
                actions = frozenset(codec.encode_move(source, to, k) for k in ks)
                if len(ks) == 1:
                    (a,) = actions
                    label = state.action_to_string(a)
                    out.append(Choice(label, actions, play=a, spot=self._spot(to)))
                else:
                    label = f"{self.names[source]}-{self.names[to]} ({len(ks)} ways)"
                    out.append(
                        Choice(label, actions, selection=("from", source, to), spot=self._spot(to))
                    )
        else:
            prompt = f"{self.names[source]}-{self.names[target]}: how many pieces from the top?"
            height = len(state.stack(source))
            out += [
                self._selected("cancel", (), source),
                self._selected("target", ("from", source), target),
            ]
            for k in sorted(moves[source][target]):
                a = codec.encode_move(source, target, k)
                words = "whole stack" if k == height else ("1 piece" if k == 1 else f"{k} pieces")
                out.append(Choice(words, frozenset((a,)), play=a))
        all_moves = frozenset(a for a in legal if codec.MOVE <= a < codec.MELT)
        out += self._turn_buttons(state, places, all_moves, kind, selection)
        return prompt, out

    def _turn_buttons(
        self,
        state: ArktiaState,
        places: dict[int, list[int]],
        all_moves: frozenset[int],
        kind: int | None,
        selection: tuple,
    ) -> list[Choice]:
        """Piece kinds to place, "move a stack", "stop" and "cancel"."""
        codec, n = self.codec, self.game.num_tiles
        seat = state.current_player
        reserve = state.neutral_reserve(seat) if state.phase == "setup" else state.reserve(seat)
        owner = "neutral " if state.phase == "setup" else ""
        out = []
        for k in sorted(places):
            actions = frozenset(k * n + t for t in places[k])
            label = f"{owner}{KIND_NAMES[k]} ({reserve[k]} left)"
            out.append(Choice(label, actions, selection=("kind", k), selected=k == kind))
        if all_moves and kind is not None:
            out.append(Choice("move a stack", all_moves, selection=()))
        if codec.STOP in state.legal_actions():
            out.append(Choice("stop", frozenset((codec.STOP,)), selection=("stop?",)))
        if selection and kind is None:
            out.append(Choice("cancel", frozenset(), selection=()))
        return out
