"""Round-robin tournaments between agents: win/draw/loss rates, Wilson 95% CIs, Elo.

Every unordered pair of agents (a *pairing*) plays ``games`` games. Seats are rotated:
game ``g`` uses the seat list ``[A, B, filler, ...]``, with A and B swapped on odd ``g``
and the whole list rotated by ``g // 2`` seats, so that with ``games`` a multiple of
``2 * num_players`` both agents sit in every seat equally often (with 2 players any even
``games`` is balanced).

In 3-4 player games each game seats A and B once each and fills the other seats with
the *filler* agent (``"random"`` by default). The head-to-head result of a game is
decided between A and B only: higher return wins (+1 sole top scorer, 0 tied top,
-1 others); if both returns are equal, the higher score wins; equal scores draw. With 2
players this is just the game result.

Elo is fitted to the head-to-head results: sequential Elo updates (K=16, start 1500)
over the games in a random order, averaged over many random orders so that the
ratings do not depend on the order the games were played in.

Library use::

    from tabletop_zoo.baselines.tournament import round_robin
    result = round_robin("mole_hill", ["random", "greedy"], games=20, seed=0)
    print(result.table())
    result.write_csv("results/")
    result.plot("results/tournament.png")
"""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines import make_agent

Z_95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_INITIAL = 1500.0
ELO_K = 16.0
ELO_ORDERINGS = 100  # random game orders averaged by ``elo_ratings``


# --------------------------------------------------------------------------- statistics
def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / trials``.

    Returns ``(low, high)``; with no trials the interval is ``(0.0, 1.0)``.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_expected(rating_a: float, rating_b: float) -> float:
    """Expected score of A against B (probability of a win, draws counting half)."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def elo_update(
    rating_a: float, rating_b: float, score_a: float, k: float = ELO_K
) -> tuple[float, float]:
    """One Elo update after a game; ``score_a`` is 1 (A won), 0.5 (draw) or 0 (B won)."""
    if not 0.0 <= score_a <= 1.0:
        raise ValueError(f"score_a must be in [0, 1] (1 win, 0.5 draw, 0 loss), got {score_a}")
    delta = k * (score_a - elo_expected(rating_a, rating_b))
    return rating_a + delta, rating_b - delta


def elo_ratings(
    results: Sequence[tuple[int, int, float]],
    num_agents: int,
    k: float = ELO_K,
    initial: float = ELO_INITIAL,
    orderings: int = ELO_ORDERINGS,
    seed: int | None = 0,
) -> list[float]:
    """Elo ratings from head-to-head results ``(agent_a, agent_b, score_a)``.

    Runs sequential Elo over the results in ``orderings`` random orders and averages
    the final ratings (order-independent up to sampling noise; fixed ``seed``).
    """
    ratings_sum = np.zeros(num_agents)
    rng = np.random.default_rng(seed)
    results = list(results)
    for _ in range(max(1, orderings)):
        ratings = [initial] * num_agents
        for idx in rng.permutation(len(results)):
            a, b, score_a = results[idx]
            ratings[a], ratings[b] = elo_update(ratings[a], ratings[b], score_a, k)
        ratings_sum += ratings
    return list(ratings_sum / max(1, orderings))


# --------------------------------------------------------------------------- seating
def seating(num_players: int, game_index: int) -> list[int]:
    """Seat list for game ``game_index`` of a pairing: 0 = agent A, 1 = B, -1 = filler."""
    base = [0, 1] + [-1] * (num_players - 2)
    if game_index % 2 == 1:
        base[0], base[1] = 1, 0
    shift = (game_index // 2) % num_players
    return base[-shift:] + base[:-shift] if shift else base


def head_to_head(
    returns: Sequence[float], scores: Sequence[int], seat_a: int, seat_b: int
) -> float:
    """Score of A against B in one game: 1 win, 0.5 draw, 0 loss (returns, then scores)."""
    key_a = (returns[seat_a], scores[seat_a])
    key_b = (returns[seat_b], scores[seat_b])
    if key_a > key_b:
        return 1.0
    if key_a < key_b:
        return 0.0
    return 0.5


# --------------------------------------------------------------------------- results
@dataclass
class GameRecord:
    """One tournament game."""

    agent_a: int
    agent_b: int
    seats: list[str]  # agent name per seat (repeated specs as ``random#2``; filler included)
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
class PairingStats:
    """Head-to-head statistics of ``agent`` against ``opponent``."""

    agent: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    opponent_mean_score: float

    def rate(self, outcome: str) -> float:
        """Rate of ``"wins"``, ``"draws"`` or ``"losses"``."""
        return getattr(self, outcome) / self.games if self.games else 0.0

    def interval(self, outcome: str) -> tuple[float, float]:
        """Wilson 95% CI of the rate of ``"wins"``, ``"draws"`` or ``"losses"``."""
        return wilson_interval(getattr(self, outcome), self.games)


@dataclass
class Standing:
    """One agent's totals over all its pairings."""

    agent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    elo: float


