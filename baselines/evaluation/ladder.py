"""The rating ladder (needs the ``train`` extra, openskill).

A *ladder* (a ``<game>-<N>p`` entry of ``baselines/reference_models/manifest.json``) is a
set of member agents with published Plackett-Luce ratings (2 players: Elo too) from every
table of N members in every seating. :func:`play_ladder`, :func:`fit_ladder` and
:func:`record_ladder` make one (``make-reference ladder``); :func:`rate_newcomer` fits only
a newcomer's rating against the members' published ones, so it lands on the ladder's
scale, and :func:`rate_against` places it against one opponent (``rate``);
:func:`refit_ladder` fits a ladder anew with one more member.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabletop_zoo.baselines.agents.reference import ladder_entry
from tabletop_zoo.baselines.evaluation.report import text_table
from tabletop_zoo.baselines.evaluation.seating import (
    PLACEMENT_HEADER,
    Placement,
    SeatedResult,
    lineups,
    play_lineups,
)
from tabletop_zoo.baselines.evaluation.stats import Rating, anchored_elo, elo_ratings, head_to_head
from tabletop_zoo.envs.errors import InvalidOptionError

LADDER_SCALE = "openskill Plackett-Luce mu (start 25), sigma; 95%: mu +- 1.96 sigma"


def ladder_key(game: str, num_players: int) -> str:
    """The manifest key of a ladder: ``<game>-<N>p``."""
    return f"{game}-{num_players}p"


def play_ladder(
    game: str, num_players: int, members: Sequence[str], rounds: int = 2, **options: Any
) -> SeatedResult:
    """Every table of ``num_players`` members in every seating, ``rounds`` times
    (:func:`~.seating.play_lineups`, whose keywords ``options`` are: seed, ...)."""
    designs = lineups(len(members), num_players)
    return play_lineups(game, list(members), designs, rounds, num_players, **options)


def fit_ladder(result: SeatedResult, members: Sequence[str], **details: Any) -> dict[str, Any]:
    """The ladder entry of a played ladder (``result``, agent ``i`` = ``members[i]``): per
    member ``mu``, ``sigma``, sole-first share and mean rank (and Elo for 2 players), the
    game, player count, number of games and random opening; ``details`` (e.g. ``command``,
    ``cpu_minutes``) are added as they are."""
    ratings, placements = result.ratings(), result.placements()
    two_players = result.num_players == 2
    if two_players:
        games = result.games
        pairs = [(g.agents[0], g.agents[1], head_to_head(g.returns, g.scores, 0, 1)) for g in games]
        elo = elo_ratings(pairs, len(members))
    entry: dict[str, Any] = {
        "game": result.game,
        "num_players": result.num_players,
        "games": len(result.games),
        "random_opening": result.random_opening,
        **details,
        "scale": LADDER_SCALE,
        "members": {},
    }
    for i, spec in enumerate(members):
        entry["members"][spec] = {
            "mu": round(ratings[i].value, 3),
            "sigma": round(ratings[i].sigma, 3),
            "first_share": round(placements[i].first_share, 3),
            "mean_rank": round(placements[i].mean_rank, 3),
        }
        if two_players:
            entry["members"][spec]["elo"] = round(elo[i], 1)
    return entry


def record_ladder(manifest: dict[str, Any], entry: Mapping[str, Any]) -> str:
    """Put ``entry`` (:func:`fit_ladder`) into ``manifest`` (a loaded manifest, changed in
    place) and give each ``ref:`` member model its rating on it; return the ladder's key."""
    key = ladder_key(entry["game"], entry["num_players"])
    manifest.setdefault("ladders", {})[key] = dict(entry)
    models = manifest.setdefault("models", {})
    for spec, values in entry["members"].items():
        name = spec[len("ref:") :] if spec.startswith("ref:") else None
        if name in models:
            kept = ("mu", "sigma") + (("elo",) if "elo" in values else ())
            models[name]["rating"] = {"ladder": key, **{k: values[k] for k in kept}}
    return key


def fixed_ratings(ladder: Mapping[str, Any]) -> dict[int, tuple[float, float]]:
    """The members' published ``(mu, sigma)`` by agent index (members numbered from 1 in the
    ladder's order, after the newcomer), to hold them fixed while rating a newcomer."""
    members = ladder["members"].values()
    return {i: (values["mu"], values["sigma"]) for i, values in enumerate(members, start=1)}


@dataclass(frozen=True)
class NewcomerRating:
    """A newcomer rated on a ladder: its games (agent 0 = the newcomer, agent ``i + 1`` =
    member ``i``), the line-ups it played, its Plackett-Luce rating on the ladder's scale and,
    for 2 players on a ladder with Elo, its maximum-likelihood Elo."""

    agent: str
    ladder: Mapping[str, Any]
    designs: tuple[tuple[int, ...], ...]
    result: SeatedResult
    rating: Rating
    elo: Rating | None

    @property
    def specs(self) -> list[str]:
        """The agent specs of the games: the newcomer, then the members."""
        return [self.agent, *self.ladder["members"]]


