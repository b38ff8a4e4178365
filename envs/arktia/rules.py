"""Arktia rules engine: ``ArktiaGame`` (options and tables) and ``ArktiaState``.

Rule references (R1-R23) are to ``docs/rules/ARKTIA.md``. Tile sets are int
bitmasks over the layout's tiles (see :mod:`tabletop_zoo.envs.arktia.layout`).

A turn with several decisions (move, then group choice(s), then melt) is a sequence of
consecutive decisions of the same player; ``phase`` says which one is pending.
"""

from __future__ import annotations

from typing import Any

from tabletop_zoo.envs.arktia import reachability, serialization
from tabletop_zoo.envs.arktia.actions import ActionCodec
from tabletop_zoo.envs.arktia.constants import (
    KIND_LETTERS,
    NEUTRAL,
    NORMAL,
    NUM_COLOURS,
    OPENING_1,
    OPENING_2,
    PIECES_PER_KIND,
    ROUND_PHASES,
    SETUP,
    D,
    G,
    T,
)
from tabletop_zoo.envs.arktia.layout import DEFAULT_LAYOUTS, Layout, iter_bits, parse_layout
from tabletop_zoo.envs.arktia.serialization import ArktiaSnapshot, Piece, bad, kinds_of
from tabletop_zoo.envs.arktia.text import board_text
from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidLayoutError,
    InvalidOptionError,
    as_integer,
)
from tabletop_zoo.envs.protocol import StateBase

__all__ = ["ArktiaGame", "ArktiaState", "state_from_snapshot"]

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

    #: No bound on the actions of a game: the rules let pieces move back and forth for ever
    #: (R23); the env truncates after ``max_turns``, the OpenSpiel bridge after ``max_moves``.
    max_game_length: int | None = None

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
            st._neutral_reserve = [(1, 1, 1)] * n  # R5: one neutral G, D and T per player
        else:
            st._round = OPENING_1
        st._current = 0
        st._legal = st._turn_actions()
        return st


