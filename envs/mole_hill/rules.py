"""Mole Hill rules engine: :class:`MoleHillGame` and :class:`MoleHillState`.

Rules: Reiner Knizia's text plus rulings M1-M10 (``docs/rules/MOLE_HILL.md``).

Seats: seat 0 is the mole in round 1 and the gardener in round 2; seat 1 the
reverse (M10). Within a round the mole acts first (placement, M4), then
gardener and mole alternate. The round ends when the mole, at its turn, cannot
move, or once it has left all 22 pieces (M8; see ``_mole_can_move``). A mole
that steps into a dead end still gets the gardener's (pointless) rod before its
turn comes and the round ends, as M8 says. Then the next round starts on a cleared
board, or the game ends after round 2.

Sets of spaces / edges are kept as Python int bitmasks (bit ``s`` for space
``s``, bit ``e`` for edge ``e``) so legality tests are a few integer ops.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from tabletop_zoo.envs.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    NotationError,
    as_integer,
)
from tabletop_zoo.envs.mole_hill import board, serialization
from tabletop_zoo.envs.mole_hill.serialization import (
    DEFAULT_RED,
    DEFAULT_WHITE,
    MAX_ROUND_SCORE,
    MoleHillSnapshot,
)
from tabletop_zoo.envs.protocol import StateBase
from tabletop_zoo.envs.results import win_returns

NUM_PLAYERS = 2
NUM_ROUNDS = 2
MOLE_PIECES = 22  # M3: 10 light then 12 dark
LIGHT_PIECES = 10
# MAX_ROUND_SCORE (serialization) = 12 dark pieces + 4 red * 2 + 4 white * 1 = 24 (M9)

__all__ = [
    "DEFAULT_RED",
    "DEFAULT_WHITE",
    "LIGHT_PIECES",
    "MAX_ROUND_SCORE",
    "MOLE_PIECES",
    "NUM_PLAYERS",
    "NUM_ROUNDS",
    "STEPS",
    "MoleHillGame",
    "MoleHillState",
    "board_text",
]


def _king_steps() -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
    """``STEPS[p]`` = ``(q, bit(q), path1, path2)`` for each of the <= 8 neighbours ``q``.

    ``path1`` / ``path2`` are edge bitmasks; the step is open if the rods avoid
    all edges of ``path1`` or all edges of ``path2`` (M6). Orthogonal steps have
    ``path1 == path2`` = the single edge between; a diagonal step has one path
    through each of the two spaces adjacent to both ends. Sorted by ``q``.
    """
    table = []
    for p in range(board.NUM_SPACES):
        pr, pc = divmod(p, board.COLS)
        steps = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                qr, qc = pr + dr, pc + dc
                if (dr, dc) == (0, 0) or not (0 <= qr < board.ROWS and 0 <= qc < board.COLS):
                    continue
                q = board.space_index(qr, qc)
                if dr == 0 or dc == 0:
                    path1 = path2 = 1 << board.EDGE_BETWEEN[p, q]
                else:
                    s1, s2 = board.space_index(pr, qc), board.space_index(qr, pc)
                    path1 = (1 << board.EDGE_BETWEEN[p, s1]) | (1 << board.EDGE_BETWEEN[s1, q])
                    path2 = (1 << board.EDGE_BETWEEN[p, s2]) | (1 << board.EDGE_BETWEEN[s2, q])
                steps.append((q, 1 << q, path1, path2))
        table.append(tuple(sorted(steps)))
    return tuple(table)


STEPS = _king_steps()
ALL_SPACES = tuple(range(board.NUM_SPACES))
ALL_ROD_ACTIONS = tuple(range(board.ROD_OFFSET, board.NUM_ACTIONS))


def _mask(spaces: Iterable[int]) -> int:
    m = 0
    for s in spaces:
        m |= 1 << s
    return m


class MoleHillGame:
    """Options and constants of a Mole Hill game.

    Args:
        random_flowers: variant of M2: the 4 red and 4 white flowers go on 8
            distinct random non-centre spaces drawn from ``new_initial_state``'s seed.
    """

    num_players = NUM_PLAYERS
    num_actions = board.NUM_ACTIONS
    #: The most actions a game can take: per round (M10: two) the mole places its stack and
    #: then leaves one piece per move, so it acts at most MOLE_PIECES times (M3, M8), and
    #: the gardener answers every mole action but the last (M4, M5): 2 * (22 + 21) = 86.
    max_game_length = NUM_ROUNDS * (2 * MOLE_PIECES - 1)

    def __init__(self, num_players: int = NUM_PLAYERS, random_flowers: bool = False) -> None:
        if as_integer(num_players) != NUM_PLAYERS:
            raise InvalidOptionError(
                f"Mole Hill is a 2-player game; num_players must be 2, got {num_players!r}"
            )
        if not isinstance(random_flowers, bool):
            raise InvalidOptionError(
                f"random_flowers must be True or False, got {random_flowers!r}"
            )
        self.random_flowers = random_flowers

    def __repr__(self) -> str:
        return f"MoleHillGame(random_flowers={self.random_flowers})"

    def draw_flowers(self, seed: int | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(red, white) flower spaces: the printed spots, or random ones (variant)."""
        if not self.random_flowers:
            return DEFAULT_RED, DEFAULT_WHITE
        rng = random.Random(seed)
        spaces = rng.sample([s for s in ALL_SPACES if s != board.CENTRE], 8)
        return tuple(sorted(spaces[:4])), tuple(sorted(spaces[4:]))

    def new_initial_state(self, seed: int | None = None) -> MoleHillState:
        """Round 1, mole (seat 0) to place its stack. ``seed`` only matters for random flowers."""
        red, white = self.draw_flowers(seed)
        return MoleHillState(self, red, white)