def rate_newcomer(
    game: str,
    num_players: int,
    agent: str,
    ladder: Mapping[str, Any] | None = None,
    rounds: int = 2,
    random_opening: int | None = None,
    **options: Any,
) -> NewcomerRating:
    """Rate ``agent`` on ``ladder`` (default: the shipped ladder of the game and player
    count): it plays every mix of the members in every seating, ``rounds`` times, with the
    ladder's random opening unless ``random_opening`` is given; the members keep their
    published ratings. ``options``: :func:`~.seating.play_lineups`' keywords (seed, ...)."""
    ladder = ladder_entry(game, num_players) if ladder is None else ladder
    if random_opening is None:
        random_opening = ladder.get("random_opening", 0)
    members = list(ladder["members"])
    specs = [agent, *members]
    designs = lineups(len(specs), num_players, focus=0)
    options["random_opening"] = random_opening
    result = play_lineups(game, specs, designs, rounds, num_players, **options)
    rating = result.ratings(fixed=fixed_ratings(ladder))[0]
    elo = None
    if num_players == 2 and all("elo" in values for values in ladder["members"].values()):
        member_elo = [values["elo"] for values in ladder["members"].values()]
        results = []
        for record in result.games:
            seat = record.agents.index(0)
            score = head_to_head(record.returns, record.scores, seat, 1 - seat)
            results.append((member_elo[record.agents[1 - seat] - 1], score))
        elo = anchored_elo(results)
    return NewcomerRating(agent, ladder, tuple(designs), result, rating, elo)


def rate_against(
    game: str,
    num_players: int,
    agent: str,
    opponent: str,
    rounds: int = 2,
    **options: Any,
) -> Placement:
    """How ``agent`` places against ``opponent`` in every other seat (every seating,
    ``rounds`` times; ``options``: :func:`~.seating.play_lineups`' keywords)."""
    specs, designs = [agent, opponent], [(0,) + (1,) * (num_players - 1)]
    return play_lineups(game, specs, designs, rounds, num_players, **options).placements()[0]


def newcomer_lines(rated: NewcomerRating) -> list[str]:
    """The report of a newcomer's rating: its placements per mix and in all, its Elo (2
    players), the ladder with the newcomer placed in it, and its rating."""
    specs, result, ladder = rated.specs, rated.result, rated.ladder
    rows = [
        (" + ".join(specs[i] for i in lineup[1:]), *result.placements(lineup)[0].cells())
        for lineup in rated.designs
    ]
    rows.append(("all", *result.placements()[0].cells()))
    lines = [*text_table(rows, ("opponents (mix)", *PLACEMENT_HEADER)), ""]
    if rated.elo is not None:
        lines.append(f"Elo on the ladder: {rated.elo}")
    key = ladder_key(result.game, result.num_players)
    lines.append(f"ladder {key} (Plackett-Luce mu, 95% interval mu +- 1.96 sigma):")
    members = [(m, v["mu"], v["sigma"]) for m, v in ladder["members"].items()]
    members.append((f"{rated.agent}  <- rated now", rated.rating.value, rated.rating.sigma))
    places = [
        (f"  {name}", f"{mu:.1f}", f"[{mu - 1.96 * sigma:.1f}, {mu + 1.96 * sigma:.1f}]")
        for name, mu, sigma in sorted(members, key=lambda r: -r[1])
    ]
    lines += text_table(places)
    lines.append(f"rating of {rated.agent}: {rated.rating}  ({len(result.games)} games)")
    return lines


def refit_ladder(
    game: str,
    num_players: int,
    newcomer: str,
    ladder: Mapping[str, Any] | None = None,
    rounds: int = 2,
    seed: int | None = 0,
    workers: int = 1,
    trust: bool = False,
    **details: Any,
) -> tuple[SeatedResult, dict[str, Any]]:
    """Play ``ladder`` (default: the shipped one) again with ``newcomer`` as one more member
    (with the ladder's random opening) and fit every rating anew; return the games and the
    new ladder entry (:func:`fit_ladder`; ``details`` are added to it)."""
    ladder = ladder_entry(game, num_players) if ladder is None else ladder
    members = list(ladder["members"])
    if newcomer in members:
        raise InvalidOptionError(f"{newcomer!r} is already a member of the ladder: {members}")
    members.append(newcomer)
    opening = ladder.get("random_opening", 0)
    options = {"seed": seed, "random_opening": opening, "workers": workers, "trust": trust}
    result = play_ladder(game, num_players, members, rounds, **options)
    return result, fit_ladder(result, members, **details)
