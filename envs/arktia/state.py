"""Arktia rules engine: ``ArktiaGame`` (options and tables) and ``ArktiaState``.

Rule references (R1-R23) are to ``docs/rules/ARKTIA.md``. Tile sets are int
bitmasks over the layout's tiles (see :mod:`tabletop_zoo.envs.arktia.layout`).

A turn with several decisions (move, then group choice(s), then melt) is a sequence of
consecutive decisions of the same player; ``phase`` says which one is pending.
"""

from __future__ import annotations

import json
from typing import Any

from tabletop_zoo.envs.arktia.actions import KIND_LETTERS, ActionCodec, D, G, T
from tabletop_zoo.envs.arktia.layout import DEFAULT_LAYOUTS, Layout, iter_bits, parse_layout
from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidLayoutError,
    InvalidOptionError,
    InvalidStateError,
    as_integer,
)
from tabletop_zoo.envs.results import win_returns

NEUTRAL = 4  # owner id of neutral pieces; seats are 0..3
NUM_COLOURS = 5  # colour index = owner id (seats 0..3, NEUTRAL)
COLOUR_LETTERS = "rbygn"  # seat 0..3 = red, blue, yellow, green; index 4 = neutral
PIECES_PER_KIND = 3  # each player owns 3 G, 3 D, 3 T

# Round of play (stored as ``round`` in JSON): setup of the neutral pieces (R5-R6),
# the two placement rounds of the opening (R8-R9), then normal play (R10).
SETUP, OPENING_1, OPENING_2, NORMAL = 0, 1, 2, 3

# Legal stacks, bottom to top, as tuples of kinds (R11-R14): the singles and A-D.
STACK_SHAPES: dict[tuple[int, ...], str] = {
    (G,): "G",
    (D,): "D",
    (T,): "T",
    (D, G): "A",
    (T, D): "B",
    (G, T): "C",
    (T, D, G): "D",
}
_EMPTY_ONLY: frozenset[tuple[int, ...]] = frozenset({()})
# LANDING[unit] = the target stacks (as kind tuples) the unit may land on (R14).
# The result is always target + unit: G on D -> A, G on B -> D, D on T -> B,
# T on G -> C, A on T -> D.
LANDING: dict[tuple[int, ...], frozenset[tuple[int, ...]]] = {
    (G,): frozenset({(), (D,), (T, D)}),
    (D,): frozenset({(), (T,)}),
    (T,): frozenset({(), (G,)}),
    (D, G): frozenset({(), (T,)}),
    (T, D): _EMPTY_ONLY,
    (G, T): _EMPTY_ONLY,
    (T, D, G): _EMPTY_ONLY,
}
PHASES = ("setup", "opening", "normal", "melt", "choose")

Piece = tuple[int, int]  # (owner, kind)


def _close_up(stack: tuple[Piece, ...]) -> tuple[Piece, ...]:
    """R16a: after pieces leave a stack, a G left above a T drops into it ([T, G] -> C)."""
    if len(stack) == 2 and stack[0][1] == T and stack[1][1] == G:
        return (stack[1], stack[0])
    return stack


class ArktiaGame:
    """Immutable game options plus the layout, action codec and tables.

    Args:
        num_players: 2, 3 or 4.
        layout: ASCII layout (R2 format) or a parsed ``Layout``; default by player count.
        neutral_pieces: default True for 2 players, False for 3 and 4 (rules option 1
            allows True for 3 players; not allowed for 4).
    """

    def __init__(
        self,
        num_players: int = 2,
        layout: str | Layout | None = None,
        neutral_pieces: bool | None = None,
    ) -> None:
        count = as_integer(num_players)
        if count is None:
            raise InvalidOptionError(f"num_players must be an int 2..4, got {num_players!r}")
        num_players = count
        if not 2 <= num_players <= 4:
            raise InvalidOptionError(f"num_players={num_players}: Arktia is for 2 to 4 players")
        if neutral_pieces is None:
            neutral_pieces = num_players == 2
        if not isinstance(neutral_pieces, bool):
            raise InvalidOptionError(
                f"neutral_pieces must be True, False or None, got {neutral_pieces!r}"
            )
        if neutral_pieces and num_players == 4:
            raise InvalidOptionError("neutral_pieces=True is not allowed with 4 players (R5)")
        if layout is None:
            layout = DEFAULT_LAYOUTS[num_players]
        if isinstance(layout, str):
            layout = parse_layout(layout)
        elif not isinstance(layout, Layout):
            raise InvalidOptionError(
                f"layout must be an ASCII string or a Layout, got {type(layout).__name__}"
            )
        self.num_players = num_players
        self.neutral_pieces = neutral_pieces
        self.layout: Layout = layout
        self.codec = ActionCodec(layout)
        self.num_actions = self.codec.num_actions
        self.num_tiles = layout.num_tiles
        # neutral material per kind: each player receives one neutral G, D and T (R5)
        self.neutral_per_kind = num_players if neutral_pieces else 0
        self.num_neutral = 3 * self.neutral_per_kind
        needed = self.num_neutral + num_players
        if layout.num_tiles < needed:
            raise InvalidLayoutError(
                f"layout is too small: {layout.num_tiles} tiles, but {num_players} players"
                f"{' with ' + str(self.num_neutral) + ' neutral pieces' if neutral_pieces else ''}"
                f" need at least {needed} (neutral pieces + one per player, R3)"
            )
        # material per colour index (seats 0..3, NEUTRAL) and kind
        self.material_per_kind = [PIECES_PER_KIND if s < num_players else 0 for s in range(4)]
        self.material_per_kind.append(self.neutral_per_kind)

    def __repr__(self) -> str:
        return (
            f"ArktiaGame(num_players={self.num_players}, tiles={self.num_tiles}, "
            f"neutral_pieces={self.neutral_pieces})"
        )

    def new_initial_state(self, seed: int | None = None) -> ArktiaState:
        """The start position (Arktia has no chance: ``seed`` is accepted and ignored)."""
        del seed
        st = ArktiaState._blank(self)
        n = self.num_players
        if self.neutral_pieces:
            st._round = SETUP
            st._nres = [(1, 1, 1)] * n  # R5: one neutral G, D and T per player
        else:
            st._round = OPENING_1
        st._cur = 0
        st._legal = st._turn_actions()
        return st


