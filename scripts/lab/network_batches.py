"""Does a network give the same outputs for a position alone and inside a batch?

    python scripts/lab/network_batches.py --game arktia --num-players 3 --rows 512

Searches of several games can share a network call only if a position's outputs do not
depend on the other rows of the call. This evaluates ``--rows`` planes of seeded random
games with the game's reference AlphaZero network (or ``--network``) with BLAS
(``DenseNet.forward``) in calls of several sizes and with shuffled rows, and with the
fixed-order product (NumPy, and numba on the fast path), and prints how many rows differ
by a bit from one call of all rows, and the CPU cost. ``--positions K`` (numba) also
searches K positions with BLAS and with the fixed order and prints the moves that differ.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.baselines.agents.alphazero import (
    DEFAULT_SIMULATIONS,
    AlphaZeroAgent,
    check_network_meta,
)
from tabletop_zoo.baselines.agents.numpy_net import ACTIVATIONS, DenseNet
from tabletop_zoo.baselines.agents.reference import reference_entry, reference_path
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation.arena import make_env
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import fast_path_available

Dense = Callable[[np.ndarray, np.ndarray], np.ndarray]


def fixed_order_numpy(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``x @ weight`` summed over the inputs in ascending order (all rows at once)."""
    out = np.zeros((x.shape[0], weight.shape[1]), np.float32)
    for k in np.flatnonzero((x != 0).any(axis=0)):
        out += x[:, k : k + 1] * weight[k]
    return out


def fixed_order_numba() -> Dense:
    """:func:`fixed_order_numpy` compiled by numba (no fastmath: the same roundings)."""
    import numba

    @numba.njit
    def product(x, weight):  # noqa: ANN001, ANN202 - numba function
        out = np.zeros((x.shape[0], weight.shape[1]), np.float32)
        for i in range(x.shape[0]):
            for k in range(x.shape[1]):
                value = x[i, k]
                if value != 0.0:
                    for j in range(weight.shape[1]):
                        out[i, j] += value * weight[k, j]
        return out

    return product


def forward_with(net: DenseNet, dense: Dense) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """``net.forward`` with its matrix products made by ``dense``."""
    act = ACTIVATIONS[net.activation]

    def forward(inputs: np.ndarray) -> dict[str, np.ndarray]:
        x = np.asarray(inputs, np.float32).reshape(len(inputs), -1)
        for weight, bias in net.trunk:
            x = act(dense(x, weight) + bias)
        return {name: dense(x, weight) + bias for name, (weight, bias) in net.heads.items()}

    return forward


def random_planes(game: str, players: int, rows: int, seed: int) -> np.ndarray:
    """Observation planes of the seat to act at ``rows`` positions of random games."""
    env = make_env(game, players)
    rng = np.random.default_rng(seed)
    planes: list[np.ndarray] = []
    while len(planes) < rows:
        env.reset(seed=int(rng.integers(2**31)))
        for _name in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            planes.append(np.asarray(obs["observation"], np.float32).reshape(-1))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(planes[:rows])


