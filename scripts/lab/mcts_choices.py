"""Do our MCTSAgent and OpenSpiel's MCTSBot choose alike, position by position?

    python scripts/lab/mcts_choices.py --game mole_hill --simulations 50 --positions 30

Positions come from seeded random games stopped after a random number of plies; on each,
both searches run ``--repeats`` times from fresh seeds with the same settings. A
permutation test per position (chi-squared of the 2 x moves table, 1,000 relabellings)
gives a p-value, combined over positions by Fisher's method. ``--their-simulations`` gives
OpenSpiel's bot a known difference, to see that the test finds one. Needs the
``openspiel`` extra.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import math
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def positions(game: Any, count: int, max_plies: int, seed: int) -> list[Any]:
    """``count`` positions with at least two legal moves, from seeded random games
    (``ValueError`` if 100 games per position wanted give too few)."""
    found = []
    index = 0
    while len(found) < count:
        if index == 100 * count:
            raise ValueError(f"{index} random games gave {len(found)} positions, not {count}")
        rng = np.random.RandomState(seed + index)
        index += 1
        state = game.new_initial_state()
        for _ in range(rng.randint(0, max_plies + 1)):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def choices(
    game: Any, state: Any, simulations: tuple[int, int], repeats: int, seed: int
) -> np.ndarray:
    """The moves both searches choose on ``state`` (``simulations``: ours, OpenSpiel's):
    row 0 ours, row 1 OpenSpiel's."""
    from tabletop_zoo.wrappers.openspiel import mcts_pair

    chosen = np.zeros((2, repeats), dtype=np.int64)
    for r in range(repeats):
        ours, _ = mcts_pair(game, simulations[0], seed + r)
        _, theirs = mcts_pair(game, simulations[1], seed + r)
        ours.restart_at(state)
        chosen[0, r] = ours.step(state.clone())
        chosen[1, r] = theirs.step(state.clone())
    return chosen


def chi_squared(labels: np.ndarray, moves: np.ndarray, n_moves: int) -> float:
    """Chi-squared of the 2 x ``n_moves`` table of (sample label, chosen move index)."""
    table = np.zeros((2, n_moves))
    np.add.at(table, (labels, moves), 1)
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    used = expected > 0
    return float(((table - expected)[used] ** 2 / expected[used]).sum())


def permutation_p(chosen: np.ndarray, rng: np.random.Generator, rounds: int = 1000) -> float:
    """p-value of the two rows of ``chosen`` coming from one distribution."""
    _, moves = np.unique(chosen.ravel(), return_inverse=True)
    n_moves = int(moves.max()) + 1
    labels = np.repeat([0, 1], chosen.shape[1])
    observed = chi_squared(labels, moves, n_moves)
    at_least = sum(
        chi_squared(rng.permutation(labels), moves, n_moves) >= observed - 1e-9
        for _ in range(rounds)
    )
    return (at_least + 1) / (rounds + 1)


def fisher_p(p_values: list[float]) -> float:
    """Fisher's combined p-value: ``x = -2 sum ln p`` against chi-squared with ``2k``
    degrees of freedom, whose upper tail is ``exp(-x/2) sum_{j<k} (x/2)^j / j!``."""
    half = -sum(math.log(p) for p in p_values)
    term, tail = 1.0, 0.0
    for j in range(len(p_values)):
        tail += term
        term *= half / (j + 1)
    return min(1.0, math.exp(-half) * tail)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one line per position, then the combined test."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=sorted(GAMES), default=next(iter(GAMES)))
    p.add_argument(
        "--simulations",
        type=cli.integer(2, 1_000_000),
        default=50,
        help="per move, both bots (at least 2: OpenSpiel's bot spends its first on the root)",
    )
    p.add_argument(
        "--their-simulations",
        type=cli.integer(2, 1_000_000),
        default=None,
        help="OpenSpiel's bot with other simulations (default: the same; a known difference "
        "that the test should find)",
    )
    p.add_argument("--positions", type=cli.integer(1, 10_000), default=30)
    p.add_argument("--repeats", type=cli.integer(2, 100_000), default=200)
    p.add_argument("--max-plies", type=cli.integer(0, 10_000), default=60)
    p.add_argument("--seed", type=cli.integer(0, 2**31 - 1), default=0)
    args = p.parse_args(argv)
    require_extra("openspiel", "scripts/lab/mcts_choices.py")  # one line from run_main
    from tabletop_zoo.wrappers.openspiel import load_game

    game = load_game(args.game, {"players": 2})
    simulations = (args.simulations, args.their_simulations or args.simulations)
    rng = np.random.default_rng(args.seed)
    p_values = []
    same_top = 0
    with cli.usage_errors(p):
        found = positions(game, args.positions, args.max_plies, args.seed)
    try:
        for i, state in enumerate(found):
            chosen = choices(game, state, simulations, args.repeats, 10_000 * (i + 1))
            p_values.append(permutation_p(chosen, rng))
            tops = [np.bincount(row).argmax() for row in chosen]
            same_top += int(tops[0] == tops[1])
            distinct = [len(set(row.tolist())) for row in chosen]
            print(
                f"position {i:3d}: {len(state.legal_actions()):3d} legal moves, "
                f"distinct choices ours {distinct[0]:3d} / theirs {distinct[1]:3d}, "
                f"p = {p_values[-1]:.3f}"
            )
    except KeyboardInterrupt:
        raise cli.Interrupted("stopped; the positions above are complete") from None
    below = sum(v < 0.05 for v in p_values)
    print(
        f"{len(p_values)} positions, {args.repeats} searches per bot each: {below} with "
        f"p < 0.05 (about {0.05 * len(p_values):.1f} expected if alike); the same most "
        f"frequent move in {same_top}; Fisher's combined p = {fisher_p(p_values):.3g}"
    )
    return 0


if __name__ == "__main__":
    cli.run_main(main)