class ArktiaState:
    """A position plus whose decision it is. Mutated in place by ``apply_action``."""

    __slots__ = (
        "game",
        "_stacks",
        "_kinds",
        "_cmask",
        "_occ",
        "_alive",
        "_reserve",
        "_nres",
        "_removed",
        "_melted",
        "_lost",
        "_ended",
        "_round",
        "_sub",
        "_pending",
        "_must_melt",
        "_cur",
        "_turn",
        "_legal",
    )

    # ------------------------------------------------------------------ creation
    @classmethod
    def _blank(cls, game: ArktiaGame) -> ArktiaState:
        st = object.__new__(cls)
        n, N = game.num_players, game.num_tiles
        st.game = game
        st._stacks = [()] * N  # per tile: pieces bottom to top as (owner, kind)
        st._kinds = [()] * N  # per tile: the kinds of the stack (shape lookups)
        st._cmask = [0] * NUM_COLOURS  # per colour: tiles holding a piece of it
        st._occ = 0  # tiles with any piece
        st._alive = game.layout.all_mask  # tiles not melted
        st._reserve = [(3, 3, 3)] * n
        st._nres = [(0, 0, 0)] * n
        st._removed = [0] * n
        st._melted = [0] * n
        st._lost = [0] * NUM_COLOURS  # pieces of each colour removed from the board
        st._ended = [False] * n
        st._round = SETUP
        st._sub: str | None = None  # None, "choose" or "melt" (pending sub-decision)
        # pending group choices: ((colour, (group mask, ...)), ...), first one active
        st._pending: tuple[tuple[int, tuple[int, ...]], ...] = ()
        st._must_melt = False  # reserve was empty at the start of this turn (R17)
        st._cur = 0
        st._turn = 0
        st._legal: list[int] = []
        return st

    def clone(self) -> ArktiaState:
        """An independent copy (cheap: a few list copies)."""
        c = object.__new__(ArktiaState)
        c.game = self.game
        c._stacks = self._stacks[:]
        c._kinds = self._kinds[:]
        c._cmask = self._cmask[:]
        c._occ = self._occ
        c._alive = self._alive
        c._reserve = self._reserve[:]
        c._nres = self._nres[:]
        c._removed = self._removed[:]
        c._melted = self._melted[:]
        c._lost = self._lost[:]
        c._ended = self._ended[:]
        c._round = self._round
        c._sub = self._sub
        c._pending = self._pending
        c._must_melt = self._must_melt
        c._cur = self._cur
        c._turn = self._turn
        c._legal = self._legal  # never mutated in place, only replaced
        return c

    # ------------------------------------------------------------------ accessors
    @property
    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""
        return self._cur

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.game.num_players

    @property
    def phase(self) -> str:
        """``"setup"``, ``"opening"``, ``"normal"``, ``"melt"`` or ``"choose"``."""
        if self._sub is not None:
            return self._sub
        return ("setup", "opening", "opening", "normal")[self._round]

    @property
    def round(self) -> int:
        """0 = neutral setup, 1 and 2 = opening placement rounds, 3 = normal play."""
        return self._round

    @property
    def choosing_colour(self) -> int | None:
        """During "choose": the colour (seat or NEUTRAL) whose tied groups are offered."""
        return self._pending[0][0] if self._pending else None

    @property
    def must_melt(self) -> bool:
        """Whether the current turn ends with melting a tile (R17)."""
        return self._must_melt

    @property
    def turn(self) -> int:
        """Number of completed turns (setup placements included)."""
        return self._turn

    def stack(self, t: int) -> tuple[Piece, ...]:
        """Pieces on tile ``t``, bottom to top, as (owner, kind); () if empty."""
        return self._stacks[t]

    def alive(self, t: int) -> bool:
        """False once tile ``t`` has melted."""
        return bool(self._alive >> t & 1)

    def controller(self, t: int) -> int | None:
        """Seat owning the top piece of tile ``t`` (None if empty or neutral on top)."""
        st = self._stacks[t]
        if not st or st[-1][0] == NEUTRAL:
            return None
        return st[-1][0]

    def reserve(self, seat: int) -> tuple[int, int, int]:
        """Own pieces (G, D, T) the seat still has to place."""
        return self._reserve[seat]

    def neutral_reserve(self, seat: int) -> tuple[int, int, int]:
        """Neutral pieces (G, D, T) the seat still has to place in the setup."""
        return self._nres[seat]

    def removed(self, seat: int) -> int:
        """Pieces (any colour) this seat has removed from the board."""
        return self._removed[seat]

    def melted(self, seat: int) -> int:
        """Tiles this seat has melted."""
        return self._melted[seat]

    def ended(self, seat: int) -> bool:
        """Whether this seat's game has ended (R19)."""
        return self._ended[seat]

    def pieces_on_board(self, colour: int) -> int:
        """Pieces of a colour (seat or NEUTRAL) on the board, covered ones included."""
        if colour == NEUTRAL:
            return self.game.num_neutral - sum(map(sum, self._nres)) - self._lost[NEUTRAL]
        return 3 * PIECES_PER_KIND - sum(self._reserve[colour]) - self._lost[colour]

    def colour_tiles(self, colour: int) -> int:
        """Bitmask of the tiles holding a piece of ``colour``."""
        return self._cmask[colour]

    def pending_groups(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Pending group choices as ((colour, (group bitmask, ...)), ...), active first."""
        return self._pending

    def is_terminal(self) -> bool:
        """True when every player's game has ended (R20)."""
        return self._cur < 0

    def scores(self) -> list[int]:
        """R21 as the position stands: removed pieces + melted tiles + controlled tiles."""
        sc = [r + m for r, m in zip(self._removed, self._melted, strict=True)]
        stacks = self._stacks
        for t in iter_bits(self._occ):
            owner = stacks[t][-1][0]
            if owner != NEUTRAL:
                sc[owner] += 1
        return sc

    def returns(self) -> list[float]:
        """+1 sole top scorer, 0 for players tied on top, -1 others; zeros mid-game (R22)."""
        if self._cur >= 0:
            return [0.0] * self.num_players
        return win_returns(self.scores())

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Legal action indices, ascending (empty once terminal)."""
        return list(self._legal)

    def _turn_actions(self) -> list[int]:
        """Actions at the start of the current player's turn (setup, opening, normal)."""
        game = self.game
        lay = game.layout
        N = game.num_tiles
        p = self._cur
        empty = self._alive & ~self._occ
        out: list[int] = []
        if self._round == SETUP:
            neutral = self._cmask[NEUTRAL]
            # R6: the first neutral piece anywhere, later ones next to a neutral piece
            targets = empty & lay.closed_neighbourhood(neutral) if neutral else empty
            res = self._nres[p]
        else:
            if self._round == OPENING_1:
                occ = self._occ
                # R8: seat 0 next to a neutral piece (the only pieces yet), later seats
                # next to any occupied tile; on an empty board anywhere
                targets = empty & lay.closed_neighbourhood(occ) if occ else empty
            else:
                targets = empty & lay.closed_neighbourhood(self._cmask[p])  # R9, R11
            res = self._reserve[p]
        if targets:
            tiles = iter_bits(targets)
            for kind in (G, D, T):
                if res[kind]:
                    base = kind * N
                    out.extend([base + t for t in tiles])
        if self._round <= OPENING_1 or (self._round == OPENING_2 and out):
            return out
        moves = self._moves(p)
        moves.sort()
        out.extend(moves)
        if self._round == NORMAL:
            out.append(game.codec.STOP)  # R19d
        return out

    def _moves(self, p: int) -> list[int]:
        """All legal moves of seat ``p`` (R12-R14b), unsorted."""
        game = self.game
        lay = game.layout
        N = game.num_tiles
        move_base = game.codec.MOVE
        stacks, kinds, alive = self._stacks, self._kinds, self._alive
        rays = lay.rays
        own = self._cmask[p]
        own_reach = lay.closed_neighbourhood(own)
        out: list[int] = []
        for o in iter_bits(own):
            st = stacks[o]
            if st[-1][0] != p:  # R12: only the owner of the top piece moves
                continue
            h = len(st)
            ks = kinds[o]
            bit_o = 1 << o
            keep_mask = -1  # lazily: targets keeping p connected if o is left empty
            base = move_base + o * 3 * N - 1
            for k in range(1, h + 1):  # R13: any top part may move
                unit = ks[h - k :]
                allowed = LANDING[unit]
                # R14b: does a covered own piece stay behind on o?
                if any(owner == p for owner, _ in st[: h - k]):
                    # o keeps an own piece and own pieces were connected: the move keeps
                    # them connected iff the target touches them
                    good = own_reach
                else:
                    if keep_mask < 0:
                        # target must touch every own component that remains without o
                        keep_mask = lay.all_mask
                        for comp in lay.components(own & ~bit_o):
                            keep_mask &= lay.closed_neighbourhood(comp)
                    good = keep_mask
                for ray in rays[o]:
                    for t in ray:  # R14a: straight line, over pieces, never over holes
                        if not alive >> t & 1:
                            break
                        if good >> t & 1 and kinds[t] in allowed:
                            out.append(base + t * 3 + k)
        return out

    def _melt_actions(self) -> list[int]:
        """Melt candidates (R17): empty border tiles whose removal leaves no island."""
        lay = self.game.layout
        nbr = lay.neighbour_masks
        alive = self._alive
        melt = self.game.codec.MELT
        out = []
        for t in iter_bits(alive & ~self._occ):
            if (nbr[t] & alive).bit_count() < 6:
                rest = alive & ~(1 << t)
                low = rest & -rest
                if not rest or lay.component_of(low.bit_length() - 1, rest) == rest:
                    out.append(melt + t)
        return out

    def _keep_actions(self) -> list[int]:
        """One keep action per tied group of the active choice: its lowest tile."""
        keep = self.game.codec.KEEP
        return sorted(keep + (g & -g).bit_length() - 1 for g in self._pending[0][1])

    # ------------------------------------------------------------------ applying
    def apply_action(self, action: int) -> None:
        """Apply a legal action (IllegalActionError with the reason otherwise)."""
        a = self._check(action)
        codec = self.game.codec
        N = self.game.num_tiles
        if a < codec.MOVE:
            self._place(a // N, a % N)
            self._end_turn()
        elif a < codec.MELT:
            pair, k1 = divmod(a - codec.MOVE, 3)
            self._move(pair // N, pair % N, k1 + 1)
        elif a < codec.KEEP:
            t = a - codec.MELT
            self._alive &= ~(1 << t)
            self._melted[self._cur] += 1
            self._end_turn()
        elif a < codec.STOP:
            self._keep(a - codec.KEEP)
        else:
            self._ended[self._cur] = True  # R19d
            self._end_turn()

    def _check(self, action: Any) -> int:
        a = as_integer(action)
        if a is None:
            raise IllegalActionError(f"action {action!r} is not an integer action index")
        if a in self._legal:
            return a
        if self._cur < 0:
            raise IllegalActionError(f"action {a}: the game is over, no action is legal")
        codec = self.game.codec
        if not 0 <= a < codec.num_actions:
            raise IllegalActionError(f"action {a} out of range 0..{codec.num_actions - 1}")
        shown = ", ".join(self.action_to_string(x) for x in self._legal[:15])
        more = f" and {len(self._legal) - 15} more" if len(self._legal) > 15 else ""
        raise IllegalActionError(
            f"action {a} ({self.action_to_string(a)}) is not legal for player {self._cur} "
            f"in phase {self.phase!r}: {self._why_illegal(a)}; legal: {shown}{more}"
        )

    def _why_illegal(self, a: int) -> str:
        kind, *f = self.game.codec.decode(a)
        phase = self.phase
        allowed = {
            "setup": "placing a neutral piece",
            "opening": "placing (or moving in round 2)",
            "normal": "placing, moving or stop",
            "melt": "melting a tile",
            "choose": "keeping one of the tied groups",
        }[phase]
        if (phase, kind) not in {
            ("setup", "place"),
            ("opening", "place"),
            ("opening", "move"),
            ("normal", "place"),
            ("normal", "move"),
            ("normal", "stop"),
            ("melt", "melt"),
            ("choose", "keep"),
        }:
            return f"this phase allows only {allowed}"
        if kind == "place":
            res = self._nres[self._cur] if self._round == SETUP else self._reserve[self._cur]
            if not res[f[0]]:
                return f"no {KIND_LETTERS[f[0]]} left to place"
            return "that tile is not an empty tile where a piece may be placed now"
        if kind == "move":
            frm, to, k = f
            if self.controller(frm) != self._cur:
                return "the player does not control the stack on the origin tile (R12)"
            if k > len(self._stacks[frm]):
                return f"the stack is only {len(self._stacks[frm])} high"
            return (
                "not a straight line over existing tiles, an illegal landing (R14) or a "
                "move that splits the mover's pieces (R14b)"
            )
        if kind == "melt":
            return "only an empty border tile whose removal leaves no island may melt (R17)"
        return "name the lowest tile of one of the tied groups"

    def _place(self, kind: int, t: int) -> None:
        p = self._cur
        if self._round == SETUP:
            owner = NEUTRAL
            res = list(self._nres[p])
            res[kind] -= 1
            self._nres[p] = tuple(res)
        else:
            owner = p
            res = list(self._reserve[p])
            res[kind] -= 1
            self._reserve[p] = tuple(res)
        self._stacks[t] = ((owner, kind),)
        self._kinds[t] = (kind,)
        bit = 1 << t
        self._occ |= bit
        self._cmask[owner] |= bit
        # a placement never splits another colour, so no removal check (R15)

    def _move(self, frm: int, to: int, k: int) -> None:
        p = self._cur
        stacks, kinds, cmask = self._stacks, self._kinds, self._cmask
        st = stacks[frm]
        h = len(st)
        unit, rest = st[h - k :], st[: h - k]
        stacks[frm] = rest
        kinds[frm] = kinds[frm][: h - k]
        stacks[to] = stacks[to] + unit
        kinds[to] = kinds[to] + kinds_of(unit)
        bf, bt = 1 << frm, 1 << to
        self._occ |= bt
        if not rest:
            self._occ &= ~bf
        left = {owner for owner, _ in rest}
        moved = sorted({owner for owner, _ in unit})  # seat order, then NEUTRAL (R16)
        for c in moved:
            cmask[c] = (cmask[c] | bt) & (-1 if c in left else ~bf)
        # R15: only colours that moved can have split
        pending = []
        lay = self.game.layout
        for c in moved:
            if c == p:
                continue
            comps = lay.components(cmask[c])
            if len(comps) < 2:
                continue
            sizes = [self._count(c, g) for g in comps]
            best = max(sizes)
            for g, s in zip(comps, sizes, strict=True):
                if s < best:
                    self._remove(c, g)
            tied = tuple(g for g, s in zip(comps, sizes, strict=True) if s == best)
            if len(tied) > 1:
                pending.append((c, tied))  # R16: the mover chooses
        if pending:
            self._pending = tuple(pending)
            self._sub = "choose"
            self._legal = self._keep_actions()
        else:
            self._after_removals()

    def _count(self, colour: int, mask: int) -> int:
        """Number of pieces of ``colour`` on the tiles of ``mask`` (R15: pieces, not tiles)."""
        stacks = self._stacks
        return sum(1 for t in iter_bits(mask) for owner, _ in stacks[t] if owner == colour)

    def _remove(self, colour: int, mask: int) -> None:
        """Remove the pieces of ``colour`` on ``mask``; the mover keeps them (R15, R16a)."""
        stacks, kinds = self._stacks, self._kinds
        count = 0
        for t in iter_bits(mask):
            st = stacks[t]
            rest = _close_up(tuple(pc for pc in st if pc[0] != colour))
            count += len(st) - len(rest)
            stacks[t] = rest
            kinds[t] = kinds_of(rest)
            if not rest:
                self._occ &= ~(1 << t)
        self._cmask[colour] &= ~mask
        self._removed[self._cur] += count
        self._lost[colour] += count

    def _keep(self, tile: int) -> None:
        colour, groups = self._pending[0]
        for g in groups:
            if not g >> tile & 1:
                self._remove(colour, g)
        self._pending = self._pending[1:]
        if self._pending:
            self._legal = self._keep_actions()
        else:
            self._sub = None
            self._after_removals()

    def _after_removals(self) -> None:
        """Melting (R17) or its impossibility (R18), then the end of the turn."""
        if self._must_melt:
            melts = self._melt_actions()
            if melts:
                self._sub = "melt"
                self._legal = melts
                return
            self._ended[self._cur] = True  # R18: the move stands, the game ends
        self._end_turn()

    def _end_turn(self) -> None:
        n = self.game.num_players
        p = self._cur
        self._turn += 1
        self._sub = None
        self._pending = ()
        self._must_melt = False
        if self._round == SETUP:
            nres = self._nres
            if any(map(any, nres)):
                s = p
                for _ in range(n):
                    s = (s + 1) % n
                    if any(nres[s]):
                        break
                self._cur = s
                self._legal = self._turn_actions()
                return
            p = n - 1  # the opening starts with seat 0 (R8); wrapping to 0 starts round 1
        self._advance(p)

    def _advance(self, p: int) -> None:
        """Pass the turn after seat ``p`` (R19a, R19c, R20)."""
        n = self.game.num_players
        if self._round == NORMAL:
            self._end_small_players()
        s = p
        for _ in range(n):
            s = (s + 1) % n
            if s == 0 and self._round < NORMAL:
                self._round += 1  # a new round of the opening (or its end)
                if self._round == NORMAL:
                    self._end_small_players()
            if self._ended[s]:
                continue
            self._cur = s
            self._must_melt = self._round == NORMAL and not any(self._reserve[s])
            legal = self._turn_actions()
            # stop (R19d) alone does not count as a legal placement or move (R19a)
            if len(legal) > 1 or (legal and self._round != NORMAL):
                self._legal = legal
                return
            self._ended[s] = True  # R19a
        self._cur = -1
        self._must_melt = False
        self._legal = []

    def _end_small_players(self) -> None:
        """R19c: after the opening, a player with at most one piece on the board is out."""
        for s in range(self.game.num_players):
            if not self._ended[s] and self.pieces_on_board(s) <= 1:
                self._ended[s] = True

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        """Notation of an action in this position (``c3-e1`` if the whole stack moves)."""
        codec = self.game.codec
        d = codec.decode(action)
        height = len(self._stacks[d[1]]) if d[0] == "move" else None
        return codec.to_string(action, height)

    def string_to_action(self, text: str) -> int:
        """Parse notation for this position; NotationError / IllegalActionError."""
        a = self.game.codec.parse(text, lambda t: len(self._stacks[t]))
        if a not in self._legal:
            self._check(a)  # raises with the reason
        return a

    # ------------------------------------------------------------------ display
    def __str__(self) -> str:
        lay = self.game.layout
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
                cells[x : x + 8] = self._cell_text(t).center(8)
            lines.append("".join(names).rstrip())
            lines.append("".join(cells).rstrip())
        sc = self.scores()
        cur = self._cur
        who = "nobody (game over)" if cur < 0 else f"player {cur} ({COLOUR_LETTERS[cur]})"
        lines.append(
            f"phase {self.phase}, round {self._round}, turn {self._turn}, to act: {who}"
            + (", must melt" if self._must_melt else "")
        )
        for s in range(self.num_players):
            g, d, t = self._reserve[s]
            line = (
                f"player {s} ({COLOUR_LETTERS[s]}): score {sc[s]}, reserve G{g} D{d} T{t}, "
                f"removed {self._removed[s]}, melted {self._melted[s]}"
            )
            if self.game.neutral_pieces and any(self._nres[s]):
                ng, nd, nt = self._nres[s]
                line += f", neutral to place G{ng} D{nd} T{nt}"
            lines.append(line + (", ended" if self._ended[s] else ""))
        for colour, groups in self._pending:
            options = " | ".join(" ".join(lay.mask_names(g)) for g in groups)
            lines.append(f"choose which group of {COLOUR_LETTERS[colour]} stays: {options}")
        return "\n".join(lines)

    def _cell_text(self, t: int) -> str:
        if not self._alive >> t & 1:
            return "~~"
        st = self._stacks[t]
        if not st:
            return "."
        return "".join(COLOUR_LETTERS[o] + KIND_LETTERS[k] for o, k in st)

    def __repr__(self) -> str:
        return f"<ArktiaState {self.phase} turn={self._turn} to_act={self._cur}>"

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> str:
        """The full state as JSON (schema in the README, section "JSON")."""
        lay = self.game.layout

        def owner_json(o: int) -> int | str:
            return "neutral" if o == NEUTRAL else o

        return json.dumps(
            {
                "game": "arktia",
                "version": 1,
                "num_players": self.num_players,
                "neutral_pieces": self.game.neutral_pieces,
                "layout": lay.text,
                "stacks": {
                    lay.names[t]: [[owner_json(o), KIND_LETTERS[k]] for o, k in self._stacks[t]]
                    for t in iter_bits(self._alive)
                },
                "melted_tiles": lay.mask_names(lay.all_mask & ~self._alive),
                "reserves": [list(r) for r in self._reserve],
                "neutral_reserves": [list(r) for r in self._nres],
                "removed": list(self._removed),
                "melted": list(self._melted),
                "round": self._round,
                "phase": self.phase,
                "current_player": self._cur,
                "ended": [s for s in range(self.num_players) if self._ended[s]],
                "turn": self._turn,
                "pending_choices": [
                    {"colour": owner_json(c), "groups": [lay.mask_names(g) for g in groups]}
                    for c, groups in self._pending
                ],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ArktiaState:
        """Rebuild a state from ``to_json`` output, validating everything (InvalidStateError)."""
        return _from_json(text)


def kinds_of(stack: tuple[Piece, ...]) -> tuple[int, ...]:
    """The kinds of a stack, bottom to top."""
    return tuple(k for _, k in stack)


# ---------------------------------------------------------------------- JSON loading
_REQUIRED_KEYS = (
    "num_players",
    "neutral_pieces",
    "layout",
    "stacks",
    "melted_tiles",
    "reserves",
    "neutral_reserves",
    "removed",
    "melted",
    "round",
    "phase",
    "current_player",
    "ended",
    "turn",
    "pending_choices",
)
_OPTIONAL_KEYS = ("game", "version")


def _bad(msg: str) -> InvalidStateError:
    return InvalidStateError(f"invalid Arktia state: {msg}")


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{what} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise _bad(f"{what} = {value} is out of range {lo}..{hi}")
    return value


def _list(value: Any, what: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise _bad(f"{what} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise _bad(f"{what} must have {length} entries, got {len(value)}")
    return value


def _from_json(text: str) -> ArktiaState:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as e:
        raise _bad(f"not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise _bad(f"top level must be a JSON object, got {type(data).__name__}")
    missing = [k for k in _REQUIRED_KEYS if k not in data]
    if missing:
        raise _bad(f"missing keys {missing}")
    unknown = sorted(set(data) - set(_REQUIRED_KEYS) - set(_OPTIONAL_KEYS))
    if unknown:
        raise _bad(f"unknown keys {unknown}; allowed: {list(_REQUIRED_KEYS + _OPTIONAL_KEYS)}")
    if data.get("game", "arktia") != "arktia":
        raise _bad(f"game is {data['game']!r}, not 'arktia'")
    if data.get("version", 1) != 1:
        raise _bad(f"version {data['version']!r} is not supported (only 1)")
    n = _int(data["num_players"], "num_players", 2, 4)
    neutral = data["neutral_pieces"]
    if not isinstance(neutral, bool):
        raise _bad(f"neutral_pieces must be true or false, got {neutral!r}")
    if not isinstance(data["layout"], str):
        raise _bad("layout must be the ASCII layout string")
    try:
        game = ArktiaGame(n, data["layout"], neutral)
    except (InvalidLayoutError, InvalidOptionError) as e:
        raise _bad(str(e)) from None
    lay = game.layout
    st = ArktiaState._blank(game)

    def tile(name: Any, what: str) -> int:
        if not isinstance(name, str) or not lay.has_name(name):
            raise _bad(
                f"{what}: unknown tile name {name!r} (tiles {lay.names[0]}..{lay.names[-1]})"
            )
        return lay.index_of(name)

    # melted tiles
    alive = lay.all_mask
    for name in _list(data["melted_tiles"], "melted_tiles"):
        t = tile(name, "melted_tiles")
        if not alive >> t & 1:
            raise _bad(f"melted_tiles lists {name} twice")
        alive &= ~(1 << t)
    if not alive:
        raise _bad("every tile is melted")
    low = alive & -alive
    if lay.component_of(low.bit_length() - 1, alive) != alive:
        raise _bad("the tiles that are not melted do not form one connected piece (R17)")
    st._alive = alive
    # stacks
    stacks = data["stacks"]
    if not isinstance(stacks, dict):
        raise _bad("stacks must be an object mapping tile names to lists of [owner, kind]")
    on_board = [[0, 0, 0] for _ in range(NUM_COLOURS)]
    for name, pieces in stacks.items():
        t = tile(name, "stacks")
        pieces = _list(pieces, f"stack on {name}")
        if pieces and not alive >> t & 1:
            raise _bad(f"tile {name} is melted but holds pieces")
        stack = []
        for pc in pieces:
            if not isinstance(pc, list) or len(pc) != 2:
                raise _bad(f"stack on {name}: a piece must be [owner, kind], got {pc!r}")
            owner, kind = pc
            if owner == "neutral":
                if not neutral:
                    raise _bad(f"stack on {name}: neutral piece but neutral_pieces is false")
                owner = NEUTRAL
            else:
                owner = _int(owner, f"stack on {name}: owner (a seat or 'neutral')", 0, n - 1)
            if kind not in ("G", "D", "T"):
                raise _bad(f"stack on {name}: kind must be 'G', 'D' or 'T', got {kind!r}")
            k = KIND_LETTERS.index(kind)
            stack.append((owner, k))
            on_board[owner][k] += 1
        stack_t = tuple(stack)
        if stack_t and kinds_of(stack_t) not in STACK_SHAPES:
            shape = "".join(KIND_LETTERS[k] for k in kinds_of(stack_t))
            raise _bad(
                f"stack on {name} is {shape} (bottom to top), not a legal stack: "
                "singles, A=[D,G], B=[T,D], C=[G,T], D=[T,D,G]"
            )
        st._stacks[t] = stack_t
        st._kinds[t] = kinds_of(stack_t)
        if stack_t:
            st._occ |= 1 << t
            for owner, _ in stack_t:
                st._cmask[owner] |= 1 << t
    # reserves and material
    reserves = _list(data["reserves"], "reserves", n)
    nres = _list(data["neutral_reserves"], "neutral_reserves", n)
    for s in range(n):
        r = _list(reserves[s], f"reserves[{s}]", 3)
        st._reserve[s] = tuple(_int(x, f"reserves[{s}]", 0, PIECES_PER_KIND) for x in r)
        r = _list(nres[s], f"neutral_reserves[{s}]", 3)
        st._nres[s] = tuple(_int(x, f"neutral_reserves[{s}]", 0, 1 if neutral else 0) for x in r)
    for c in list(range(n)) + [NEUTRAL]:
        res = [sum(r[k] for r in st._nres) for k in range(3)] if c == NEUTRAL else st._reserve[c]
        who = "neutral" if c == NEUTRAL else f"player {c}"
        for k in range(3):
            total = on_board[c][k] + res[k]
            if total > game.material_per_kind[c]:
                raise _bad(
                    f"{who} has {total} {KIND_LETTERS[k]} ({on_board[c][k]} on the board "
                    f"+ {res[k]} to place); the material is {game.material_per_kind[c]}"
                )
        st._lost[c] = 3 * game.material_per_kind[c] - sum(on_board[c]) - sum(res)
    removed = _list(data["removed"], "removed", n)
    melted = _list(data["melted"], "melted", n)
    st._removed = [_int(x, "removed", 0, 10**6) for x in removed]
    st._melted = [_int(x, "melted", 0, lay.num_tiles) for x in melted]
    if sum(st._removed) != sum(st._lost):
        raise _bad(
            f"removed counts sum to {sum(st._removed)} but {sum(st._lost)} pieces are "
            "missing from the board and reserves"
        )
    num_melted = lay.num_tiles - alive.bit_count()
    if sum(st._melted) != num_melted:
        raise _bad(f"melted counts sum to {sum(st._melted)} but {num_melted} tiles are melted")
    # progress
    rnd = _int(data["round"], "round", 0, 3)
    st._round = rnd
    phase = data["phase"]
    if phase not in PHASES:
        raise _bad(f"phase {phase!r} is not one of {list(PHASES)}")
    main_phase = ("setup", "opening", "opening", "normal")[rnd]
    if phase in ("setup", "opening", "normal") and phase != main_phase:
        raise _bad(f"phase {phase!r} does not match round {rnd} (expected {main_phase!r})")
    if phase == "melt" and rnd != NORMAL or phase == "choose" and rnd < OPENING_2:
        raise _bad(f"phase {phase!r} cannot happen in round {rnd}")
    if rnd == SETUP:
        if not any(map(any, st._nres)):
            raise _bad("round 0 (setup) but no neutral pieces are left to place")
        if any(st._cmask[s] for s in range(n)) or any(r != (3, 3, 3) for r in st._reserve):
            raise _bad("player pieces left their reserve during the setup")
    elif any(map(any, st._nres)):
        raise _bad(f"round {rnd} but neutral pieces are still to be placed (setup unfinished)")
    st._turn = _int(data["turn"], "turn", 0, 10**9)
    ended = _list(data["ended"], "ended")
    for s in ended:
        s = _int(s, "ended seat", 0, n - 1)
        if st._ended[s]:
            raise _bad(f"ended lists seat {s} twice")
        st._ended[s] = True
    cur = _int(data["current_player"], "current_player", -1, n - 1)
    if all(st._ended) != (cur == -1):
        raise _bad("current_player must be -1 exactly when every player's game has ended")
    if cur >= 0 and st._ended[cur]:
        raise _bad(f"current_player {cur} is listed as ended")
    if cur < 0 and phase in ("melt", "choose"):
        raise _bad(f"a finished game cannot be in phase {phase!r}")
    st._cur = cur
    # pending choices
    pend = _list(data["pending_choices"], "pending_choices")
    if bool(pend) != (phase == "choose"):
        raise _bad("pending_choices must be non-empty exactly in phase 'choose'")
    pending = []
    last = -1
    for i, entry in enumerate(pend):
        if not isinstance(entry, dict) or set(entry) != {"colour", "groups"}:
            raise _bad(f"pending_choices[{i}] must be an object with 'colour' and 'groups'")
        c = entry["colour"]
        c = NEUTRAL if c == "neutral" else _int(c, f"pending_choices[{i}].colour", 0, n - 1)
        if c <= last or c == cur:
            raise _bad(
                f"pending_choices[{i}]: colours must be other players' or neutral, "
                "in seat order then neutral (R16)"
            )
        last = c
        groups = []
        for names in _list(entry["groups"], f"pending_choices[{i}].groups"):
            m = 0
            for name in _list(names, f"pending_choices[{i}] group"):
                m |= 1 << tile(name, f"pending_choices[{i}]")
            groups.append(m)
        comps = lay.components(st._cmask[c])
        if len(groups) < 2 or sorted(groups) != sorted(comps):
            raise _bad(
                f"pending_choices[{i}]: groups must be exactly the (2 or more) "
                "connected groups of that colour on the board"
            )
        if len({st._count(c, g) for g in groups}) != 1:
            raise _bad(f"pending_choices[{i}]: the groups must tie in size (R16)")
        pending.append((c, tuple(groups)))
    st._pending = tuple(pending)
    pending_colours = {c for c, _ in pending}
    for c in list(range(n)) + ([NEUTRAL] if neutral else []):
        if c not in pending_colours and len(lay.components(st._cmask[c])) > 1:
            who = "neutral" if c == NEUTRAL else f"player {c}"
            raise _bad(
                f"{who}'s pieces are in several groups; between turns every colour "
                "is one connected group (R15)"
            )
    # the decision at hand
    if cur < 0:
        st._legal = []
        return st
    if rnd == SETUP and not any(st._nres[cur]):
        raise _bad(f"setup: player {cur} has no neutral piece left to place")
    st._must_melt = rnd == NORMAL and not any(st._reserve[cur])
    if phase == "melt":
        if not st._must_melt:
            raise _bad("phase 'melt' but the current player still has pieces in reserve (R17)")
        st._sub = "melt"
        st._legal = st._melt_actions()
        if not st._legal:
            raise _bad("phase 'melt' but no tile can melt (R18 should have ended the game)")
    elif phase == "choose":
        st._sub = "choose"
        st._legal = st._keep_actions()
    else:
        st._legal = st._turn_actions()
        if not st._legal or st._legal == [game.codec.STOP]:
            raise _bad(
                f"player {cur} has no legal placement or move; its game should have ended (R19a)"
            )
    return st