class ArktiaState(StateBase):
    """A position plus whose decision it is. Mutated in place by ``apply_action``; the
    protocol is :class:`~tabletop_zoo.envs.protocol.EngineState`."""

    game_name = serialization.GAME_NAME

    __slots__ = (
        "game",
        "_stacks",
        "_kinds",
        "_colour_tiles",
        "_occupied",
        "_alive",
        "_reserve",
        "_neutral_reserve",
        "_removed",
        "_melted",
        "_lost_pieces",
        "_ended",
        "_round",
        "_pending_decision",
        "_pending_choices",
        "_must_melt",
        "_current",
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
        st._colour_tiles = [0] * NUM_COLOURS  # per colour: tiles holding a piece of it
        st._occupied = 0  # tiles with any piece
        st._alive = game.layout.all_mask  # tiles not melted
        st._reserve = [(3, 3, 3)] * n
        st._neutral_reserve = [(0, 0, 0)] * n
        st._removed = [0] * n
        st._melted = [0] * n
        st._lost_pieces = [0] * NUM_COLOURS  # pieces of each colour removed from the board
        st._ended = [False] * n
        st._round = SETUP
        st._pending_decision: str | None = None  # None, "choose" or "melt" (pending sub-decision)
        # pending group choices: ((colour, (group mask, ...)), ...), first one active
        st._pending_choices: tuple[tuple[int, tuple[int, ...]], ...] = ()
        st._must_melt = False  # reserve was empty at the start of this turn (R17)
        st._current = 0
        st._turn = 0
        st._legal: list[int] = []
        return st

    def clone(self) -> ArktiaState:
        """An independent copy (cheap: a few list copies)."""
        c = object.__new__(ArktiaState)
        c.game = self.game
        c._stacks = self._stacks[:]
        c._kinds = self._kinds[:]
        c._colour_tiles = self._colour_tiles[:]
        c._occupied = self._occupied
        c._alive = self._alive
        c._reserve = self._reserve[:]
        c._neutral_reserve = self._neutral_reserve[:]
        c._removed = self._removed[:]
        c._melted = self._melted[:]
        c._lost_pieces = self._lost_pieces[:]
        c._ended = self._ended[:]
        c._round = self._round
        c._pending_decision = self._pending_decision
        c._pending_choices = self._pending_choices
        c._must_melt = self._must_melt
        c._current = self._current
        c._turn = self._turn
        c._legal = self._legal  # never mutated in place, only replaced
        return c

    # ------------------------------------------------------------------ accessors
    @property
    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""
        return self._current

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.game.num_players

    @property
    def phase(self) -> str:
        """``"setup"``, ``"opening"``, ``"normal"``, ``"melt"`` or ``"choose"``."""
        if self._pending_decision is not None:
            return self._pending_decision
        return ROUND_PHASES[self._round]

    @property
    def round(self) -> int:
        """0 = neutral setup, 1 and 2 = opening placement rounds, 3 = normal play."""
        return self._round

    @property
    def choosing_colour(self) -> int | None:
        """During "choose": the colour (seat or NEUTRAL) whose tied groups are offered."""
        return self._pending_choices[0][0] if self._pending_choices else None

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
        return self._neutral_reserve[seat]

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
            return (
                self.game.num_neutral
                - sum(map(sum, self._neutral_reserve))
                - self._lost_pieces[NEUTRAL]
            )
        return 3 * PIECES_PER_KIND - sum(self._reserve[colour]) - self._lost_pieces[colour]

    def colour_tiles(self, colour: int) -> int:
        """Bitmask of the tiles holding a piece of ``colour``."""
        return self._colour_tiles[colour]

    def pending_groups(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Pending group choices as ((colour, (group bitmask, ...)), ...), active first."""
        return self._pending_choices

    def is_terminal(self) -> bool:
        """True when every player's game has ended (R20)."""
        return self._current < 0

    def scores(self) -> list[int]:
        """R21 as the position stands: removed pieces + melted tiles + controlled tiles."""
        sc = [r + m for r, m in zip(self._removed, self._melted, strict=True)]
        stacks = self._stacks
        for t in iter_bits(self._occupied):
            owner = stacks[t][-1][0]
            if owner != NEUTRAL:
                sc[owner] += 1
        return sc

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Legal action indices, ascending (empty once terminal)."""
        return list(self._legal)

    def _turn_actions(self) -> list[int]:
        """Actions at the start of the current player's turn (setup, opening, normal)."""
        game = self.game
        lay = game.layout
        N = game.num_tiles
        p = self._current
        empty = self._alive & ~self._occupied
        out: list[int] = []
        if self._round == SETUP:
            neutral = self._colour_tiles[NEUTRAL]
            # R6: the first neutral piece anywhere, later ones next to a neutral piece
            targets = empty & lay.closed_neighbourhood(neutral) if neutral else empty
            res = self._neutral_reserve[p]
        else:
            if self._round == OPENING_1:
                occ = self._occupied
                # R8: seat 0 next to a neutral piece (the only pieces yet), later seats
                # next to any occupied tile; on an empty board anywhere
                targets = empty & lay.closed_neighbourhood(occ) if occ else empty
            else:
                targets = empty & lay.closed_neighbourhood(self._colour_tiles[p])  # R9, R11
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
        own = self._colour_tiles[p]
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
        for t in iter_bits(alive & ~self._occupied):
            if (nbr[t] & alive).bit_count() < 6:
                rest = alive & ~(1 << t)
                low = rest & -rest
                if not rest or lay.component_of(low.bit_length() - 1, rest) == rest:
                    out.append(melt + t)
        return out

    def _keep_actions(self) -> list[int]:
        """One keep action per tied group of the active choice: its lowest tile."""
        keep = self.game.codec.KEEP
        return sorted(keep + (g & -g).bit_length() - 1 for g in self._pending_choices[0][1])

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
            self._melted[self._current] += 1
            self._end_turn()
        elif a < codec.STOP:
            self._keep(a - codec.KEEP)
        else:
            self._ended[self._current] = True  # R19d
            self._end_turn()

    def _check(self, action: Any) -> int:
        """``action`` as an int if it is legal now, else the IllegalActionError."""
        a = as_integer(action)
        if a is None:
            raise IllegalActionError(f"action {action!r} is not an integer action index")
        if a in self._legal:
            return a
        raise self._illegal_action_error(a)

    def _illegal_action_error(self, a: int) -> IllegalActionError:
        """The error for the illegal action ``a`` (an int), with the reason and legal moves."""
        if self._current < 0:
            return IllegalActionError(f"action {a}: the game is over, no action is legal")
        codec = self.game.codec
        if not 0 <= a < codec.num_actions:
            return IllegalActionError(f"action {a} out of range 0..{codec.num_actions - 1}")
        shown = ", ".join(self.action_to_string(x) for x in self._legal[:15])
        more = f" and {len(self._legal) - 15} more" if len(self._legal) > 15 else ""
        return IllegalActionError(
            f"action {a} ({self.action_to_string(a)}) is not legal for player {self._current} "
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
            res = (
                self._neutral_reserve[self._current]
                if self._round == SETUP
                else self._reserve[self._current]
            )
            if not res[f[0]]:
                return f"no {KIND_LETTERS[f[0]]} left to place"
            return "that tile is not an empty tile where a piece may be placed now"
        if kind == "move":
            frm, to, k = f
            if self.controller(frm) != self._current:
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
        p = self._current
        if self._round == SETUP:
            owner = NEUTRAL
            res = list(self._neutral_reserve[p])
            res[kind] -= 1
            self._neutral_reserve[p] = tuple(res)
        else:
            owner = p
            res = list(self._reserve[p])
            res[kind] -= 1
            self._reserve[p] = tuple(res)
        self._stacks[t] = ((owner, kind),)
        self._kinds[t] = (kind,)
        bit = 1 << t
        self._occupied |= bit
        self._colour_tiles[owner] |= bit
        # a placement never splits another colour, so no removal check (R15)

    def _move(self, frm: int, to: int, k: int) -> None:
        p = self._current
        stacks, kinds, cmask = self._stacks, self._kinds, self._colour_tiles
        st = stacks[frm]
        h = len(st)
        unit, rest = st[h - k :], st[: h - k]
        stacks[frm] = rest
        kinds[frm] = kinds[frm][: h - k]
        stacks[to] = stacks[to] + unit
        kinds[to] = kinds[to] + kinds_of(unit)
        bf, bt = 1 << frm, 1 << to
        self._occupied |= bt
        if not rest:
            self._occupied &= ~bf
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
            self._pending_choices = tuple(pending)
            self._pending_decision = "choose"
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
                self._occupied &= ~(1 << t)
        self._colour_tiles[colour] &= ~mask
        self._removed[self._current] += count
        self._lost_pieces[colour] += count

    def _keep(self, tile: int) -> None:
        colour, groups = self._pending_choices[0]
        for g in groups:
            if not g >> tile & 1:
                self._remove(colour, g)
        self._pending_choices = self._pending_choices[1:]
        if self._pending_choices:
            self._legal = self._keep_actions()
        else:
            self._pending_decision = None
            self._after_removals()

    def _after_removals(self) -> None:
        """Melting (R17) or its impossibility (R18), then the end of the turn."""
        if self._must_melt:
            melts = self._melt_actions()
            if melts:
                self._pending_decision = "melt"
                self._legal = melts
                return
            self._ended[self._current] = True  # R18: the move stands, the game ends
        self._end_turn()

    def _end_turn(self) -> None:
        n = self.game.num_players
        p = self._current
        self._turn += 1
        self._pending_decision = None
        self._pending_choices = ()
        self._must_melt = False
        if self._round == SETUP:
            neutral_reserve = self._neutral_reserve
            if any(map(any, neutral_reserve)):
                s = p
                for _ in range(n):
                    s = (s + 1) % n
                    if any(neutral_reserve[s]):
                        break
                self._current = s
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
            self._current = s
            self._must_melt = self._round == NORMAL and not any(self._reserve[s])
            legal = self._turn_actions()
            # stop (R19d) alone does not count as a legal placement or move (R19a)
            if len(legal) > 1 or (legal and self._round != NORMAL):
                self._legal = legal
                return
            self._ended[s] = True  # R19a
        self._current = -1
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

    def _parse_notation(self, text: str) -> int:
        return self.game.codec.parse(text, lambda t: len(self._stacks[t]))

    # ------------------------------------------------------------------ display
    def __str__(self) -> str:
        return board_text(self)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> str:
        """The full state as JSON (schema in :mod:`.serialization`)."""
        return serialization.dumps(
            ArktiaSnapshot(
                num_players=self.num_players,
                neutral_pieces=self.game.neutral_pieces,
                layout=self.game.layout,
                alive=self._alive,
                stacks=tuple(self._stacks),
                reserves=tuple(self._reserve),
                neutral_reserves=tuple(self._neutral_reserve),
                removed=tuple(self._removed),
                melted=tuple(self._melted),
                round=self._round,
                phase=self.phase,
                current_player=self._current,
                ended=tuple(self._ended),
                turn=self._turn,
                pending_choices=self._pending_choices,
            )
        )

    @classmethod
    def from_json(cls, text: str) -> ArktiaState:
        """Rebuild a state from ``to_json`` output (InvalidStateError if it is malformed or
        not a position the rules can reach).

        :func:`.serialization.loads` checks the form; :func:`state_from_snapshot` the rules.
        """
        return state_from_snapshot(serialization.loads(text))


# ---------------------------------------------------------------------- loading
def state_from_snapshot(snapshot: ArktiaSnapshot) -> ArktiaState:
    """The position of a well-formed snapshot, after the rule-level checks
    (:func:`.reachability.load_position`)."""
    try:
        game = ArktiaGame(snapshot.num_players, snapshot.layout, snapshot.neutral_pieces)
    except (InvalidLayoutError, InvalidOptionError) as exc:
        raise bad(str(exc)) from None
    st = ArktiaState._blank(game)
    reachability.load_position(st, snapshot)
    return st
