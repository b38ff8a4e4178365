"""n-player matches with balanced seats: line-ups, seat permutations, placements, ratings.

A *line-up* is the multiset of agents of one game (``(0, 1, 1)``: agent 0 against two
copies of agent 1); playing it once per :func:`seat_permutations` seating puts every agent
in every seat equally often. :func:`lineups` builds the designs: every table of distinct
agents, or agent ``focus`` against every mix of the others (the ladder). :func:`play_lineups`
plays them into a :class:`SeatedResult` (:func:`seated_view` of any match records).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.evaluation.matches import (
    MatchRecord,
    Seating,
    check_match,
    play_into,
    view_fields,
)
from tabletop_zoo.baselines.evaluation.report import (
    display_names,
    incomplete_name,
    pyplot,
    save_figure,
    text_table,
    with_interval,
    write_rows,
)
from tabletop_zoo.baselines.evaluation.stats import (
    Z_95,
    PlacedGame,
    Rating,
    finishing_ranks,
    plackett_luce_ratings,
    wilson_interval,
)
from tabletop_zoo.envs.errors import InvalidOptionError


def seat_permutations(lineup: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct ordering of ``lineup`` (agent per seat), sorted: repeated agents are
    not told apart, so ``(0, 1, 1)`` has 3 seatings and ``(0, 1, 2)`` has 6."""
    return sorted(set(itertools.permutations(lineup)))


def lineups(num_agents: int, num_players: int, focus: int | None = None) -> list[tuple[int, ...]]:
    """Balanced line-ups (see the module docstring); each is sorted, ``focus`` first."""
    if num_agents < 1 or num_players < 2:
        raise InvalidOptionError(f"need >= 1 agent and >= 2 seats, got {num_agents}, {num_players}")
    if focus is not None:
        if not 0 <= focus < num_agents or num_agents < 2:
            raise InvalidOptionError(f"focus must be one of 0..{num_agents - 1} with others")
        others = [i for i in range(num_agents) if i != focus]
        combos = itertools.combinations_with_replacement(others, num_players - 1)
        return [(focus, *combo) for combo in combos]
    if num_agents >= num_players:
        return list(itertools.combinations(range(num_agents), num_players))
    return list(itertools.combinations_with_replacement(range(num_agents), num_players))


def record_ranks(record: MatchRecord) -> tuple[int, ...]:
    """Rank per seat of a played game (1 = first; ties share),
    :func:`~.stats.finishing_ranks`."""
    return finishing_ranks(record.returns, record.scores)