class MoleHillState(StateBase):
    """A Mole Hill position (see the module docstring); the protocol is
    :class:`~tabletop_zoo.envs.protocol.EngineState`."""

    game_name = serialization.GAME_NAME

    __slots__ = (
        "game",
        "red_flowers",
        "white_flowers",
        "_red_mask",
        "_white_mask",
        "round",
        "round_scores",
        "trail",
        "rods",
        "_visited_mask",
        "_rod_mask",
        "_free_rod_actions",
        "mole_to_move",
        "current_player",
    )

    def __init__(
        self,
        game: MoleHillGame,
        red_flowers: Sequence[int] = DEFAULT_RED,
        white_flowers: Sequence[int] = DEFAULT_WHITE,
    ) -> None:
        self.game = game
        self.red_flowers: tuple[int, ...] = tuple(red_flowers)
        self.white_flowers: tuple[int, ...] = tuple(white_flowers)
        self._red_mask = _mask(self.red_flowers)
        self._white_mask = _mask(self.white_flowers)
        self.round = 0  # 0 = first round (seat 0 is the mole), 1 = second round
        self.round_scores: list[int] = []  # mole score of each finished round
        self._start_round()

    def _start_round(self) -> None:
        self.trail: list[int] = []  # visited spaces in order; the last is the mole
        self.rods: list[int] = []  # edges with a rod, in the order placed
        self._visited_mask = 0
        self._rod_mask = 0
        self._free_rod_actions = list(ALL_ROD_ACTIONS)  # rod actions still legal, ascending
        self.mole_to_move = True
        self.current_player = self.round  # the mole of round r is seat r

    # ----------------------------------------------------------------- queries
    @property
    def mole_seat(self) -> int:
        """Seat playing the mole this round."""
        return self.round

    @property
    def mole_position(self) -> int:
        """Space of the mole's stack, -1 before its first placement."""
        return self.trail[-1] if self.trail else -1

    @property
    def pieces_left(self) -> int:
        """Pieces not yet left on the board (the stack's bottom piece counts as placed)."""
        return MOLE_PIECES - len(self.trail)

    @property
    def jump_available(self) -> bool:
        """True if the mole's next move may be a jump (it stands on the centre, M7)."""
        return self.mole_position == board.CENTRE and not self.is_terminal()

    def is_terminal(self) -> bool:
        """True once both rounds are over."""
        return self.current_player < 0

    def mole_destinations(self) -> list[int]:
        """Spaces the mole may go to on its next turn, as the position stands (ascending)."""
        n = len(self.trail)
        if n == 0:
            return list(ALL_SPACES)  # M4: first placement anywhere
        if n >= MOLE_PIECES or self.current_player < 0:
            return []  # M8: no piece left to leave behind
        pos = self.trail[-1]
        visited = self._visited_mask
        if pos == board.CENTRE:  # M7: jump to any unvisited space
            return [s for s in ALL_SPACES if not visited >> s & 1]
        rods = self._rod_mask
        # M6: unvisited neighbour, and (for diagonals) one of the two paths rod-free
        return [
            q
            for q, qbit, path1, path2 in STEPS[pos]
            if not visited & qbit and (not rods & path1 or not rods & path2)
        ]

    def _mole_can_move(self, rods: int | None = None) -> bool:
        """Whether the mole has a move, with the rods of ``rods`` (default: the board's)."""
        n = len(self.trail)
        if n == 0:
            return True
        if n >= MOLE_PIECES:
            return False
        pos = self.trail[-1]
        if pos == board.CENTRE:
            return True  # fewer than 22 of the 63 spaces are visited
        visited = self._visited_mask
        rods = self._rod_mask if rods is None else rods
        for _q, qbit, path1, path2 in STEPS[pos]:
            if not visited & qbit and (not rods & path1 or not rods & path2):
                return True
        return False

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending (empty when terminal)."""
        if self.current_player < 0:
            return []
        if self.mole_to_move:
            return self.mole_destinations()
        return list(self._free_rod_actions)

    def round_score(self) -> int:
        """The mole's score in the current round as the position stands (M9)."""
        return self._round_score_of(len(self.trail), self._visited_mask)

    def _round_score_of(self, pieces_placed: int, visited: int) -> int:
        """M9: one point per dark piece placed, one per white and two per red flower."""
        return (
            max(0, pieces_placed - LIGHT_PIECES)
            + (visited & self._white_mask).bit_count()
            + 2 * (visited & self._red_mask).bit_count()
        )

    def scores(self) -> list[int]:
        """Per seat: its mole score (finished round, or the live one, 0 before its round)."""
        out = list(self.round_scores) + [0] * (NUM_PLAYERS - len(self.round_scores))
        if self.current_player >= 0:
            out[self.round] = self.round_score()
        return out

    def greedy_best(self) -> list[int]:
        """The greedy agent's best actions, ascending: the same list as playing each legal
        action on a clone and ranking the result (if the game ends), then the score margin
        (see :class:`~tabletop_zoo.baselines.agents.search.GreedyAgent`), worked out from
        the masks without a clone. A step changes only the mole's round score; a rod
        changes no score and ends the round when it leaves the mole no move (M8)."""
        player = self.current_player
        if player < 0:
            return []
        placed = len(self.trail)
        live_score = self.round_score()  # what a rod leaves the round score at
        best_key: tuple[float, int] | None = None
        best: list[int] = []
        for action in self.legal_actions():
            if self.mole_to_move:
                round_score = self._round_score_of(placed + 1, self._visited_mask | 1 << action)
                round_ends = placed + 1 >= MOLE_PIECES
            else:
                round_score = live_score
                rods = self._rod_mask | 1 << (action - board.ROD_OFFSET)
                round_ends = not self._mole_can_move(rods)
            # Either way the scores are (round 1's, round 2's as it stands); the next round
            # starts at 0, and only the end of round 2 ends the game.
            scores = [round_score, 0] if self.round == 0 else [self.round_scores[0], round_score]
            result = win_returns(scores)[player] if round_ends and self.round == 1 else 0.0
            key = (result, scores[player] - scores[1 - player])
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return best

    # ----------------------------------------------------------------- moves
    def apply_action(self, action: int) -> None:
        """Play ``action`` for the player to move; :class:`IllegalActionError` if not legal."""
        a = as_integer(action)
        if a is None:
            raise IllegalActionError(
                f"action must be an integer in 0..{board.NUM_ACTIONS - 1}, got {action!r}"
            )
        if self.current_player < 0:
            raise IllegalActionError("the game is over: no action is legal")
        if self.mole_to_move:
            if not 0 <= a < board.NUM_SPACES or a not in self.mole_destinations():
                raise self._illegal_action_error(a)
            self.trail.append(a)
            self._visited_mask |= 1 << a
            if len(self.trail) >= MOLE_PIECES:  # M8: no piece left to leave behind
                self._end_round()
                return
            self.mole_to_move = False
            self.current_player = 1 - self.round
        else:
            edge = a - board.ROD_OFFSET
            if not 0 <= edge < board.NUM_EDGES or self._rod_mask >> edge & 1:
                raise self._illegal_action_error(a)
            self.rods.append(edge)
            self._rod_mask |= 1 << edge
            self._free_rod_actions.remove(a)
            if not self._mole_can_move():
                self._end_round()
                return
            self.mole_to_move = True
            self.current_player = self.round

    def _illegal_action_error(self, a: int) -> IllegalActionError:
        """The error for action ``a`` (an int), naming the role, the rule and legal moves."""
        role = "mole" if self.mole_to_move else "gardener"
        what = board.ACTION_NAMES[a] if 0 <= a < board.NUM_ACTIONS else "out of range"
        if self.mole_to_move:
            allowed = "an unvisited space it can reach (actions 0..62)"
        else:
            allowed = "a free interior edge (actions 63..172)"
        legal = ", ".join(board.ACTION_NAMES[x] for x in self.legal_actions()[:12])
        return IllegalActionError(
            f"illegal action {a} ({what}) for the {role} (player_{self.current_player}): "
            f"it must choose {allowed}; legal now: {legal}"
            + (", ..." if len(self.legal_actions()) > 12 else "")
        )

    def _end_round(self) -> None:
        """M8/M10: score the round; start the next one or end the game."""
        self.round_scores.append(self.round_score())
        if self.round + 1 < NUM_ROUNDS:
            self.round += 1
            self._start_round()
        else:
            self.current_player = -1  # the final board stays for display

    def round_end_board(self, action: int) -> MoleHillState | None:
        """The garden as ``action`` (legal here) leaves it when it ends round 1, before
        round 2 starts on a cleared board (M10), for pictures of the round's end: a copy with
        the move played and the round not yet scored; ``None`` for any other action."""
        after = self.clone()
        after.apply_action(action)
        if after.round == self.round:
            return None
        finished = self.clone()
        if self.mole_to_move:
            finished.trail.append(action)
            finished._visited_mask |= 1 << action
        else:
            finished.rods.append(action - board.ROD_OFFSET)
            finished._rod_mask |= 1 << finished.rods[-1]
            finished._free_rod_actions.remove(action)
        return finished

    def clone(self) -> MoleHillState:
        """An independent copy."""
        new = MoleHillState.__new__(MoleHillState)
        new.game = self.game
        new.red_flowers = self.red_flowers
        new.white_flowers = self.white_flowers
        new._red_mask = self._red_mask
        new._white_mask = self._white_mask
        new.round = self.round
        new.round_scores = list(self.round_scores)
        new.trail = list(self.trail)
        new.rods = list(self.rods)
        new._visited_mask = self._visited_mask
        new._rod_mask = self._rod_mask
        new._free_rod_actions = list(self._free_rod_actions)
        new.mole_to_move = self.mole_to_move
        new.current_player = self.current_player
        return new

    # ----------------------------------------------------------------- notation
    def action_to_string(self, action: int) -> str:
        """Notation of an action: ``e4`` (mole) or ``e4-f4`` (rod)."""
        return board.action_to_string(action)

    def _parse_notation(self, text: str) -> int:
        return board.string_to_action(text)

    def history(self) -> list[int]:
        """Actions of the current round in the order played (mole, rod, mole, ...)."""
        out: list[int] = []
        for i, space in enumerate(self.trail):
            out.append(space)
            if i < len(self.rods):
                out.append(board.rod_action(self.rods[i]))
        return out

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> str:
        """Exact, human-readable snapshot (schema in :mod:`.serialization`)."""
        return serialization.dumps(
            MoleHillSnapshot(
                random_flowers=self.game.random_flowers,
                red_flowers=self.red_flowers,
                white_flowers=self.white_flowers,
                round=self.round + 1,
                round_scores=tuple(self.round_scores),
                moves=tuple(board.ACTION_NAMES[a] for a in self.history()),
            )
        )

    @classmethod
    def from_json(cls, text: str) -> MoleHillState:
        """Rebuild a state from :meth:`to_json`; :class:`InvalidStateError` on bad input.

        :func:`.serialization.loads` checks the form; the moves of the round in progress
        are then replayed here, so every rule is checked.
        """
        snapshot = serialization.loads(text)
        round_number, scores = snapshot.round, list(snapshot.round_scores)
        game = MoleHillGame(random_flowers=snapshot.random_flowers)
        state = cls(game, snapshot.red_flowers, snapshot.white_flowers)
        state.round = round_number - 1
        state.round_scores = scores[: round_number - 1]
        state._start_round()
        for i, move in enumerate(snapshot.moves):
            if state.is_terminal() or state.round != round_number - 1:
                raise InvalidStateError(
                    f"moves go on after the round ended (move {i + 1}: {move!r})"
                )
            try:
                state.apply_action(state.string_to_action(move))
            except (IllegalActionError, NotationError) as exc:
                raise InvalidStateError(
                    f"move {i + 1} ({move!r}) of round {round_number}: {exc}"
                ) from None
        if state.round != round_number - 1:
            raise InvalidStateError(
                f"the moves end round {round_number}: a saved state lists only the moves of "
                "the round in progress (or of round 2 once the game is over)"
            )
        if state.is_terminal() != (len(scores) == round_number) or state.round_scores != scores:
            raise InvalidStateError(
                f"round_scores {scores!r} do not match the moves, which give {state.round_scores!r}"
            )
        return state

    @classmethod
    def from_position(
        cls,
        trail: Sequence[str],
        rods: Sequence[str] = (),
        *,
        mole_to_move: bool = True,
        round_number: int = 1,
        round_scores: Sequence[int] = (),
        red_flowers: Sequence[str] | None = None,
        white_flowers: Sequence[str] | None = None,
    ) -> MoleHillState:
        """Build a position by hand (for tests and analysis), e.g.
        ``from_position(["c3", "d3"], ["d3-e3", "d4-d5"], mole_to_move=True)``.

        Unlike :meth:`from_json` the rods need not have been placed in a legal
        order: only the material (M3), the trail (distinct spaces, each a king
        step or a jump from the centre) and a mole that can still move are checked.
        """
        if red_flowers is None and white_flowers is None:
            game, red, white = MoleHillGame(), DEFAULT_RED, DEFAULT_WHITE
        else:  # custom flowers are the "flowers anywhere" variant
            game = MoleHillGame(random_flowers=True)
            red, white = serialization.parse_flowers(
                list(red_flowers or ()), list(white_flowers or ()), True
            )
        if round_number not in (1, 2) or len(round_scores) != round_number - 1:
            raise InvalidStateError("round_number must be 1 or 2 with one score per finished round")
        state = cls(game, red, white)
        state.round = round_number - 1
        state.round_scores = [int(x) for x in round_scores]
        state._start_round()
        try:
            spaces = [board.parse_space(s) for s in trail]
            edges = [board.string_to_action(r) - board.ROD_OFFSET for r in rods]
        except ValueError as exc:
            raise InvalidStateError(str(exc)) from None
        if len(set(spaces)) != len(spaces) or len(spaces) > MOLE_PIECES:
            raise InvalidStateError(f"trail must be at most {MOLE_PIECES} distinct spaces")
        if any(e < 0 for e in edges) or len(set(edges)) != len(edges):
            raise InvalidStateError("rods must be distinct edges such as 'e4-f4'")
        for p, q in zip(spaces[:-1], spaces[1:], strict=True):
            if p != board.CENTRE and q not in [s for s, *_ in STEPS[p]]:
                raise InvalidStateError(
                    f"trail step {board.SPACE_NAMES[p]}->{board.SPACE_NAMES[q]} is neither a king "
                    "step nor a jump from the centre"
                )
        if not spaces and not mole_to_move:
            raise InvalidStateError("the gardener cannot move before the mole is placed")
        state.trail = spaces
        state.rods = edges
        state._visited_mask = _mask(spaces)
        state._rod_mask = _mask(edges)
        state._free_rod_actions = [a for a in ALL_ROD_ACTIONS if a - board.ROD_OFFSET not in edges]
        state.mole_to_move = mole_to_move
        state.current_player = state.round if mole_to_move else 1 - state.round
        if not (state._mole_can_move() or (not mole_to_move and len(state.trail) < MOLE_PIECES)):
            raise InvalidStateError("in this position the mole cannot move: the round is over")
        return state

    # ----------------------------------------------------------------- text
    def __str__(self) -> str:
        return board_text(self)