def legal_outputs(forward: Callable) -> Callable:
    """``DenseNet.forward_flat`` (the legal actions' logits end to end, the other heads)
    from a full ``forward``."""

    def forward_flat(
        inputs: np.ndarray, actions: np.ndarray, starts: np.ndarray
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        outputs = forward(inputs)
        rows = np.repeat(np.arange(len(inputs)), np.diff(starts))
        others = {name: value for name, value in outputs.items() if name != "policy"}
        return outputs["policy"][rows, actions], others

    return forward_flat


def in_calls(forward: Callable, planes: np.ndarray, size: int) -> dict[str, np.ndarray]:
    """The outputs of ``forward`` on ``planes`` evaluated in calls of ``size`` rows, joined."""
    outputs = [forward(planes[i : i + size]) for i in range(0, len(planes), size)]
    return {head: np.concatenate([o[head] for o in outputs]) for head in outputs[0]}


def differing_rows(forward: Callable, planes: np.ndarray, size: int, full: dict) -> int:
    """Rows whose outputs, evaluated in calls of ``size`` rows, differ from ``full``."""
    got = in_calls(forward, planes, size)
    return int(np.any([(got[head] != full[head]).any(axis=1) for head in full], axis=0).sum())


def cost(forward: Callable, planes: np.ndarray, repeats: int) -> float:
    """CPU milliseconds of one call of ``forward`` on ``planes``."""
    start = time.process_time()
    for _ in range(repeats):
        forward(planes)
    return (time.process_time() - start) / repeats * 1000


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Network outputs alone and in batches.")
    _flags.add_game_flags(p)
    p.add_argument("--network", default=None, help="network file (default: the reference)")
    p.add_argument("--rows", type=cli.integer(16), default=512, help="positions (default 512)")
    p.add_argument("--seed", type=cli.integer(0), default=0, help="seed of the random games")
    p.add_argument(
        "--positions",
        type=cli.integer(0),
        default=0,
        help="also search this many positions of a game of the network against itself with "
        "BLAS and with the numba fixed-order product: CPU and moves that differ (default 0)",
    )
    args = p.parse_args(argv)
    limit_threads()  # one BLAS thread, as the agents run
    with cli.usage_errors(p):
        players = cli.players(args.game, args.num_players)
        simulations = DEFAULT_SIMULATIONS
        if args.network is None:
            reference = f"{args.game}-{players}p-alphazero"
            path = reference_path(reference)
            simulations = int(reference_entry(reference).get("simulations", simulations))
        else:
            path = Path(args.network)
        net = DenseNet.load(path)
        check_network_meta(net, repr(str(path)))
        if (net.meta["game"], int(net.meta["num_players"])) != (args.game, players):
            raise InvalidOptionError(
                f"{str(path)!r} is a network of {net.meta['game']} with "
                f"{net.meta['num_players']} players, not {args.game} with {players}"
            )
    planes = random_planes(args.game, players, args.rows, args.seed)
    n = len(planes)
    zeros = float((planes == 0).mean())
    print(f"{path.name}: {n} positions of random {args.game} games, {players} players "
          f"({zeros:.0%} of the inputs are 0)")  # fmt: skip
    full = net.forward(planes)
    for size in [s for s in (1, 2, 3, 4, 8, 12, 16, 64) if s < n]:
        print(f"BLAS, calls of {size} rows: {differing_rows(net.forward, planes, size, full)} "
              f"of {n} rows differ from one call of {n}")  # fmt: skip
    order = np.random.default_rng(args.seed).permutation(n)
    chunked, shuffled = in_calls(net.forward, planes, 8), in_calls(net.forward, planes[order], 8)
    differ = sum(int((chunked[h][order] != shuffled[h]).any(axis=1).sum()) for h in full)
    print(f"BLAS, calls of 8 rows, rows shuffled between calls: {differ} rows differ")
    ways = compare_fixed_order(net, planes, full)
    if args.positions and "fixed order (numba)" in ways:
        fixed_forward = ways["fixed order (numba)"]
        compare_moves(net, args.game, players, args.positions, simulations, fixed_forward)
    elif args.positions:
        print("--positions: not searched, the fixed-order search needs numba (fast path off)")
    return 0


def compare_fixed_order(net: DenseNet, planes: np.ndarray, full: dict) -> dict[str, Callable]:
    """Print, for BLAS and the fixed-order products, whether a row's outputs depend on the
    call's size, the cost, and how far fixed order is from BLAS; return the ways by name."""
    n = len(planes)
    ways = {"BLAS": net.forward, "fixed order (NumPy)": forward_with(net, fixed_order_numpy)}
    if fast_path_available():
        ways["fixed order (numba)"] = forward_with(net, fixed_order_numba())
        ways["fixed order (numba)"](planes[:2])  # compile before timing
    fixed = {}
    for name, forward in ways.items():
        if name != "BLAS":
            fixed[name] = forward(planes)
            counts = [differing_rows(forward, planes, s, fixed[name]) for s in (1, 3, 8, 64)]
            print(f"{name}, calls of 1, 3, 8, 64 rows: {counts} rows differ from one call")
        slow = name == "fixed order (NumPy)"
        one, eight = (cost(forward, planes[:rows], 5 if slow else 200) for rows in (1, 8))
        per_row = cost(forward, planes, 1 if slow else 5) / n
        print(f"{name} cost: {one:.3f} ms for 1 row, {eight:.3f} ms for 8 rows, "
              f"{per_row:.4f} ms per row in calls of {n}")  # fmt: skip
    values = list(fixed.values())
    if len(values) == 2:
        same = all(np.array_equal(values[0][h], values[1][h]) for h in values[0])
        print(f"fixed order, NumPy and numba give the same bits: {same}")
    gap = max(float(np.abs(values[0][h] - full[h]).max()) for h in full)
    print(f"fixed order against BLAS in one call: largest difference {gap:.3g}")
    return ways


def compare_moves(
    net: DenseNet, game: str, players: int, count: int, simulations: int, fixed: Callable
) -> None:
    """Search ``count`` positions (more than one legal action) of a game of the network
    against itself (seed 0, ``simulations`` per move) with ``net.forward`` (BLAS) and with
    ``fixed``; print the CPU of each way and how many chosen moves differ."""
    agent = AlphaZeroAgent(net, num_simulations=simulations)
    env = make_env(game, players)
    positions: list[tuple] = []
    env.reset(seed=0)
    for _name in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state, mask = env.unwrapped.game_state.clone(), obs["action_mask"].copy()
        if np.flatnonzero(mask).size > 1:
            positions.append((state, mask))
        env.step(agent.act(None, mask, env.unwrapped.game_state))
        if len(positions) >= count:
            break
    chosen, seconds = {}, {}
    for name, forward in (("BLAS", net.forward), ("fixed order (numba)", fixed)):
        agent.evaluator.net = SimpleNamespace(forward_flat=legal_outputs(forward), meta=net.meta)
        start = time.process_time()
        chosen[name] = [agent.act(None, mask, state) for state, mask in positions]
        seconds[name] = time.process_time() - start
    agent.evaluator.net = net
    differ = sum(a != b for a, b in zip(*chosen.values(), strict=True))
    blas, numba_cpu = seconds["BLAS"], seconds["fixed order (numba)"]
    print(
        f"{len(positions)} positions searched with {simulations} simulations: BLAS "
        f"{blas:.2f} CPU s, fixed order (numba) {numba_cpu:.2f} CPU s, {differ} moves differ"
    )


if __name__ == "__main__":
    cli.run_main(main)