@dataclass(frozen=True)
class Placement:
    """How one agent placed: games, sole first places, mean rank, pairwise score.

    ``game_scores`` holds, per game, the share of the other seats the agent finished ahead
    of, a tie counting half (:func:`pairwise_score`): with 2 players 1 win, 0.5 draw, 0
    loss, so :attr:`score` is the usual "wins plus half the draws".
    """

    agent: str
    games: int
    firsts: int
    mean_rank: float
    game_scores: tuple[float, ...] = ()

    @property
    def first_share(self) -> float:
        """Share of games the agent finished sole first."""
        return self.firsts / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of :attr:`first_share`."""
        return wilson_interval(self.firsts, self.games)

    @property
    def score(self) -> float:
        """Mean pairwise score (see the class docstring); nan without games."""
        return float(np.mean(self.game_scores)) if self.game_scores else float("nan")

    def score_interval(self) -> tuple[float, float]:
        """Normal-approximation 95% interval of :attr:`score` over games, within [0, 1]."""
        n = len(self.game_scores)
        if n < 2:
            return (0.0, 1.0)
        half = Z_95 * float(np.std(self.game_scores, ddof=1)) / np.sqrt(n)
        return (max(0.0, self.score - half), min(1.0, self.score + half))

    def cells(self) -> tuple[str, ...]:
        """Its columns of a table under :data:`PLACEMENT_HEADER`."""
        share = with_interval(self.first_share, *self.interval())
        score = with_interval(self.score, *self.score_interval())
        return str(self.games), share, f"{self.mean_rank:.2f}", score


PLACEMENT_HEADER = ("games", "1st share [95%]", "mean rank", "score [95%]")


def pairwise_score(ranks: Sequence[int], seat: int) -> float:
    """Share of the other seats that ``seat`` finished ahead of (a shared rank counts
    half): 1 for a sole winner, 0 for a sole last place, 0.5 for a 2-player draw."""
    others = [r for s, r in enumerate(ranks) if s != seat]
    mine = ranks[seat]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


@dataclass
class SeatedResult:
    """The seated view of match records (``games``; an agent index per seat into
    ``agents``): placements, ratings, table and CSV."""

    game: str
    num_players: int
    agents: list[str]
    games: list[MatchRecord] = field(default_factory=list)
    random_opening: int = 0  # random legal actions opening every game
    incomplete: str | None = None  # why the games stopped early (IncompleteRunError)

    def placements(self, lineup: Sequence[int] | None = None) -> list[Placement]:
        """Per agent (a seat counts once per game it holds): sole firsts and mean rank;
        only games of ``lineup`` (as a multiset) when given."""
        wanted = None if lineup is None else sorted(lineup)
        games = [g for g in self.games if wanted is None or sorted(g.agents) == wanted]
        ranked = [(g, record_ranks(g)) for g in games]
        out = []
        for index, name in enumerate(self.agents):
            held = [
                (g, r, seat) for g, r in ranked for seat, a in enumerate(g.agents) if a == index
            ]
            firsts = sum(g.returns[seat] > 0 for g, _r, seat in held)
            mean = float(np.mean([r[seat] for _g, r, seat in held])) if held else float("nan")
            scores = tuple(pairwise_score(r, seat) for _g, r, seat in held)
            out.append(Placement(name, len(held), int(firsts), mean, scores))
        return out

    def ratings(
        self, fixed: Mapping[int, tuple[float, float]] | None = None, seed: int | None = 0
    ) -> list[Rating]:
        """Plackett-Luce ratings (openskill) per agent; ``fixed`` agents keep theirs."""
        placed = [PlacedGame(g.agents, record_ranks(g)) for g in self.games]
        return plackett_luce_ratings(placed, len(self.agents), fixed, seed=seed)

    def table(self, fixed: Mapping[int, tuple[float, float]] | None = None) -> str:
        """Plain-text table: rating [95%], games, sole first share [95%], mean rank, score."""
        ratings = self.ratings(fixed)
        place = self.placements()
        order = sorted(range(len(self.agents)), key=lambda i: -ratings[i].value)
        rows = [(self.agents[i], ratings[i], *place[i].cells()) for i in order]
        return "\n".join(text_table(rows, ("agent", "rating [95%]", *PLACEMENT_HEADER)))

    def write_csv(self, path: str | Path) -> Path:
        """One row per game: agent per seat, results, scores, ranks, random opening; written
        atomically, to ``<stem>.incomplete.csv`` when :attr:`incomplete`."""
        rows = [
            [number, " ".join(self.agents[a] for a in g.agents)]
            + [" ".join(map(str, column)) for column in (g.returns, g.scores, record_ranks(g))]
            + [self.random_opening]
            for number, g in enumerate(self.games)
        ]
        header = ["game", "seats", "returns", "scores", "ranks", "random_opening"]
        return write_rows(incomplete_name(path) if self.incomplete else path, header, rows)


def plot_ratings(
    result: SeatedResult, path: str | Path, fixed: Mapping[int, tuple[float, float]] | None = None
) -> Path:
    """Save a PNG: Plackett-Luce rating per agent with its 95% interval, best at the top."""
    plt = pyplot("the ratings chart")
    ratings = result.ratings(fixed)
    order = sorted(range(len(ratings)), key=lambda i: ratings[i].value)
    fig, axis = plt.subplots(figsize=(7, 0.5 * len(order) + 1.2))
    values = [ratings[i].value for i in order]
    errors = [
        [ratings[i].value - ratings[i].low for i in order],
        [ratings[i].high - ratings[i].value for i in order],
    ]
    axis.barh(range(len(order)), values, xerr=errors, color="tab:blue", capsize=3)
    axis.set_yticks(range(len(order)), [result.agents[i] for i in order])
    axis.set_xlabel("Plackett-Luce rating (openskill mu, 95% interval)")
    axis.set_title(f"{result.game}, {result.num_players} players: {len(result.games)} games")
    return save_figure(fig, path)


def seated_view(
    records: Sequence[MatchRecord],
    agents: Sequence[str],
    game: str | None = None,
    num_players: int | None = None,
) -> SeatedResult:
    """The seated tables of ``records`` (agent indices into ``agents``); ``game``,
    ``num_players`` and the random opening default to the records'."""
    return SeatedResult(
        agents=list(agents), **view_fields(records, game, num_players, "seated view")
    )


def lineup_schedule(
    designs: Sequence[Sequence[int]], rounds: int, seed: int | None, random_opening: int = 0
) -> list[Seating]:
    """Every seating of every line-up of ``designs`` (:func:`seat_permutations`), ``rounds``
    times over; game ``n`` of the schedule gets seed number ``n`` drawn from ``seed``."""
    seats = [s for _ in range(rounds) for lineup in designs for s in seat_permutations(lineup)]
    game_seeds = np.random.SeedSequence(seed).generate_state(max(1, len(seats)))
    return [
        Seating(tuple(s), int(game_seed), random_opening)
        for s, game_seed in zip(seats, game_seeds, strict=False)
    ]


def play_lineups(
    game: str,
    agent_specs: Sequence[str],
    designs: Sequence[Sequence[int]],
    rounds: int = 1,
    num_players: int | None = None,
    seed: int | None = 0,
    random_opening: int = 0,
    workers: int = 1,
    trust: bool = False,
    log: Any = None,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = False,
) -> SeatedResult:
    """Play every seating of every line-up of ``designs`` (indices into ``agent_specs``),
    ``rounds`` times over (:func:`lineup_schedule`); ``random_opening`` is
    :func:`~.arena.play_game`'s, ``workers``, ``trust``, ``log`` and ``progress`` are
    :func:`~.matches.play_seatings`'. Worker processes that die raise
    :class:`~.arena.IncompleteRunError` whose ``result`` holds the games played until then
    (marked :attr:`SeatedResult.incomplete`)."""
    options = {"env_options": env_kwargs, "workers": workers, "trust": trust}
    counts = {"rounds": rounds}
    players = check_match(game, num_players, agent_specs, seed, random_opening, counts, **options)
    names = display_names(agent_specs)
    result = SeatedResult(game, players, names, random_opening=random_opening)
    schedule = lineup_schedule(designs, rounds, seed, random_opening)
    options |= {"log": log, "progress": progress}
    return play_into(result, agent_specs, schedule, names=names, **options)