LEGEND = (
    "@ mole, n = trail order (1-10 light, 11-22 dark), R/W red/white flower, C centre, "
    "| and ---- rods"
)


def board_text(state: MoleHillState) -> str:
    """The plain-text board (``str(state)``), with rods, flowers, trail order and mole."""
    red, white = set(state.red_flowers), set(state.white_flowers)
    order = {s: i + 1 for i, s in enumerate(state.trail)}
    mole = state.mole_position
    rods = state._rod_mask
    mole_seat, gardener_seat = state.round, 1 - state.round
    if state.is_terminal():
        s0, s1 = state.round_scores
        result = "draw" if s0 == s1 else f"player_{0 if s0 > s1 else 1} wins"
        status = f"game over after round 2: {result}"
    else:
        role = "mole" if state.mole_to_move else "gardener"
        status = f"to move: {role} (player_{state.current_player})"
    scores = state.scores()
    lines = [
        f"Mole Hill round {state.round + 1}/2  mole: player_{mole_seat}  "
        f"gardener: player_{gardener_seat}  {status}",
        f"pieces left {state.pieces_left}  jump: {'yes' if state.jump_available else 'no'}  "
        f"scores: player_0 {scores[0]}, player_1 {scores[1]}",
        "     " + "    ".join(board.COLUMN_LETTERS),
    ]
    for r in range(board.ROWS):
        cells = []
        for c in range(board.COLS):
            s = board.space_index(r, c)
            mark = "@" if s == mole else " "
            num = f"{order[s]:2d}" if s in order else " ."
            feature = "R" if s in red else "W" if s in white else "C" if s == board.CENTRE else " "
            cells.append(mark + num + feature)
            if c < board.COLS - 1:
                cells.append("|" if rods >> board.EDGE_BETWEEN[s, s + 1] & 1 else " ")
        lines.append(f"{r + 1:>2} " + "".join(cells).rstrip())
        if r < board.ROWS - 1:
            under = [
                "----" if rods >> board.EDGE_BETWEEN[s, s + board.COLS] & 1 else "    "
                for s in range(r * board.COLS, (r + 1) * board.COLS)
            ]
            lines.append(("   " + " ".join(under)).rstrip())
    lines.append(LEGEND)
    return "\n".join(lines)