@dataclass
class TournamentResult:
    """Everything a round robin produced; ``table()``, ``write_csv()``, ``plot()``."""

    game: str
    num_players: int
    agents: list[str]
    games: list[GameRecord] = field(default_factory=list)
    filler: str = "random"

    # ---- aggregation
    def pairings(self) -> list[PairingStats]:
        """Head-to-head stats per pairing, from the point of view of the first agent."""
        out = []
        for a, b in itertools.combinations(range(len(self.agents)), 2):
            records = [g for g in self.games if (g.agent_a, g.agent_b) == (a, b)]
            out.append(self._stats(a, b, records))
        return out

    def _stats(self, a: int, b: int, records: list[GameRecord]) -> PairingStats:
        scores = [r.score_a for r in records]
        n = len(records)
        return PairingStats(
            agent=self.agents[a],
            opponent=self.agents[b],
            games=n,
            wins=sum(s == 1.0 for s in scores),
            draws=sum(s == 0.5 for s in scores),
            losses=sum(s == 0.0 for s in scores),
            mean_score=float(np.mean([r.scores[r.seat_a] for r in records])) if n else 0.0,
            opponent_mean_score=float(np.mean([r.scores[r.seat_b] for r in records])) if n else 0.0,
        )

    def elo(self) -> list[float]:
        """Elo rating per agent (see module docstring)."""
        results = [(g.agent_a, g.agent_b, g.score_a) for g in self.games]
        return elo_ratings(results, len(self.agents))

    def standings(self) -> list[Standing]:
        """Per-agent totals, best Elo first."""
        elo = self.elo()
        out = []
        for i, name in enumerate(self.agents):
            wins = draws = losses = 0
            my_scores: list[int] = []
            for g in self.games:
                if i not in (g.agent_a, g.agent_b):
                    continue
                s = g.score_a if g.agent_a == i else 1.0 - g.score_a
                wins += s == 1.0
                draws += s == 0.5
                losses += s == 0.0
                my_scores.append(g.scores[g.seat_a if g.agent_a == i else g.seat_b])
            out.append(
                Standing(
                    agent=name,
                    games=len(my_scores),
                    wins=wins,
                    draws=draws,
                    losses=losses,
                    mean_score=float(np.mean(my_scores)) if my_scores else 0.0,
                    elo=elo[i],
                )
            )
        return sorted(out, key=lambda s: -s.elo)

    # ---- output
    def table(self) -> str:
        """Plain-text tables: pairings (rates with 95% CIs, mean scores) and standings."""
        w = max(10, *(len(a) + 2 for a in self.agents))  # name column width
        lines = [
            f"{self.game}, {self.num_players} players"
            + (f" (other seats: {self.filler})" if self.num_players > 2 else ""),
            "",
            f"{'agent':<{w}}{'opponent':<{w}}{'games':>6}  {'win [95% CI]':<20}"
            f"{'draw [95% CI]':<20}{'loss [95% CI]':<20}{'score':>7}{'opp':>7}",
        ]
        for p in self.pairings():
            cells = []
            for outcome in ("wins", "draws", "losses"):
                lo, hi = p.interval(outcome)
                cells.append(f"{p.rate(outcome):.2f} [{lo:.2f},{hi:.2f}]".ljust(20))
            lines.append(
                f"{p.agent:<{w}}{p.opponent:<{w}}{p.games:>6}  {''.join(cells)}"
                f"{p.mean_score:>7.2f}{p.opponent_mean_score:>7.2f}"
            )
        lines += [
            "",
            f"{'agent':<{w}}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'win%':>7}"
            f"{'score':>7}{'elo':>7}",
        ]
        for s in self.standings():
            rate = s.wins / s.games if s.games else 0.0
            lines.append(
                f"{s.agent:<{w}}{s.games:>6}{s.wins:>6}{s.draws:>6}{s.losses:>7}"
                f"{rate:>7.1%}{s.mean_score:>7.2f}{s.elo:>7.0f}"
            )
        return "\n".join(lines)

    def write_csv(self, out_dir: str | Path) -> tuple[Path, Path, Path]:
        """Write ``pairings.csv``, ``standings.csv`` and ``games.csv``; return their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pairings_path, standings_path, games_path = (
            out / "pairings.csv",
            out / "standings.csv",
            out / "games.csv",
        )
        with pairings_path.open("w", newline="") as f:
            w = csv.writer(f)
            header = ["game", "num_players", "agent", "opponent", "games"]
            for outcome, count in (("win", "wins"), ("draw", "draws"), ("loss", "losses")):
                header += [count, f"{outcome}_rate", f"{outcome}_ci_low", f"{outcome}_ci_high"]
            w.writerow(header + ["mean_score", "opponent_mean_score"])
            for p in self.pairings():
                row: list[Any] = [self.game, self.num_players, p.agent, p.opponent, p.games]
                for outcome in ("wins", "draws", "losses"):
                    lo, hi = p.interval(outcome)
                    row += [
                        getattr(p, outcome),
                        round(p.rate(outcome), 6),
                        round(lo, 6),
                        round(hi, 6),
                    ]
                w.writerow(row + [round(p.mean_score, 4), round(p.opponent_mean_score, 4)])
        with standings_path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["agent", "games", "wins", "draws", "losses", "mean_score", "elo"])
            for s in self.standings():
                w.writerow(
                    [
                        s.agent,
                        s.games,
                        s.wins,
                        s.draws,
                        s.losses,
                        round(s.mean_score, 4),
                        round(s.elo, 1),
                    ]
                )
        with games_path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["agent_a", "agent_b", "seats", "returns", "scores", "score_a", "num_steps"])
            for g in self.games:
                w.writerow(
                    [
                        self.agents[g.agent_a],
                        self.agents[g.agent_b],
                        "|".join(g.seats),
                        "|".join(f"{r:g}" for r in g.returns),
                        "|".join(str(s) for s in g.scores),
                        g.score_a,
                        g.num_steps,
                    ]
                )
        return pairings_path, standings_path, games_path

    def plot(self, path: str | Path) -> Path:
        """Save a PNG: stacked win/draw/loss bars per pairing (win CI whiskers) and Elo."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        pairings = self.pairings()
        standings = self.standings()
        fig, (ax1, ax2) = plt.subplots(
            1,
            2,
            figsize=(12, 2.0 + 0.5 * max(len(pairings), len(standings))),
            gridspec_kw={"width_ratios": [2, 1]},
        )
        labels = [f"{p.agent} vs {p.opponent}" for p in pairings]
        y = np.arange(len(pairings))
        left = np.zeros(len(pairings))
        for outcome, colour in (
            ("wins", "tab:green"),
            ("draws", "tab:gray"),
            ("losses", "tab:red"),
        ):
            rates = np.array([p.rate(outcome) for p in pairings])
            ax1.barh(y, rates, left=left, color=colour, label=outcome)
            left += rates
        wins = np.array([p.rate("wins") for p in pairings])
        cis = np.array([p.interval("wins") for p in pairings]).reshape(-1, 2)
        ax1.errorbar(
            wins,
            y,
            xerr=[wins - cis[:, 0], cis[:, 1] - wins],
            fmt="none",
            ecolor="black",
            capsize=3,
            label="win 95% CI",
        )
        ax1.set_yticks(y, labels)
        ax1.invert_yaxis()
        ax1.set_xlim(0, 1)
        ax1.set_xlabel("rate (first agent's view)")
        ax1.legend(
            loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize="small", frameon=False
        )
        fig.suptitle(f"{self.game}, {self.num_players} players")
        ys = np.arange(len(standings))
        ax2.barh(ys, [s.elo for s in standings], color="tab:blue")
        ax2.set_yticks(ys, [s.agent for s in standings])
        ax2.invert_yaxis()
        elos = [s.elo for s in standings]
        ax2.set_xlim(min(elos) - 50, max(elos) + 50)
        ax2.set_xlabel("Elo")
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path


