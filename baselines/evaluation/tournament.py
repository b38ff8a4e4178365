"""Seat-rotated matches between agents: round-robin tournaments and one-agent evaluations.

**Round robin.** Every unordered pair of agents (a *pairing*) plays ``games`` games.
Seats are rotated: game ``g`` uses the seat list ``[A, B, filler, ...]``, with A and B
swapped on odd ``g`` and the whole list rotated by ``g // 2`` seats, so that with
``games`` a multiple of ``2 * num_players`` both agents sit in every seat equally often
(with 2 players any even ``games`` is balanced). In 3-4 player games the other seats are
played by the *filler* agent (``"random"`` by default) and the head-to-head result is
decided between A and B only (:func:`~.stats.head_to_head`).

**Evaluation of one agent** (:func:`evaluate_agent`, used by training): the agent plays
``games_per_seat`` games from every seat against each opponent spec, which takes all the
other seats; a game counts by the agent's own result (+1 win, 0 draw, -1 loss).

Both play every game with :func:`~.arena.play_game`. Library use::

    from tabletop_zoo.baselines.evaluation.tournament import round_robin
    result = round_robin(game, ["random", "greedy"], games=20, seed=0)  # a name of GAMES
    print(result.table())
    result.write_csv("results/")
    result.plot("results/tournament.png")
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents import absolute_spec
from tabletop_zoo.baselines.agents.checks import check_agent_fits, check_seed
from tabletop_zoo.baselines.evaluation import report
from tabletop_zoo.baselines.evaluation.arena import (
    check_random_opening,
    forget_model_agents,
    make_env,
    play_game,
    play_task,
    play_tasks,
    seeded_agent,
)
from tabletop_zoo.baselines.evaluation.ratings import elo_bootstrap_intervals
from tabletop_zoo.baselines.evaluation.stats import (
    PairingStats,
    Standing,
    elo_ratings,
    game_result,
    head_to_head,
)
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import get_spec

__all__ = [
    "GameRecord",
    "TournamentResult",
    "evaluate_agent",
    "round_robin",
    "seating",
]

BACKENDS = ("local", "ray")  # where round_robin plays its games


def seating(num_players: int, game_index: int) -> list[int]:
    """Seat list for game ``game_index`` of a pairing: 0 = agent A, 1 = B, -1 = filler."""
    base = [0, 1] + [-1] * (num_players - 2)
    if game_index % 2 == 1:
        base[0], base[1] = 1, 0
    shift = (game_index // 2) % num_players
    return base[-shift:] + base[:-shift] if shift else base


@dataclass
class GameRecord:
    """One tournament game."""

    agent_a: int
    agent_b: int
    seats: list[str]  # agent name per seat (repeated names as ``random#2``; filler included)
    seat_a: int
    seat_b: int
    returns: list[float]
    scores: list[int]
    num_steps: int

    @property
    def score_a(self) -> float:
        """Head-to-head score of A (1 / 0.5 / 0)."""
        return head_to_head(self.returns, self.scores, self.seat_a, self.seat_b)


@dataclass
class TournamentResult:
    """Everything a round robin produced; ``table()``, ``write_csv()``, ``plot()``.

    ``agents`` are the display names (:func:`~.report.display_names`), ``specs`` the agent
    specs they stand for (same order).
    """

    game: str
    num_players: int
    agents: list[str]
    games: list[GameRecord] = field(default_factory=list)
    filler: str = "random"
    specs: list[str] = field(default_factory=list)
    random_opening: int = 0  # random legal actions opening every game
    _elo_intervals: tuple[int, list[tuple[float, float]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def pairings(self) -> list[PairingStats]:
        """Head-to-head stats per pairing, from the point of view of the first agent."""
        out = []
        for a, b in itertools.combinations(range(len(self.agents)), 2):
            records = [g for g in self.games if (g.agent_a, g.agent_b) == (a, b)]
            out.append(
                PairingStats.tally(
                    self.agents[a],
                    self.agents[b],
                    [r.score_a for r in records],
                    [r.scores[r.seat_a] for r in records],
                    [r.scores[r.seat_b] for r in records],
                )
            )
        return out

    def elo(self) -> list[float]:
        """Elo rating per agent (see :mod:`~.stats`)."""
        results = [(g.agent_a, g.agent_b, g.score_a) for g in self.games]
        return elo_ratings(results, len(self.agents))

    def elo_intervals(self) -> list[tuple[float, float]]:
        """95% interval of each agent's Elo: percentile bootstrap over the games
        (:func:`~.ratings.elo_bootstrap_intervals`, 100 resamples, seeded, so a table is
        reproducible); computed once per set of games."""
        key = len(self.games)
        if self._elo_intervals is None or self._elo_intervals[0] != key:
            results = [(g.agent_a, g.agent_b, g.score_a) for g in self.games]
            self._elo_intervals = (key, elo_bootstrap_intervals(results, len(self.agents)))
        return self._elo_intervals[1]

    def standings(self) -> list[Standing]:
        """Per-agent totals with Elo and its 95% interval, best Elo first."""
        elo = self.elo()
        intervals = self.elo_intervals()
        out = []
        for i, name in enumerate(self.agents):
            outcomes: list[float] = []
            my_scores: list[int] = []
            for g in self.games:
                if i in (g.agent_a, g.agent_b):
                    outcomes.append(g.score_a if g.agent_a == i else 1.0 - g.score_a)
                    my_scores.append(g.scores[g.seat_a if g.agent_a == i else g.seat_b])
            out.append(
                Standing(
                    agent=name,
                    games=len(outcomes),
                    wins=sum(s == 1.0 for s in outcomes),
                    draws=sum(s == 0.5 for s in outcomes),
                    losses=sum(s == 0.0 for s in outcomes),
                    mean_score=float(np.mean(my_scores)) if my_scores else 0.0,
                    elo=elo[i],
                    elo_low=intervals[i][0],
                    elo_high=intervals[i][1],
                )
            )
        return sorted(out, key=lambda s: -s.elo)

    def table(self) -> str:
        """Plain-text tables (at most 100 columns): pairings and standings."""
        return report.tournament_table(self)

    def write_csv(self, out_dir: str | Path) -> tuple[Path, Path, Path]:
        """Write ``pairings.csv``, ``standings.csv`` and ``games.csv``; return their paths."""
        return report.write_tournament_csv(self, out_dir)

    def plot(self, path: str | Path) -> Path:
        """Save a PNG: win/draw/loss bars per pairing and the Elo panel."""
        return report.plot_tournament(self, path)


def _check_match_input(
    game: str, num_players: int | None, games: Any, workers: Any, seed: Any, what: str
) -> int:
    """Validate the common arguments; return the player count (the game's default if None).
    ``what`` names ``games`` in the message."""
    spec = get_spec(game)  # InvalidOptionError listing the games
    players = spec.default_players if num_players is None else num_players
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidOptionError(f"{what} must be >= 1, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be >= 1, got {workers!r}")
    check_seed(seed)
    return players


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
    on_game: Callable[[GameRecord], None] | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    random_opening: int = 0,
) -> TournamentResult:
    """Play a round robin: every pair of agents plays ``games`` games (seats rotated).

    ``agent_specs`` are ``make_agent`` specs (``random``, ``greedy``, ``mcts:N``,
    ``ppo:PATH``, ``rllib:PATH``); ``filler`` fills the seats beyond A and B in 3-4 player
    games. ``workers > 1`` plays games in that many processes; ``backend="ray"`` plays every
    game as a Ray task (:mod:`.ray_backend`; a local Ray instance, or the cluster at
    ``ray_address``). Both give the same results as serial play: every game and agent is
    seeded from ``seed`` and the game's index. ``progress`` shows a tqdm bar (``train`` extra).
    ``random_opening``: the first that many actions of every game are random legal actions
    (:func:`~.arena.play_game`), so that two deterministic agents do not play one game over
    and over (both games start from one position).
    """
    if backend not in BACKENDS:
        raise InvalidOptionError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if len(agent_specs) < 2:
        raise InvalidOptionError(f"a round robin needs at least 2 agents, got {list(agent_specs)}")
    num_players = _check_match_input(game, num_players, games, workers, seed, "games per pairing")
    check_random_opening(random_opening)
    env_kwargs = dict(env_kwargs or {})
    env = make_env(game, num_players=num_players, **env_kwargs)  # bad player count/options
    forget_model_agents()  # a model file may have changed since an earlier call
    # fail fast on a bad spec (listing the forms), model path or model for another game
    for spec in [*agent_specs, filler]:
        check_agent_fits(seeded_agent(spec, 0), env, spec)
    env.close()
    if progress:
        from tabletop_zoo.baselines.extras import require_extra

        require_extra("train", "the tournament progress bar", ("tqdm",))
    names = report.display_names(agent_specs)
    result = TournamentResult(
        game,
        num_players,
        names,
        filler=filler,
        specs=list(agent_specs),
        random_opening=random_opening,
    )

    # the games get absolute model paths: a Ray worker or RLlib reads them from elsewhere
    task_specs = [absolute_spec(spec) for spec in agent_specs]
    task_filler = absolute_spec(filler)
    pairs = list(itertools.combinations(range(len(agent_specs)), 2))
    seeds = np.random.SeedSequence(seed).generate_state(len(pairs) * games)
    meta, tasks = [], []
    for p, (a, b) in enumerate(pairs):
        for g in range(games):
            seats = seating(num_players, g)
            chosen = [a if s == 0 else b if s == 1 else -1 for s in seats]
            seat_specs = [task_specs[i] if i >= 0 else task_filler for i in chosen]
            seat_names = [names[i] if i >= 0 else filler for i in chosen]
            meta.append((a, b, seat_names, seats.index(0), seats.index(1)))
            game_seed = int(seeds[p * games + g])
            tasks.append((game, num_players, env_kwargs, seat_specs, game_seed, random_opening))

    if backend == "ray":
        from tabletop_zoo.baselines.evaluation.ray_backend import play_tasks as play_on_ray

        outcomes: Any = play_on_ray(play_task, tasks, address=ray_address)
    else:
        outcomes = play_tasks(tasks, workers)
    stream = outcomes
    if progress:
        from tqdm import tqdm

        stream = tqdm(outcomes, total=len(tasks), desc="games")
    try:
        for (a, b, seat_names, seat_a, seat_b), (returns, scores, steps) in zip(
            meta, stream, strict=True
        ):
            record = GameRecord(a, b, seat_names, seat_a, seat_b, returns, scores, steps)
            result.games.append(record)
            if on_game is not None:
                on_game(record)
    finally:
        outcomes.close()  # the generator shuts down the worker processes or Ray
    return result


def evaluate_agent(
    agent: Any,
    game: str,
    num_players: int | None = None,
    opponents: Sequence[str] = ("random", "greedy"),
    games_per_seat: int = 10,
    seed: int | None = 0,
    env_kwargs: dict[str, Any] | None = None,
    name: str = "learner",
) -> list[PairingStats]:
    """Play ``agent`` from every seat against each opponent spec (all other seats).

    Returns one :class:`~.stats.PairingStats` per opponent, counting the agent's own game
    results (+1 win, 0 draw, -1 loss); ``opponent_mean_score`` is the mean score of the
    other seats. Games of seat ``s`` come before those of seat ``s + 1``; every game is
    seeded from ``seed``, the opponent's index and the game's index.
    """
    num_players = _check_match_input(game, num_players, games_per_seat, 1, seed, "games_per_seat")
    env = make_env(game, num_players=num_players, **(env_kwargs or {}))
    check_agent_fits(agent, env, name)
    rows = []
    for spec, child in zip(
        opponents, np.random.SeedSequence(seed).spawn(len(opponents)), strict=True
    ):
        game_seeds = child.generate_state(num_players * games_per_seat * 2)
        opponent = seeded_agent(spec, int(game_seeds[-1]))
        outcomes: list[float] = []
        mine: list[float] = []
        theirs: list[float] = []
        for seat in range(num_players):
            agents = [agent if s == seat else opponent for s in range(num_players)]
            for g in range(games_per_seat):
                result = play_game(env, agents, seed=int(game_seeds[seat * games_per_seat + g]))
                outcomes.append(game_result(result.returns[seat]))
                mine.append(result.scores[seat])
                others = [x for s, x in enumerate(result.scores) if s != seat]
                theirs.append(float(np.mean(others)))
        rows.append(PairingStats.tally(name, spec, outcomes, mine, theirs))
    env.close()
    return rows
