"""Observation planes for Arktia (numpy only, no gymnasium imports).

The hex grid is embedded in a ``num_rows x num_cols`` grid through
``Layout.grid_pos``; every plane is one channel of a ``(num_rows, num_cols, num_planes)``
``float32`` array (channels last, like PettingZoo's classic board games). All values lie
in ``[0, 1]``.

Colours are *relative to the observer*: colour slot ``0`` is the observer, ``1`` the next
seat in turn order, ..., ``n - 1`` the seat before the observer, and slot ``n`` the neutral
pieces (always present, all zeros when the game has no neutral pieces), so the number of
colour slots is ``n + 1`` for ``n`` players. The seat-absolute global view used by
``state()`` is the same encoding seen by seat 0 (slot ``i`` is then seat ``i``).

Plane order (``n`` players, ``C = n + 1`` colour slots, ``K = 3`` kinds G, D, T):

==========================  =========  ===================================================
planes                      count      meaning
==========================  =========  ===================================================
tile                        1          1 on every tile of the layout (melted or not)
stack level l, slot s, k    3 * C * K  1 where the piece at level ``l`` (0 = bottom) has
                                       colour slot ``s`` and kind ``k``; index
                                       ``1 + (l * C + s) * 3 + k``
control slot s              n          1 where seat-slot ``s`` owns the top piece
melted                      1          1 on melted tiles
reserve slot s, kind k      3 * n      (pieces of kind ``k`` slot ``s`` still has) / 3
neutral reserve s, kind k   3 * n      neutral pieces of kind ``k`` slot ``s`` still has
                                       to place in the setup (0 or 1)
removed slot s              n          pieces slot ``s`` removed / all pieces in the game
melted-by slot s            n          tiles slot ``s`` melted / number of tiles
ended slot s                n          1 if slot ``s``'s game has ended
phase                       5          one-hot: setup, opening, normal, melt, choose
to act slot s               n          one-hot: whose decision it is (all 0 when over)
choosing colour slot s      C          one-hot during "choose": the colour whose tied
                                       groups the mover is choosing among
turn                        1          completed turns / max_turns (capped at 1)
==========================  =========  ===================================================

Every plane from "reserve" on is constant over the whole grid.
"""

from __future__ import annotations

import numpy as np

from tabletop_zoo.envs.arktia import ArktiaGame, ArktiaState
from tabletop_zoo.envs.arktia.constants import DEFAULT_MAX_TURNS, KIND_LETTERS, NEUTRAL, PHASES

NUM_LEVELS = 3
NUM_KINDS = 3


