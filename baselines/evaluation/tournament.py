"""Seat-rotated matches: round-robin tournaments (:func:`round_robin`: every pairing plays
with the seats rotated, so that with ``games`` a multiple of ``2 * num_players`` both agents
sit in every seat equally often; other seats hold the *filler* and only A against B
counts), their view of any match records (:func:`tournament_view`) and one-agent
evaluations (:func:`evaluate_agent`)::

    result = round_robin(game, ["random", "greedy"], games=20, seed=0)  # a name of GAMES
    print(result.table())
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tabletop_zoo.baselines.evaluation import report
from tabletop_zoo.baselines.evaluation.arena import seeded_agent
from tabletop_zoo.baselines.evaluation.matches import (
    MatchRecord,
    Seating,
    check_match,
    play_into,
    play_seatings,
    view_fields,
)
from tabletop_zoo.baselines.evaluation.stats import (
    PairingStats,
    Standing,
    elo_bootstrap_intervals,
    elo_ratings,
    game_result,
    head_to_head,
)
from tabletop_zoo.envs.errors import InvalidOptionError


def seating(num_players: int, game_index: int) -> list[int]:
    """Seat list for game ``game_index`` of a pairing: 0 = agent A, 1 = B, -1 = filler."""
    first = game_index % 2  # A and B swap seats every other game, then both move on a seat
    base = [first, 1 - first] + [-1] * (num_players - 2)
    shift = (game_index // 2) % num_players
    return base[-shift:] + base[:-shift]


class HeadToHead(NamedTuple):
    """The pairing of one tournament game: agents A < B, their seats, A's score."""

    agent_a: int
    agent_b: int
    seat_a: int
    seat_b: int
    score_a: float  # 1 / 0.5 / 0 (:func:`~.stats.head_to_head`)


def head_to_head_of(record: MatchRecord, num_agents: int) -> HeadToHead:
    """The two agents of ``record`` below ``num_agents`` (the other seats are fillers), the
    lower index as A, with their seats and A's head-to-head score."""
    held = sorted((agent, seat) for seat, agent in enumerate(record.agents) if agent < num_agents)
    if len(held) != 2 or held[0][0] == held[1][0]:
        raise ValueError(
            f"a tournament game needs two different agents of 0..{num_agents - 1} and fillers "
            f"in the other seats, got {record.agents}"
        )
    (a, seat_a), (b, seat_b) = held
    score_a = head_to_head(record.returns, record.scores, seat_a, seat_b)
    return HeadToHead(a, b, seat_a, seat_b, score_a)


