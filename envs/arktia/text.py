"""The plain-text board of an Arktia state (what ``str(state)`` prints): the tiles row by
row with their stacks, then the phase, the seat to act and each seat's counts.

Reads the state through its public accessors only, so it imports nothing of ``rules``
(``rules`` imports this module for ``ArktiaState.__str__``).
"""

from __future__ import annotations

from typing import Any

from tabletop_zoo.envs.arktia.constants import COLOUR_LETTERS, KIND_LETTERS


def board_text(state: Any) -> str:
    """The board of ``state`` (an ``ArktiaState``) as text, one line per row of tiles
    (names, then stacks as owner letter + kind letter, bottom to top; ``~~`` melted, ``.``
    empty), then the status lines."""
    lay = state.game.layout
    by_row: dict[int, list[int]] = {}
    for t, (r, _) in enumerate(lay.coords):
        by_row.setdefault(r, []).append(t)
    width = 4 * (max(c for _, c in lay.coords) + 2)
    lines = []
    for r in sorted(by_row):
        names = [" "] * width
        cells = [" "] * width
        for t in by_row[r]:
            x = 4 * lay.coords[t][1]
            names[x : x + 8] = lay.names[t].center(8)
            cells[x : x + 8] = cell_text(state, t).center(8)
        lines.append("".join(names).rstrip())
        lines.append("".join(cells).rstrip())
    sc = state.scores()
    cur = state.current_player
    who = "nobody (game over)" if cur < 0 else f"player {cur} ({COLOUR_LETTERS[cur]})"
    lines.append(
        f"phase {state.phase}, round {state.round}, turn {state.turn}, to act: {who}"
        + (", must melt" if state.must_melt else "")
    )
    for s in range(state.num_players):
        g, d, t = state.reserve(s)
        line = (
            f"player {s} ({COLOUR_LETTERS[s]}): score {sc[s]}, reserve G{g} D{d} T{t}, "
            f"removed {state.removed(s)}, melted {state.melted(s)}"
        )
        if state.game.neutral_pieces and any(state.neutral_reserve(s)):
            ng, nd, nt = state.neutral_reserve(s)
            line += f", neutral to place G{ng} D{nd} T{nt}"
        lines.append(line + (", ended" if state.ended(s) else ""))
    for colour, groups in state.pending_groups():
        options = " | ".join(" ".join(lay.mask_names(g)) for g in groups)
        lines.append(f"choose which group of {COLOUR_LETTERS[colour]} stays: {options}")
    return "\n".join(lines)


def cell_text(state: Any, t: int) -> str:
    """One tile: ``~~`` melted, ``.`` empty, else its stack bottom to top."""
    if not state.alive(t):
        return "~~"
    stack = state.stack(t)
    if not stack:
        return "."
    return "".join(COLOUR_LETTERS[o] + KIND_LETTERS[k] for o, k in stack)
