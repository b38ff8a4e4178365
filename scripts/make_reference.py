"""Maintain the shipped reference models and rating ladders (``baselines/reference_models``).

Add a model (exported to a NumPy network; the manifest records game, players, the training
command, the commit, SHA-256 and size)::

    python scripts/make_reference.py add --name GAME-3p-ppo --game GAME --num-players 3 \
        --ppo runs/x/final_model.zip --command "python scripts/train.py ..."
    python scripts/make_reference.py add --name GAME-2p-alphazero --game GAME \
        --az runs/az.npz --simulations 64 --command "python scripts/train_alphazero.py ..."

Fit a ladder: its members play every table of ``--num-players`` of them in every seating,
``--rounds`` times; the Plackett-Luce ratings (``openskill``; 2 players: Elo too) are
written to the manifest and into each member model's ``rating``::

    python scripts/make_reference.py ladder --game GAME --num-players 3 \
        --members random,greedy,mcts:50,ref:GAME-3p-ppo --rounds 4

A ladder with two deterministic members (``ref:``, ``ppo:``, ``az:``) in a game without
chance (both games start from one position) needs ``--random-opening K``, or their games
repeat one another; the ladder records K and ``scripts/rate.py`` plays its games the same way.

Each model file must stay within 5 MB and all of them within 25 MB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.reference import MANIFEST_PATH, REFERENCE_DIR, file_sha256
from tabletop_zoo.baselines.agents.reference import load_manifest as read_manifest
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.seating import lineups, play_lineups, plot_ratings
from tabletop_zoo.baselines.evaluation.stats import elo_ratings, head_to_head
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
    MANIFEST_PATH.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def add_model(args: argparse.Namespace) -> None:
    """Export and register one model."""
    meta = {"game": args.game, "num_players": args.num_players}
    if args.ppo:
        from tabletop_zoo.baselines.training.export import export_ppo_actor

        net, kind = export_ppo_actor(args.ppo, meta), "ppo"
    else:
        net, kind = DenseNet.load(args.az), "alphazero"
    if (net.meta["game"], int(net.meta["num_players"])) != (args.game, args.num_players):
        raise SystemExit(f"{args.az}: the network is for {net.meta['game']}, not {args.game}")
    net.meta.pop("history", None)
    path = net.save(REFERENCE_DIR / f"{args.name}.npz")
    size = path.stat().st_size
    manifest = read_manifest()
    others = sum(m["bytes"] for n, m in manifest["models"].items() if n != args.name)
    if size > MAX_MODEL_BYTES or others + size > MAX_TOTAL_BYTES:
        path.unlink()
        raise SystemExit(f"{args.name}: {size} bytes breaks the 5 MB / 25 MB limits")
    entry = {
        "game": args.game,
        "num_players": args.num_players,
        "kind": kind,
        "file": path.name,
        "sha256": file_sha256(path),
        "bytes": size,
        "training_command": args.command,
        "commit": args.commit or _commit(),
        "rating": None,
    }
    if kind == "alphazero":
        entry["simulations"] = args.simulations
    manifest["models"][args.name] = entry
    _write(manifest)
    print(f"added {args.name}: {path} ({size} bytes)")


def fit_ladder(args: argparse.Namespace) -> None:
    """Play the ladder's tables and write the members' ratings."""
    members = [s.strip() for s in args.members.split(",") if s.strip()]
    start = cpu_seconds()
    result = play_lineups(
        args.game,
        members,
        lineups(len(members), args.num_players),
        rounds=args.rounds,
        num_players=args.num_players,
        seed=args.seed,
        random_opening=args.random_opening,
        workers=args.workers,
    )
    ratings = result.ratings()
    entry = {
        "game": args.game,
        "num_players": args.num_players,
        "games": len(result.games),
        "random_opening": args.random_opening,
        "command": "python scripts/make_reference.py " + " ".join(sys.argv[1:]),
        "cpu_minutes": round((cpu_seconds() - start) / 60, 1),
        "scale": "openskill Plackett-Luce mu (start 25), sigma; 95%: mu +- 1.96 sigma",
        "members": {},
    }
    if args.num_players == 2:
        pairs = [
            (g.seats[0], g.seats[1], head_to_head(g.returns, g.scores, 0, 1)) for g in result.games
        ]
        elo = elo_ratings(pairs, len(members))
    for i, spec in enumerate(members):
        place = result.placements()[i]
        entry["members"][spec] = {
            "mu": round(ratings[i].value, 3),
            "sigma": round(ratings[i].sigma, 3),
            "first_share": round(place.first_share, 3),
            "mean_rank": round(place.mean_rank, 3),
        }
        if args.num_players == 2:
            entry["members"][spec]["elo"] = round(elo[i], 1)
    manifest = read_manifest()
    manifest["ladders"][f"{args.game}-{args.num_players}p"] = entry
    for spec, values in entry["members"].items():
        name = spec[len("ref:") :] if spec.startswith("ref:") else None
        if name in manifest["models"]:
            manifest["models"][name]["rating"] = {
                "ladder": f"{args.game}-{args.num_players}p",
                **{k: values[k] for k in ("mu", "sigma") + (("elo",) if "elo" in values else ())},
            }
    _write(manifest)
    if args.plot:
        plot_ratings(result, args.plot)
    print(result.table())
    print(f"{len(result.games)} games, cpu time {entry['cpu_minutes']} min")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description="Maintain the reference models and ladders.")
    sub = parser.add_subparsers(dest="command_name", required=True)
    add = sub.add_parser("add", help="export and register a model")
    add.add_argument("--name", required=True, help="<game>-<N>p-<kind>")
    add.add_argument("--game", choices=sorted(GAMES), required=True)
    add.add_argument("--num-players", type=int, required=True)
    source = add.add_mutually_exclusive_group(required=True)
    source.add_argument("--ppo", help="MaskablePPO .zip")
    source.add_argument("--az", help="AlphaZero network .npz (scripts/train_alphazero.py)")
    add.add_argument("--simulations", type=int, default=64, help="AlphaZero search size")
    add.add_argument("--command", required=True, help="the training command")
    add.add_argument("--commit", default=None, help="commit it was trained at (default HEAD)")
    ladder = sub.add_parser("ladder", help="fit a ladder's ratings")
    ladder.add_argument("--game", choices=sorted(GAMES), required=True)
    ladder.add_argument("--num-players", type=int, required=True)
    ladder.add_argument("--members", required=True, help="comma separated agent specs")
    ladder.add_argument("--rounds", type=int, default=2)
    ladder.add_argument("--seed", type=int, default=0)
    ladder.add_argument(
        "--random-opening", type=int, default=0, metavar="K",
        help="the first K actions of every game are random (needed when two members are "
        "deterministic and the game has no chance); rate.py uses the same K on this ladder",
    )  # fmt: skip
    ladder.add_argument("--workers", type=int, default=1, help="processes playing games")
    ladder.add_argument("--plot", default=None, help="save the ratings chart (PNG) here")
    args = parser.parse_args(argv)
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    if args.command_name == "add":
        add_model(args)
    else:
        fit_ladder(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
