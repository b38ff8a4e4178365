"""Soak test: random legal play for N steps per game and player count, every invariant checked.

    python scripts/lab/soak.py --steps 1000000                 # every game of GAMES, every count
    python scripts/lab/soak.py --steps 5000 --env-option max_turns=30   # truncation

Seeded random games through the wrapped ``env()``; at every step: masks against
``legal_actions()``, observations in their spaces, the JSON round trip, clones equal and
independent, the compiled copy (``registry.fast_state``, with the ``fast`` extra) agreeing
before and after a move, rewards 0 until the end, all agents ending together, final rewards
the engine's ``returns()`` and ``info["scores"]`` its scores; resident memory flat (growth
under ``--max-growth-mb``). ``--env-option KEY=VALUE`` soaks a variant. Prints one row of
counts per (game, player count); exits 1 on any violation (the first few printed).
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES, fast_state, make_env, new_game


@dataclass
class SoakCounts:
    """What one soak run did and found."""

    label: str
    steps: int = 0
    games: int = 0
    terminated: int = 0
    truncated: int = 0
    json_round_trips: int = 0
    clones: int = 0
    memory_growth_mb: float = 0.0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)


def _rss_mb() -> float:
    """Resident memory of this process in MB (Linux), 0 where unknown."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        return 0.0


def _check_step(env, counts: SoakCounts, rng: random.Random, check_every: int) -> None:
    """The invariants of the position ``env`` is in before its next step."""
    raw = env.unwrapped
    state = raw.game_state
    agent = env.agent_selection
    obs, _, term, trunc, info = env.last()
    bad = counts.violations.append
    if not env.observation_space(agent).contains(obs):
        bad(f"step {counts.steps}: observation of {agent} outside its space")
    if info.get("scores") != list(state.scores()):
        bad(f"step {counts.steps}: info scores {info.get('scores')} != {state.scores()}")
    if term or trunc:
        if obs["action_mask"].any():
            bad(f"step {counts.steps}: a done agent has legal actions in its mask")
        return
    legal = state.legal_actions()
    if np.flatnonzero(obs["action_mask"]).tolist() != legal:
        bad(f"step {counts.steps}: mask != legal_actions()")
    if agent != f"player_{state.current_player}":
        bad(f"step {counts.steps}: {agent} acts but the engine says seat {state.current_player}")
    for other in env.agents:
        if other != agent and raw.action_mask(other).any():
            bad(f"step {counts.steps}: {other} has legal actions while {agent} is to act")
    if counts.steps % check_every:
        return
    text = state.to_json()
    again = type(state).from_json(text)
    counts.json_round_trips += 1
    if again != state or again.legal_actions() != legal or again.to_json() != text:
        bad(f"step {counts.steps}: JSON round trip changed the state")
    clone = state.clone()
    counts.clones += 1
    action = rng.choice(legal)
    clone.apply_action(action)
    if state.to_json() != text or state.legal_actions() != legal:
        bad(f"step {counts.steps}: playing on a clone changed the original")
    compiled = fast_state(state)  # None without numba; InvalidStateError here is a bug
    if compiled is not None:
        before = (legal, state.current_player, list(state.scores()))
        same = (compiled.legal_actions(), compiled.current_player, compiled.scores()) == before
        compiled.apply_action(action)
        if not same or compiled.legal_actions() != clone.legal_actions():
            bad(f"step {counts.steps}: the compiled copy disagrees with the Python state")


def _check_after_step(env, counts: SoakCounts, total: dict[str, float]) -> bool:
    """Rewards only at the end, all agents end together with the engine's returns
    (win mode, game over). True once the game has ended."""
    raw = env.unwrapped
    terminated = set(raw.terminations.values())
    truncated = set(raw.truncations.values())
    for a, reward in raw.rewards.items():
        total[a] += reward
    if terminated == {False} and truncated == {False}:
        if any(raw.rewards.values()):
            counts.violations.append(f"step {counts.steps}: a reward before the end")
        return False
    if terminated == {True} and truncated == {False}:
        counts.terminated += 1
        returns = [float(r) for r in raw.game_state.returns()]
        if raw.reward_mode == "win" and [total[a] for a in raw.possible_agents] != returns:
            counts.violations.append(f"game {counts.games}: rewards {total} != returns {returns}")
    elif truncated == {True}:
        counts.truncated += 1
    else:
        counts.violations.append(f"step {counts.steps}: agents did not end together")
    return True