# --------------------------------------------------------------------------- running
def unique_names(specs: Sequence[str]) -> list[str]:
    """Display names for agent specs; repeated specs get ``#2``, ``#3`` suffixes."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


# Per-process caches (each worker process of a parallel tournament has its own).
_ENV_CACHE: dict[tuple[str, int, str], Any] = {}
_MODEL_AGENT_CACHE: dict[str, Any] = {}


def _agent(spec: str, seed: int) -> Any:
    """A fresh seeded agent, except PPO agents (deterministic, costly to load): cached."""
    if spec.startswith("ppo"):
        if spec not in _MODEL_AGENT_CACHE:
            _MODEL_AGENT_CACHE[spec] = make_agent(spec, seed=seed)
        return _MODEL_AGENT_CACHE[spec]
    return make_agent(spec, seed=seed)


def check_agent_fits(agent: Any, env: Any, spec: str) -> None:
    """Raise ``ValueError`` if ``agent`` holds a model made for another game or player count.

    Only agents with a ``model`` (PPO) are checked: their observation shape and number
    of actions must be the env's (a model trained on Arktia cannot play Mole Hill).
    """
    model = getattr(agent, "model", None)
    if model is None:
        return
    first = env.possible_agents[0]
    want_shape = env.observation_space(first)["observation"].shape
    want_actions = env.action_space(first).n
    got_shape = getattr(getattr(model, "observation_space", None), "shape", None)
    got_actions = getattr(getattr(model, "action_space", None), "n", None)
    if (got_shape, got_actions) != (want_shape, want_actions):
        raise ValueError(
            f"agent {spec!r} was trained on observations of shape {got_shape} with "
            f"{got_actions} actions, but this game ({env.metadata['name']}, "
            f"{len(env.possible_agents)} players) has shape {want_shape} with {want_actions} "
            "actions: use a model trained on the same game and number of players"
        )


def check_seed(seed: Any, flag: str = "seed") -> None:
    """Raise ``ValueError`` unless ``seed`` is ``None`` or an int in ``0..2**32 - 1``.

    (The upper bound is NumPy's legacy global seed, which stable-baselines3 uses.)
    """
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"{flag} must be an integer in 0..{2**32 - 1}, got {seed!r}")


def _play_task(task: tuple) -> tuple[list[float], list[int], int]:
    """Play one game: ``(game, num_players, env_kwargs, seat_specs, game_seed)``."""
    from tabletop_zoo.baselines.arena import make_env, play_game

    game, num_players, env_kwargs, seat_specs, game_seed = task
    key = (game, num_players, repr(sorted(env_kwargs.items())))  # options may be unhashable
    if key not in _ENV_CACHE:
        _ENV_CACHE[key] = make_env(game, num_players=num_players, **env_kwargs)
    env = _ENV_CACHE[key]
    agent_seeds = np.random.SeedSequence(game_seed).generate_state(len(seat_specs))
    agents = [_agent(spec, int(s)) for spec, s in zip(seat_specs, agent_seeds, strict=True)]
    result = play_game(env, agents, seed=game_seed)
    return list(result.returns), list(result.scores), int(result.num_steps)


def _limit_threads() -> None:
    """Worker initialiser: one torch thread per process (PPO agents)."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # torch only matters for PPO agents
        pass


def round_robin(
    game: str,
    agent_specs: Sequence[str],
    games: int = 20,
    num_players: int = 2,
    seed: int | None = 0,
    filler: str = "random",
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = False,
    on_game: Callable[[GameRecord], None] | None = None,
) -> TournamentResult:
    """Play a round robin: every pair of agents plays ``games`` games (seats rotated).

    ``agent_specs`` are ``make_agent`` specs (``random``, ``greedy``, ``mcts:N``,
    ``ppo:PATH``); ``filler`` fills the seats beyond A and B in 3-4 player games.
    ``workers > 1`` plays games in that many processes (same results as serial play:
    every game and agent is seeded from ``seed`` and the game's index).
    """
    from tabletop_zoo.baselines.arena import GAMES, make_env

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; allowed: {', '.join(GAMES)}")
    if len(agent_specs) < 2:
        raise ValueError(f"a round robin needs at least 2 agents, got {list(agent_specs)}")
    if games < 1:
        raise ValueError(f"games per pairing must be >= 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    check_seed(seed)
    env_kwargs = dict(env_kwargs or {})
    env = make_env(game, num_players=num_players, **env_kwargs)  # bad player count/options
    _MODEL_AGENT_CACHE.clear()  # a model file may have changed since an earlier call
    # fail fast on a bad spec (ValueError lists the forms), model path or model for another game
    for spec in [*agent_specs, filler]:
        check_agent_fits(_agent(spec, 0), env, spec)
    env.close()
    result = TournamentResult(game, num_players, unique_names(agent_specs), filler=filler)

    pairs = list(itertools.combinations(range(len(agent_specs)), 2))
    seeds = np.random.SeedSequence(seed).generate_state(len(pairs) * games)
    meta, tasks = [], []
    for p, (a, b) in enumerate(pairs):
        for g in range(games):
            seats = seating(num_players, g)
            seat_specs = [
                agent_specs[a] if s == 0 else agent_specs[b] if s == 1 else filler for s in seats
            ]
            seat_names = [
                result.agents[a] if s == 0 else result.agents[b] if s == 1 else filler
                for s in seats
            ]
            meta.append((a, b, seat_names, seats.index(0), seats.index(1)))
            tasks.append((game, num_players, env_kwargs, seat_specs, int(seeds[p * games + g])))

    if workers == 1:
        outcomes: Any = map(_play_task, tasks)
        pool = None
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_limit_threads
        )
        outcomes = pool.map(_play_task, tasks, chunksize=max(1, len(tasks) // (4 * workers)))
    if progress:
        from tqdm import tqdm

        outcomes = tqdm(outcomes, total=len(tasks), desc="games")
    try:
        for (a, b, seat_names, seat_a, seat_b), (returns, scores, steps) in zip(
            meta, outcomes, strict=True
        ):
            record = GameRecord(a, b, seat_names, seat_a, seat_b, returns, scores, steps)
            result.games.append(record)
            if on_game is not None:
                on_game(record)
    finally:
        if pool is not None:
            pool.shutdown()
    return result
