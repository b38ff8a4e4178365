"""Head-to-head on the OpenSpiel bridge: our MCTSAgent against OpenSpiel's Python MCTSBot.

    python scripts/lab/openspiel_match.py --game mole_hill --simulations 50 --games 20

Both search with the same number of simulations (one random rollout each, UCT constant
1.4, both with MCTS-Solver backups: OpenSpiel's default, ours unless ``--no-solve``).
Games ``seed .. seed+games-1``; game ``g`` seats ours first when ``g`` is even, so runs
split into chunks of an even size add up to one run. Seats alternate; in 3-4
player games the other seats are uniformly random bots. Prints the wins, draws and
losses of our agent and the seconds per game. Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import time
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def play_match(
    game: Any, simulations: int, games: int, seed: int = 0, solve: bool = True
) -> tuple[list[float], float]:
    """Our MCTS's head-to-head results (+1 / 0 / -1 per game) and seconds per game
    (``game``: a ``pyspiel.Game``; ``solve``: our agent's MCTS-Solver backups)."""
    import pyspiel
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    from tabletop_zoo.wrappers.openspiel import mcts_pair

    n = game.num_players()
    results = []
    start = time.perf_counter()
    for g in range(games):
        rng = np.random.RandomState(seed + g)
        ours, theirs = (0, 1) if g % 2 == 0 else (1, 0)
        bots: list[pyspiel.Bot] = [
            UniformRandomBot(p, np.random.RandomState(seed + 1000 * g + p)) for p in range(n)
        ]
        bots[ours], bots[theirs] = mcts_pair(game, simulations, seed + g, solve=solve)
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        results.append(float(np.sign(returns[ours] - returns[theirs])))
    return results, (time.perf_counter() - start) / games


def main(argv: list[str] | None = None) -> int:
    """Entry point; prints one line of results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _flags.add_game_flags(p, next(iter(GAMES)))
    p.add_argument(
        "--simulations",
        type=cli.integer(2, 1_000_000),
        default=50,
        help="per move, both bots (at least 2: OpenSpiel's bot spends its first on the root)",
    )
    p.add_argument("--games", type=cli.integer(1, 100_000), default=20)
    p.add_argument("--seed", type=cli.integer(0, 2**31 - 1), default=0)
    p.add_argument(
        "--no-solve", action="store_true", help="our agent without MCTS-Solver backups (plain UCT)"
    )
    args = p.parse_args(argv)
    with cli.usage_errors(p):
        players = cli.players(args.game, args.num_players)
    require_extra("openspiel", "scripts/openspiel_match.py")  # one line from run_main
    import pyspiel

    from tabletop_zoo.wrappers.openspiel import short_name

    game = pyspiel.load_game(short_name(args.game), {"players": players})
    try:
        results, seconds = play_match(
            game, args.simulations, args.games, args.seed, solve=not args.no_solve
        )
    except KeyboardInterrupt:
        raise cli.Interrupted("no results (they are printed at the end)") from None
    wins, draws = results.count(1.0), results.count(0.0)
    print(
        f"{game}: our mcts{args.simulations} vs OpenSpiel MCTSBot: "
        f"{wins} wins, {draws} draws, {len(results) - wins - draws} losses "
        f"in {len(results)} games ({seconds:.2f} s/game)"
    )
    return 0


if __name__ == "__main__":
    cli.run_main(main)