class ArktiaObservationEncoder:
    """Builds agent-relative observation planes for one game configuration.

    Tables (tile -> grid cell, colour -> slot per observer, plane offsets) are computed
    once here, so :meth:`encode` is a handful of numpy operations plus one pass over
    the tiles.
    """

    def __init__(self, game: ArktiaGame, max_turns: int | None = None) -> None:
        """Precompute the tables for ``game``; ``max_turns`` scales the turn plane
        (default :data:`~tabletop_zoo.envs.arktia.constants.DEFAULT_MAX_TURNS`)."""
        layout = game.layout
        n = game.num_players
        self.num_players = n
        self.num_slots = n + 1
        self.max_turns = DEFAULT_MAX_TURNS if max_turns is None else max_turns
        self.num_tiles = layout.num_tiles
        self.num_rows = layout.num_rows
        self.num_cols = layout.num_cols
        cells = np.array([layout.grid_pos(t) for t in range(layout.num_tiles)], dtype=np.intp)
        self.tile_rows, self.tile_cols = cells[:, 0].copy(), cells[:, 1].copy()

        # plane offsets, in the documented order
        c_slots = self.num_slots
        self.TILE = 0
        self.STACK = 1
        self.CONTROL = self.STACK + NUM_LEVELS * c_slots * NUM_KINDS
        self.MELTED = self.CONTROL + n
        self.RESERVE = self.MELTED + 1
        self.NEUTRAL_RESERVE = self.RESERVE + 3 * n
        self.REMOVED = self.NEUTRAL_RESERVE + 3 * n
        self.MELTED_BY = self.REMOVED + n
        self.ENDED = self.MELTED_BY + n
        self.PHASE = self.ENDED + n
        self.TO_ACT = self.PHASE + len(PHASES)
        self.CHOOSING = self.TO_ACT + n
        self.TURN = self.CHOOSING + c_slots
        self.num_planes = self.TURN + 1
        self.shape = (self.num_rows, self.num_cols, self.num_planes)

        # slot_of[observer][owner]: owner 0..3 or NEUTRAL (4) -> colour slot
        seats = np.arange(n, dtype=np.intp)
        self.slot_of = np.zeros((n, NEUTRAL + 1), dtype=np.intp)
        self.slot_of[:, :n] = (seats[None, :] - seats[:, None]) % n
        self.slot_of[:, NEUTRAL] = n
        # seat_at[observer][slot]: the seat in slot ``slot`` (inverse of slot_of)
        self.seat_at = (seats[:, None] + seats[None, :]) % n
        # all pieces of the game: every reserve of the initial state, own and neutral (R5)
        initial = game.new_initial_state()
        self.total_pieces = sum(
            sum(initial.reserve(seat)) + sum(initial.neutral_reserve(seat)) for seat in range(n)
        )
        # plain-list copies of the tables for the per-call Python loops
        self._slot_lists = [row.tolist() for row in self.slot_of]
        self._seat_lists = [row.tolist() for row in self.seat_at]
        self._stack_planes: list[dict[tuple[tuple[int, int], ...], list[int]]] = [
            {} for _ in range(n)
        ]
        self._tile_plane = np.zeros(self.shape[:2], dtype=np.float32)
        self._tile_plane[self.tile_rows, self.tile_cols] = 1.0

    def plane_names(self) -> list[str]:
        """Human-readable name of every plane, in order (for documentation and debugging)."""
        n, c_slots = self.num_players, self.num_slots
        slot = [f"seat+{s}" for s in range(n)] + ["neutral"]
        names = ["tile"]
        for lvl in range(NUM_LEVELS):
            for s in range(c_slots):
                names += [f"level{lvl} {slot[s]} {k}" for k in KIND_LETTERS]
        names += [f"control {slot[s]}" for s in range(n)]
        names += ["melted"]
        names += [f"reserve {slot[s]} {k}" for s in range(n) for k in KIND_LETTERS]
        names += [f"neutral reserve {slot[s]} {k}" for s in range(n) for k in KIND_LETTERS]
        names += [f"removed {slot[s]}" for s in range(n)]
        names += [f"melted-by {slot[s]}" for s in range(n)]
        names += [f"ended {slot[s]}" for s in range(n)]
        names += [f"phase {p}" for p in PHASES]
        names += [f"to act {slot[s]}" for s in range(n)]
        names += [f"choosing {slot[s]}" for s in range(c_slots)]
        names += ["turn"]
        assert len(names) == self.num_planes
        return names

    def encode(self, state: ArktiaState, observer: int) -> np.ndarray:
        """Planes of ``state`` seen by seat ``observer`` (``observer=0``: seat-absolute)."""
        obs = np.zeros(self.shape, dtype=np.float32)
        obs[:, :, self.TILE] = self._tile_plane

        # board: one pass over the tiles collecting (tile, plane) pairs; the planes of a
        # stack (pieces and control) are memoised per observer, as stacks are few
        memo = self._stack_planes[observer]
        cell_tiles: list[int] = []
        cell_planes: list[int] = []
        alive, stack_of = state.alive, state.stack
        for t in range(self.num_tiles):
            if not alive(t):
                cell_tiles.append(t)
                cell_planes.append(self.MELTED)
                continue
            stack = stack_of(t)
            if stack:
                planes = memo.get(stack)
                if planes is None:
                    planes = memo[stack] = self._planes_of_stack(stack, observer)
                cell_tiles += [t] * len(planes)
                cell_planes += planes
        if cell_tiles:
            obs[self.tile_rows[cell_tiles], self.tile_cols[cell_tiles], cell_planes] = 1.0

        # constant planes, written as one vector broadcast over the grid
        base = self.RESERVE
        const = [0.0] * (self.num_planes - base)
        slot_of = self._slot_lists[observer]
        for s, seat in enumerate(self._seat_lists[observer]):
            i = self.RESERVE - base + 3 * s
            const[i : i + 3] = [k / 3.0 for k in state.reserve(seat)]
            i = self.NEUTRAL_RESERVE - base + 3 * s
            const[i : i + 3] = state.neutral_reserve(seat)
            const[self.REMOVED - base + s] = state.removed(seat) / self.total_pieces
            const[self.MELTED_BY - base + s] = state.melted(seat) / self.num_tiles
            const[self.ENDED - base + s] = 1.0 if state.ended(seat) else 0.0
        phase = state.phase
        const[self.PHASE - base + PHASES.index(phase)] = 1.0
        player = state.current_player
        if player >= 0:
            const[self.TO_ACT - base + slot_of[player]] = 1.0
        if phase == "choose":
            const[self.CHOOSING - base + slot_of[state.choosing_colour]] = 1.0
        const[self.TURN - base] = min(state.turn / self.max_turns, 1.0)
        obs[:, :, base:] = const
        return obs

    def _planes_of_stack(self, stack: tuple[tuple[int, int], ...], observer: int) -> list[int]:
        """Planes set on a tile holding ``stack`` (pieces bottom to top, then control)."""
        slot_of = self._slot_lists[observer]
        per_level = self.num_slots * NUM_KINDS
        planes = [
            self.STACK + lvl * per_level + slot_of[owner] * NUM_KINDS + kind
            for lvl, (owner, kind) in enumerate(stack)
        ]
        top_owner = stack[-1][0]
        if top_owner != NEUTRAL:
            planes.append(self.CONTROL + slot_of[top_owner])
        return planes