def soak(
    game: str,
    num_players: int,
    steps: int,
    seed: int,
    check_every: int = 1,
    options: dict[str, Any] | None = None,
) -> SoakCounts:
    """Random legal play of ``game`` (env ``options``) for ``steps`` AEC steps with every
    invariant checked."""
    counts = SoakCounts(GAMES[game].label(num_players))
    env = make_env(game, num_players, **(options or {}))
    rng = random.Random(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    baseline_mb = None
    while counts.steps < steps:
        total = dict.fromkeys(env.possible_agents, 0.0)
        ended = False
        for _agent in env.agent_iter():
            _check_step(env, counts, rng, check_every)
            _, _, term, trunc, _ = env.last()
            action = None if term or trunc else rng.choice(env.unwrapped.game_state.legal_actions())
            env.step(action)
            counts.steps += 1
            if not ended:
                ended = _check_after_step(env, counts, total)
            if baseline_mb is None and counts.steps >= steps // 10:
                baseline_mb = _rss_mb()
        if not ended:
            counts.violations.append(f"game {counts.games}: agents left without an end")
        counts.games += 1
        env.reset()
    counts.seconds = time.perf_counter() - start
    counts.memory_growth_mb = _rss_mb() - (baseline_mb or _rss_mb())
    return counts


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (1 on any violation)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default=None, help="default: all")
    parser.add_argument("--steps", type=cli.integer(1), default=100_000, help="AEC steps per row")
    parser.add_argument("--seed", type=cli.SEED, default=0)
    parser.add_argument(
        "--check-every", type=cli.integer(1), default=1, help="JSON/clone checks every k steps (1)"
    )
    parser.add_argument("--max-growth-mb", type=cli.number(0), default=50.0)
    parser.add_argument(
        "--num-players", type=cli.integer(1), default=None, help="one count (needs --game)"
    )
    parser.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="env option for every run (repeatable), e.g. max_turns=30; JSON values",
    )
    args = parser.parse_args(argv)
    specs = [GAMES[args.game]] if args.game else list(GAMES.values())
    # every run's env is built once before the header: a bad option is one line
    with cli.usage_errors(parser, (InvalidOptionError,)):
        options = cli.key_values(args.env_option, "--env-option")  # values JSON when they parse
        if "num_players" in options:
            raise InvalidOptionError("--env-option num_players: use --num-players")
        if args.num_players is not None:
            if args.game is None:
                raise InvalidOptionError("--num-players needs --game")
            cli.players(args.game, args.num_players)
        runs = [(spec, n) for spec in specs for n in spec.players if args.num_players in (None, n)]
        for spec, n in runs:
            make_env(spec.name, n, **options).close()
    header = (
        f"{'game':<14}{'steps':>10}{'games':>8}{'term':>8}{'trunc':>7}{'json':>10}"
        f"{'clones':>10}{'mem MB':>8}{'secs':>8}{'violations':>11}"
    )
    for spec in specs:  # the compiled twins load (or compile) before the header, so that
        fast_state(new_game(spec.name, spec.default_players))  # from the header on it plays
    failed = False
    try:  # a Ctrl-C anywhere from the header on (between two rows too) says the same
        print(header, flush=True)
        for spec, n in runs:
            c = soak(spec.name, n, args.steps, args.seed, args.check_every, options)
            if c.memory_growth_mb > args.max_growth_mb:
                c.violations.append(f"memory grew {c.memory_growth_mb:.1f} MB")
            print(
                f"{c.label:<14}{c.steps:>10,}{c.games:>8,}{c.terminated:>8,}{c.truncated:>7,}"
                f"{c.json_round_trips:>10,}{c.clones:>10,}{c.memory_growth_mb:>8.1f}"
                f"{c.seconds:>8.0f}{len(c.violations):>11,}",
                flush=True,
            )
            for violation in c.violations[:5]:
                print(f"    {violation}", flush=True)
            failed |= bool(c.violations)
    except KeyboardInterrupt:
        raise cli.Interrupted("the rows printed above are complete") from None
    return 1 if failed else 0


if __name__ == "__main__":
    cli.run_main(main)
