"""Record a game between agents as an animated GIF (or MP4 with imageio-ffmpeg), or as a
one-file HTML replay.

    tabletop-zoo record --game mole_hill --agents greedy,random --out mole_hill.gif
    tabletop-zoo record --game arktia --agents mcts:100,random --html game.html --analysis
    tabletop-zoo record --from results/tournament --slot 3 --html game3.html --analysis

Every frame is the env's ``rgb_array`` picture under a status band: the move number, who
played which move in the game's notation, the round or phase with who is to act (or the
result) and the scores. Needs the ``record`` extra (``.mp4``: ``video``); ``--html``
(:mod:`tabletop_zoo.wrappers.replay`) needs none. ``--from`` plays a game of a run's record
again, checked against the recorded result; ``--from RECORD --check`` plays every game's
recorded moves again and checks each result.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents import make_agent, runs_code
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import game_log
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES, make_env
from tabletop_zoo.wrappers.recording import FORMATS, RecordEpisode


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(
        description="Record a game between agents as a GIF or MP4, or an HTML replay."
    )
    p.add_argument("--game", choices=sorted(GAMES), help="the game (not with --from)")
    p.add_argument(
        "--agents",
        help="one agent spec per seat, comma separated, e.g. greedy,random "
        f"({cli.agent_help()}); their number is the number of players",
    )
    p.add_argument(
        "--out", type=cli.output_file(*FORMATS), help=f"output animation ({' or '.join(FORMATS)})"
    )
    html_help = "output replay page (.html): one file, opens in a browser"
    p.add_argument("--html", type=cli.output_file(".html"), help=html_help)
    p.add_argument(
        "--analysis",
        action="store_true",
        help="with --html: each move's search visits, value and priors (MCTS, AlphaZero) or "
        "policy (PPO) shown on the page",
    )
    p.add_argument("--seed", type=cli.SEED, help="game and agent seed (default 0)")
    p.add_argument(
        "--from",
        dest="source",
        metavar="RECORD",
        help="a run's games.jsonl (or its folder): play its game at --slot again instead of "
        "--game and --agents (a py: agent runs only if --agents names it again)",
    )
    p.add_argument(
        "--slot",
        type=cli.integer(0),
        default=0,
        help="with --from: the game's slot in the schedule (default 0)",
    )
    p.add_argument(
        "--match",
        type=cli.integer(0),
        default=0,
        help="with --from: the match of a run of several (default 0)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="with --from: play every game's recorded moves again (no agent runs) and check "
        "its result; nothing is written",
    )
    p.add_argument(
        "--fps",
        type=cli.number(0, 1000, low_open=True),
        default=2.0,
        help="positions per second (default 2)",
    )
    p.add_argument(
        "--hold",
        type=cli.integer(0, 10_000),
        default=3,
        help="extra frames of the final position (default 3)",
    )
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    reproducible.add_flag(p)
    return p


def check_args(args: argparse.Namespace) -> list[str]:
    """Validate the flags (ValueError saying what is wrong) and return the agent specs
    (with ``--from``: the recorded game's, with ``args.game``, ``seed``, ``opening`` and
    ``recorded`` set from it)."""
    args.opening, args.recorded = 0, None
    if args.source is not None:
        if args.game or args.seed is not None:
            raise ValueError("--from plays the recorded game: leave out --game and --seed")
        config, args.recorded = game_log.read_game(args.source, args.match, args.slot)
        recorded = ",".join(args.recorded.seats)
        if args.agents is not None and args.agents.replace(" ", "") != recorded:
            raise ValueError(f"--from: --agents may only repeat the recorded ones ({recorded})")
        code = [s for s in args.recorded.seats if runs_code(s)]
        if code and args.agents is None:  # reading a file never runs code from it
            raise ValueError(
                f"--from: the record names {code[0]!r}, which runs code from its file: to play "
                f"it, name the agents yourself (--agents {recorded})"
            )
        args.game, args.agents = args.recorded.game, recorded
        args.seed, args.opening = args.recorded.seed, args.recorded.random_opening
        models = game_log.model_digests(args.recorded.seats)
        changed = [s for s in models if models[s] != config.get("models", {}).get(s)]
        if changed:
            raise ValueError(f"--from: the model file of {changed[0]} changed since the run")
    elif not args.game or not args.agents:
        raise ValueError("--game and --agents are required (or --from a run's record)")
    args.seed = 0 if args.seed is None else args.seed
    agents = [s.strip() for s in args.agents.split(",") if s.strip()]
    cli.players(args.game, len(agents), "--agents: one spec per seat, got")  # a count it allows
    cli.check_agents(agents, args.game, len(agents))  # forms, files, models for this game
    for agent in agents:
        make_agent(agent, trust=args.trust_model)  # a model that cannot load: before the game
    if args.out is None and args.html is None:
        raise ValueError("one of --out (an animation) or --html (a replay page) is required")
    if args.analysis and args.html is None:
        raise ValueError("--analysis is shown on the replay page: add --html FILE")
    if not 0 <= args.seed < 2**32:  # a record's
        raise ValueError(f"--seed must be in 0..2**32-1, got {args.seed}")
    return agents


def record(
    game: str,
    agents: list[str],
    out: str | Path | None,
    seed: int = 0,
    fps: float = 2.0,
    hold: int = 3,
    trust: bool = False,
    html: str | Path | None = None,
    analysis: bool = False,
    random_opening: int = 0,
) -> tuple[list[Path], Any]:
    """Play one game between ``agents`` (specs, one per seat), write it to ``out`` (an
    animation) and/or ``html`` (a replay page, with the agents' ``analysis`` if asked),
    atomically; returns the files and the game's result."""
    from tabletop_zoo.baselines.evaluation.arena import play_game

    players = [make_agent(s, seed=seed + i, trust=trust) for i, s in enumerate(agents)]
    env = make_env(game, num_players=len(agents), render_mode="rgb_array" if out else None)
    recorders = []
    if out is not None:
        env = RecordEpisode(env, path=out, fps=fps, final_hold=hold)
        recorders.append(env)
    if html is not None:
        env = RecordEpisode(env, path=html, format="html", agents=players if analysis else None)
        recorders.append(env)
    result = play_game(env, players, seed=seed, random_opening=random_opening)
    env.close()
    return [recorder.saved[-1] for recorder in recorders], result


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.check:  # a corrupt record or a result its moves do not give: one line
        if args.source is None:
            parser.error("--check plays the moves of a run's record: add --from RECORD")
        with cli.usage_errors(parser):
            checked = game_log.replay(args.source, "--check --from")
        print(f"{checked} games of {args.source} played again from their moves: as recorded")
        return 0
    with cli.usage_errors(parser):
        agents = check_args(args)
    # up front, before a long game: the writers this file name needs
    if args.out and Path(args.out).suffix.lower() == ".mp4":
        require_extra("video", cli.program("scripts/record.py") + " --out *.mp4")
    elif args.out:
        require_extra("record", cli.program("scripts/record.py"))
    try:
        given = {"agents": agents, "trust": args.trust_model, "random_opening": args.opening}
        paths, result = _flags.call(record, args, **given)
    except KeyboardInterrupt:
        names = " or ".join(p for p in (args.out, args.html) if p)
        raise cli.Interrupted(f"no recording written to {names}") from None
    written = ", ".join(f"{p} ({p.stat().st_size / 1024:.0f} kB)" for p in paths)
    print(f"wrote {written}; returns per seat: {result.returns}")
    played, recorded = (list(result.scores), result.num_steps), args.recorded
    if recorded and played != (list(recorded.scores), recorded.steps):
        raise cli.Failed(
            f"the game played differently from its record (scores {played[0]}, {played[1]} "
            f"moves; recorded {list(recorded.scores)}, {recorded.steps})"
        )
    return 0