@dataclass
class TournamentResult:
    """The tournament view of match records; ``table()``, ``write_csv()``, ``plot()``.

    ``agents`` are the display names (:func:`~.report.display_names`), ``specs`` the agent
    specs they stand for (same order); in ``games`` an agent index of ``len(agents)`` or
    more is the filler.
    """

    game: str
    num_players: int
    agents: list[str]
    games: list[MatchRecord] = field(default_factory=list)
    filler: str = "random"
    specs: list[str] = field(default_factory=list)
    random_opening: int = 0  # random legal actions opening every game
    incomplete: str | None = None  # why the games stopped early (IncompleteRunError)
    _elo_intervals: tuple[int, list[tuple[float, float]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def head_to_head(self, record: MatchRecord) -> HeadToHead:
        """The pairing of one game (:func:`head_to_head_of`)."""
        return head_to_head_of(record, len(self.agents))

    def _sides(self) -> list[tuple[int, int, float, int, int]]:
        """Every game from both agents' side: ``(agent, opponent, head-to-head score, its game
        score, the opponent's)``, in game order."""
        sides = []
        for g in self.games:
            p = self.head_to_head(g)
            score_a, score_b = g.scores[p.seat_a], g.scores[p.seat_b]
            sides.append((p.agent_a, p.agent_b, p.score_a, score_a, score_b))
            sides.append((p.agent_b, p.agent_a, 1.0 - p.score_a, score_b, score_a))
        return sides

    def _tally(self, sides: list, agent: int, opponent: int | None = None) -> PairingStats:
        """The stats of ``agent`` against ``opponent`` (None: all its games) in ``sides``."""
        mine = [s for s in sides if s[0] == agent and opponent in (None, s[1])]
        return PairingStats.tally(
            self.agents[agent],
            "" if opponent is None else self.agents[opponent],
            [s[2] for s in mine],
            [s[3] for s in mine],
            [s[4] for s in mine],
        )

    def _results(self) -> list[tuple[int, int, float]]:
        return [(p.agent_a, p.agent_b, p.score_a) for p in map(self.head_to_head, self.games)]

    def pairings(self) -> list[PairingStats]:
        """Head-to-head stats per pairing, from the point of view of the first agent."""
        sides = self._sides()
        pairs = itertools.combinations(range(len(self.agents)), 2)
        return [self._tally(sides, a, b) for a, b in pairs]

    def elo(self) -> list[float]:
        """Elo rating per agent (see :mod:`~.stats`)."""
        return elo_ratings(self._results(), len(self.agents))

    def elo_intervals(self) -> list[tuple[float, float]]:
        """95% interval of each agent's Elo: percentile bootstrap over the games
        (:func:`~.stats.elo_bootstrap_intervals`, 100 resamples, seeded, so a table is
        reproducible); computed once per set of games."""
        key = len(self.games)
        if self._elo_intervals is None or self._elo_intervals[0] != key:
            self._elo_intervals = (key, elo_bootstrap_intervals(self._results(), len(self.agents)))
        return self._elo_intervals[1]

    def standings(self) -> list[Standing]:
        """Per-agent totals with Elo and its 95% interval, best Elo first."""
        elo, intervals, sides = self.elo(), self.elo_intervals(), self._sides()
        out = []
        for i in range(len(self.agents)):
            t = self._tally(sides, i)
            totals = (t.agent, t.games, t.wins, t.draws, t.losses, t.mean_score)
            out.append(Standing(*totals, elo[i], *intervals[i]))
        return sorted(out, key=lambda s: -s.elo)

    def table(self) -> str:
        """Plain-text tables (at most 100 columns): pairings and standings."""
        return report.tournament_table(self)

    def write_csv(self, out_dir: str | Path) -> tuple[Path, Path, Path]:
        """Write ``pairings.csv``, ``standings.csv`` and ``games.csv`` (``*.incomplete.csv``
        when :attr:`incomplete`); return their paths."""
        return report.write_tournament_csv(self, out_dir)

    def plot(self, path: str | Path) -> Path:
        """Save :func:`~.report.tournament_figure` as a PNG at ``path`` (folders made as
        needed; :func:`~.report.incomplete_name` of it when :attr:`incomplete`)."""
        path = report.incomplete_name(path) if self.incomplete else path
        return report.save_figure(report.tournament_figure(self), path)


def tournament_view(
    records: Sequence[MatchRecord],
    agents: Sequence[str],
    specs: Sequence[str] | None = None,
    filler: str = "random",
    game: str | None = None,
    num_players: int | None = None,
) -> TournamentResult:
    """The tournament tables of ``records`` (each game: two of ``agents``, fillers in the
    other seats). ``game``, ``num_players`` and the random opening default to the records'."""
    fields = view_fields(records, game, num_players, "tournament view")
    return TournamentResult(agents=list(agents), filler=filler, specs=list(specs or []), **fields)


def round_robin_schedule(
    num_agents: int, num_players: int, games: int, seed: int | None, random_opening: int = 0
) -> list[Seating]:
    """The seatings of a round robin: for every pair ``a < b`` of ``num_agents`` agents,
    ``games`` games with the seats of :func:`seating`; the filler is agent ``num_agents``.
    Game ``g`` of pair ``p`` gets seed number ``p * games + g`` drawn from ``seed``."""
    pairs = list(itertools.combinations(range(num_agents), 2))
    seeds = np.random.SeedSequence(seed).generate_state(len(pairs) * games)
    schedule = []
    for p, (a, b) in enumerate(pairs):
        for g in range(games):
            seats = seating(num_players, g)
            chosen = tuple(a if s == 0 else b if s == 1 else num_agents for s in seats)
            schedule.append(Seating(chosen, int(seeds[p * games + g]), random_opening))
    return schedule


def round_robin(
    game: str,
    agent_specs: Sequence[str],
    games: int = 20,
    num_players: int | None = None,
    seed: int | None = 0,
    filler: str = "random",
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = False,
    log: Any = None,
    backend: str = "local",
    ray_address: str | None = None,
    random_opening: int = 0,
    trust: bool = False,
) -> TournamentResult:
    """Play a round robin of ``agent_specs``: every pair plays ``games`` games (seats
    rotated, ``filler`` in the other seats). ``random_opening`` is
    :func:`~.arena.play_game`'s; ``workers``, ``backend``, ``ray_address``, ``trust``,
    ``progress`` and ``log`` are :func:`~.matches.play_seatings`'. Worker processes that die
    raise :class:`~.arena.IncompleteRunError` whose ``result`` holds the games played until
    then (marked :attr:`TournamentResult.incomplete`)."""
    if len(agent_specs) < 2:
        raise InvalidOptionError(f"a round robin needs at least 2 agents, got {list(agent_specs)}")
    agents, counts = [*agent_specs, filler], {"games per pairing": games}
    options = {"env_options": env_kwargs, "workers": workers, "backend": backend, "trust": trust}
    num_players = check_match(game, num_players, agents, seed, random_opening, counts, **options)
    names = report.display_names(agent_specs)
    schedule = round_robin_schedule(len(agent_specs), num_players, games, seed, random_opening)
    result = TournamentResult(game, num_players, names, filler=filler, specs=list(agent_specs))
    result.random_opening = random_opening
    options |= {"ray_address": ray_address, "log": log, "progress": progress}
    return play_into(result, agents, schedule, names=[*names, filler], **options)


def evaluation_view(records: Sequence[MatchRecord], name: str, opponent: str) -> PairingStats:
    """One agent's results (agent 0 of the records, any seat) against ``opponent`` (all the
    other seats): +1 win, 0 draw, -1 loss by its own result; ``opponent_mean_score`` is the
    mean score of the other seats."""
    held = [(r, r.agents.index(0)) for r in records]
    return PairingStats.tally(
        name,
        opponent,
        [game_result(r.returns[seat]) for r, seat in held],
        [r.scores[seat] for r, seat in held],
        [float(np.mean(r.scores[:seat] + r.scores[seat + 1 :])) for r, seat in held],
    )


def evaluate_agent(
    agent: Any,
    game: str,
    num_players: int | None = None,
    opponents: Sequence[str] = ("random", "greedy"),
    games_per_seat: int = 10,
    seed: int | None = 0,
    env_kwargs: dict[str, Any] | None = None,
    name: str = "learner",
    trust: bool = False,
    games: int | None = None,
) -> list[PairingStats]:
    """Play ``agent`` (an object, played in this process) from every seat against each
    opponent spec (all other seats; loaded with ``trust``); one :func:`evaluation_view` per
    opponent. ``games`` per opponent (default ``games_per_seat`` times the seats), the
    seats' shares as even as can be: games of seat ``s`` come before those of seat
    ``s + 1``; every game is seeded from ``seed``, the opponent's index and the game's index.
    """
    counts = {"games_per_seat": games_per_seat} if games is None else {"games": games}
    num_players = check_match(
        game, num_players, [agent], seed, counts=counts, env_options=env_kwargs, names=[name]
    )
    games = num_players * games_per_seat if games is None else games
    # the agent (0) in seat n * num_players // games of game n, the opponent (1) in the others
    line_ups = [tuple(int(s != seat) for s in range(num_players)) for seat in range(num_players)]
    children = np.random.SeedSequence(seed).spawn(len(opponents))
    rows = []
    for spec, child in zip(opponents, children, strict=True):
        game_seeds = child.generate_state(games * 2)
        opponent = seeded_agent(spec, int(game_seeds[-1]), trust)
        schedule = [
            Seating(line_ups[n * num_players // games], int(game_seeds[n])) for n in range(games)
        ]
        records = play_seatings(
            game,
            num_players,
            [agent, opponent],
            schedule,
            [name, spec],
            env_kwargs,
            progress=False,  # inside training, whose own output says how far it is
        )
        rows.append(evaluation_view(records, name, spec))
    return rows
