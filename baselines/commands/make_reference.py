"""Maintain the shipped reference models and rating ladders (``baselines/reference_models``).

``add`` exports a model (``--ppo``, ``--az``, ``--ppo-vector``) to a NumPy network and
records game, players, the training command, the commit, SHA-256 and size in the manifest::

    tabletop-zoo make-reference add --name GAME-3p-ppo --game GAME --num-players 3 \
        --ppo runs/x/final_model.zip --command "tabletop-zoo train ..."

``ladder`` has its members play every table in every seating, ``--rounds`` times, and writes
the Plackett-Luce ratings (2 players: Elo too) to the manifest and each member model. Each
model file stays within 5 MB and all of them within 25 MB.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.alphazero import check_network_meta
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.agents.reference import MANIFEST_PATH, REFERENCE_DIR, file_sha256
from tabletop_zoo.baselines.agents.reference import load_manifest as read_manifest
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation import ladder
from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.game_log import GameLog, model_digests
from tabletop_zoo.baselines.evaluation.seating import plot_ratings
from tabletop_zoo.envs._files import atomic_path, write_text_atomic
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tabletop_zoo.envs.registry import GAMES

MAX_MODEL_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 25 * 1024 * 1024


def _commit() -> str:
    """The current git commit (``unknown`` outside a clone)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _write(manifest: dict) -> None:
    write_text_atomic(MANIFEST_PATH, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def check_model_file(path: Path, kind: str, args: argparse.Namespace) -> None:
    """Load the written network back and play one move with it on the game's start
    position (``SystemExit`` naming what is wrong): a model that cannot play is refused
    before it replaces anything."""
    from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent
    from tabletop_zoo.baselines.agents.checks import check_agent_fits
    from tabletop_zoo.baselines.agents.reference import PolicyNetAgent
    from tabletop_zoo.baselines.evaluation.arena import live_state, make_env

    try:
        net = DenseNet.load(path)
        mismatch = net.layer_mismatch()
        if mismatch:
            raise ValueError(mismatch)
        if kind == "alphazero":
            agent = AlphaZeroAgent(net, num_simulations=args.simulations, seed=0)
        else:
            agent = PolicyNetAgent(net, deterministic=args.policy == "argmax", seed=0)
        env = make_env(args.game, args.num_players)
        check_agent_fits(agent, env, args.name)
        env.reset(seed=0)
        observation = env.observe(env.agent_selection)
        mask = observation["action_mask"]
        action = agent.act(observation["observation"], mask, live_state(env))
        env.close()
    except (ValueError, KeyError, IndexError) as exc:
        raise SystemExit(f"{args.name}: the new model does not play: {exc}") from None
    if not mask[action]:
        raise SystemExit(f"{args.name}: the new model plays an illegal action ({action})")


MODEL_NAME = re.compile(r"[a-z0-9][a-z0-9_]*-[0-9]+p-[a-z0-9_]+")
"""Reference model names: ``<game>-<N>p-<kind>`` (also the file name, so no paths)."""


def check_add(args: argparse.Namespace) -> None:
    """The flags of ``add``, before anything is exported or written."""
    if not MODEL_NAME.fullmatch(args.name):
        raise InvalidOptionError(f"--name must look like <game>-<N>p-<kind>, got {args.name!r}")
    cli.players(args.game, args.num_players)
    if not args.command.strip():
        raise InvalidOptionError("--command is empty: give the command that trained the model")
    for flag, path in (("--ppo", args.ppo), ("--ppo-vector", args.ppo_vector)):
        if path is not None and not Path(path).is_file():
            raise ModelFileError(f"{flag}: no file at {path!r}")
    if args.policy == "sample" and args.az is not None:
        raise InvalidOptionError("--policy sample is for PPO models (--ppo, --ppo-vector)")
    if args.az is not None:
        net = DenseNet.load(args.az)
        check_network_meta(net, args.az)
        if (net.meta["game"], int(net.meta["num_players"])) != (args.game, args.num_players):
            raise ModelFileError(
                f"--az {args.az}: the network is for {net.meta['game']} with "
                f"{net.meta['num_players']} players, not {args.game} with {args.num_players}"
            )


def check_ladder(args: argparse.Namespace) -> None:
    """The flags of ``ladder``: player count, every member (spec and model file), and the
    record of the games (``args.log``, loaded with ``--resume``)."""
    players = cli.players(args.game, args.num_players)
    members = cli.check_agents(args.members, args.game, players, "--members", code=False)
    if len(members) < 2:
        raise InvalidOptionError(f"--members needs at least 2 agent specs, got {args.members!r}")
    config = {"command": "make-reference ladder", "game": args.game, "num_players": players}
    config |= {"members": members, **_flags.pick(args, "rounds", "seed", "random_opening")}
    config["models"] = model_digests(members)
    args.log = GameLog(args.out, config, resume=args.resume)


def add_model(args: argparse.Namespace) -> None:
    """Export and register one model. The new file is written beside the shipped one and
    checked (size limits, loads, plays a move) before it replaces it; the manifest follows
    (the previous model is put back if the manifest cannot be written)."""
    meta = {"game": args.game, "num_players": args.num_players}
    source = args.ppo or args.ppo_vector or args.az
    try:
        if args.ppo:
            from tabletop_zoo.baselines.training.export import export_ppo_actor

            net, kind = export_ppo_actor(args.ppo, meta, trust=args.trust_model), "ppo"
        elif args.ppo_vector:
            from tabletop_zoo.baselines.evaluation.arena import make_env
            from tabletop_zoo.baselines.training.export import export_ppo_vector

            env = make_env(args.game, args.num_players)
            space = env.observation_space(env.possible_agents[0])["observation"]
            num_actions = int(env.action_space(env.possible_agents[0]).n)
            net = export_ppo_vector(args.ppo_vector, meta, space.shape, num_actions)
            kind = "ppo"
        else:
            net, kind = DenseNet.load(args.az), "alphazero"
    except ValueError as exc:
        raise SystemExit(f"{source}: {exc}") from None
    if (net.meta.get("game"), int(net.meta.get("num_players", 0))) != (args.game, args.num_players):
        raise SystemExit(
            f"{source}: the network is for {net.meta.get('game')} with "
            f"{net.meta.get('num_players')} players, not {args.game} with {args.num_players}"
        )
    net.meta.pop("history", None)
    target = REFERENCE_DIR / f"{args.name}.npz"
    manifest = read_manifest()
    # the shipped file is replaced last: after its checks and the manifest's write
    with atomic_path(target) as temporary:
        net.save(temporary)
        size = temporary.stat().st_size
        others = sum(m["bytes"] for n, m in manifest["models"].items() if n != args.name)
        if size > MAX_MODEL_BYTES or others + size > MAX_TOTAL_BYTES:
            raise SystemExit(f"{args.name}: {size} bytes breaks the 5 MB / 25 MB limits")
        check_model_file(temporary, kind, args)
        detail = "simulations" if kind == "alphazero" else "policy"
        manifest["models"][args.name] = {
            "game": args.game,
            "num_players": args.num_players,
            "kind": kind,
            "file": target.name,
            "sha256": file_sha256(temporary),
            "bytes": size,
            "training_command": args.command,
            "commit": args.commit or _commit(),
            "rating": None,
            detail: getattr(args, detail),
        }
        _write(manifest)
    print(f"added {args.name}: {target} ({size} bytes)")


def fit_ladder(args: argparse.Namespace) -> None:
    """Play the ladder's tables and write the members' ratings."""
    members = [s.strip() for s in args.members.split(",") if s.strip()]
    options = _flags.pick(args, "rounds", "seed", "random_opening", "workers", "log")
    options |= {"trust": args.trust_model}
    options["progress"] = _flags.progress(args)
    start = cpu_seconds()
    note = "the manifest is unchanged; "  # a ladder fit from some of its games is not written
    with cli.recorded_games(args.log, "make_reference.py", args.argv, note):
        result = ladder.play_ladder(args.game, args.num_players, members, **options)
    entry = ladder.fit_ladder(
        result,
        members,
        command=cli.program("python scripts/make_reference.py") + " " + " ".join(sys.argv[1:]),
        cpu_minutes=round((cpu_seconds() - start) / 60, 1),
    )
    manifest = read_manifest()
    ladder.record_ladder(manifest, entry)
    _write(manifest)
    if args.plot:
        plot_ratings(result, args.plot)  # atomic (report.save_figure)
    print(result.table())
    print(f"{len(result.games)} games, cpu time {entry['cpu_minutes']} min")


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description="Maintain the reference models and ladders.")
    sub = parser.add_subparsers(dest="command_name", required=True)
    add = sub.add_parser("add", help="export and register a model")
    add.add_argument("--name", required=True, help="<game>-<N>p-<kind>")
    add.add_argument("--game", choices=sorted(GAMES), required=True)
    add.add_argument("--num-players", type=cli.integer(1), required=True)
    source = add.add_mutually_exclusive_group(required=True)
    source.add_argument("--ppo", help="MaskablePPO .zip")
    source.add_argument("--ppo-vector", help="weights of tabletop-zoo ppo-vector --save (.pt)")
    source.add_argument("--az", help="AlphaZero network .npz (tabletop-zoo train-alphazero)")
    add.add_argument(
        "--policy",
        choices=["argmax", "sample"],
        default="argmax",
        help="a PPO model plays its most probable legal action, or draws one from its policy",
    )
    add.add_argument("--simulations", type=cli.integer(1), default=64, help="AlphaZero search size")
    add.add_argument("--command", required=True, help="the training command")
    add.add_argument("--commit", default=None, help="commit it was trained at (default HEAD)")
    add.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    ladder = sub.add_parser("ladder", help="fit a ladder's ratings")
    ladder.add_argument("--game", choices=sorted(GAMES), required=True)
    ladder.add_argument("--num-players", type=cli.integer(1), required=True)
    ladder.add_argument(
        "--members", required=True, help=f"comma separated agent specs: {cli.agent_help()}"
    )
    ladder.add_argument("--rounds", type=cli.integer(1), default=2)
    ladder.add_argument("--seed", type=cli.SEED, default=0)
    ladder.add_argument(
        "--random-opening",
        type=cli.integer(0),
        default=0,
        metavar="K",
        help="the first K actions of every game are random (needed when two members are "
        "deterministic and the game has no chance); rate.py uses the same K on this ladder",
    )
    ladder.add_argument("--workers", type=cli.PROCESSES, default=1, help="processes playing games")
    ladder.add_argument(
        "--plot", type=cli.output_file(".png"), help="save the ratings chart (PNG) here"
    )
    _flags.add_game_log_flags(ladder, "results/ladder")
    ladder.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
    with cli.usage_errors(parser):  # every flag, spec and model file before any work
        (check_add if args.command_name == "add" else check_ladder)(args)
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    if args.command_name == "add":
        add_model(args)
        return 0
    try:
        fit_ladder(args)
    except KeyboardInterrupt:
        program = cli.program("python scripts/make_reference.py")
        raise cli.Interrupted(
            f"the manifest is unchanged; {args.log.stopped(program, args.argv)}"
        ) from None
    return 0
