"""Speed of the bridges to other libraries (the numbers of docs/ecosystem.md).

    python scripts/lab/bridge_speed.py openspiel        # random steps/s, OpenSpiel states
    python scripts/lab/bridge_speed.py openspiel-clone  # OpenSpiel clone() with/without hooks
    python scripts/lab/bridge_speed.py rllib            # TurnBasedMultiAgentEnv (rllib venv)
    python scripts/lab/bridge_speed.py torchrl          # TorchRL PettingZooWrapper rollouts

Every game and player count of the registry, masked uniformly random actions, a few
seconds per row (``--seconds``). Needs the library's extra.
"""

from __future__ import annotations

import tabletop_zoo  # noqa: F401 - first: Ctrl-C during the imports below is one line

# isort: split
import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_zoo.baselines import cli
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def _rates(seconds: float, make: Callable[[str, int], Any], play: Callable[[Any], int]) -> None:
    """One row per game and player count of the registry: steps per second of whole games
    ``play(make(game, count))`` (its steps) played for about ``seconds``."""
    for name, spec in GAMES.items():
        for n in spec.players:
            made = make(name, n)
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                steps += play(made)
            print(f"{spec.label(n)}: {steps / (time.perf_counter() - start):,.0f} steps/s")


def openspiel(seconds: float) -> None:
    """Random playouts through the OpenSpiel bridge's states."""
    start = time.perf_counter()
    from tabletop_zoo.wrappers import openspiel as bridge

    print(f"import tabletop_zoo.wrappers.openspiel: {time.perf_counter() - start:.2f} s")
    rng = np.random.default_rng(0)

    def play(game: Any) -> int:
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(bridge.CHANCE_SEEDS)))
                continue
            state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
        return steps

    _rates(seconds, lambda name, n: bridge.load_game(name, {"players": n}), play)


def openspiel_clone() -> None:
    """OpenSpiel's clone() after 20 moves, with the bridge's deepcopy hooks and without."""
    import pyspiel

    from tabletop_zoo.wrappers import openspiel as bridge

    def per_clone(state: pyspiel.State, reps: int) -> float:
        start = time.perf_counter()
        for _ in range(reps):
            state.clone()
        return (time.perf_counter() - start) / reps * 1e6

    states = {}
    for name, spec in GAMES.items():
        state = pyspiel.load_game(bridge.short_name(name)).new_initial_state()
        for _ in range(20):
            state.apply_action(state.legal_actions()[0])
        states[spec.label(spec.default_players)] = state
    fast = {label: per_clone(s, 5000) for label, s in states.items()}
    hooks = (bridge.TabletopGame.__deepcopy__, bridge._EngineBox.__deepcopy__)
    del bridge.TabletopGame.__deepcopy__, bridge._EngineBox.__deepcopy__
    try:
        slow = {label: per_clone(s, 200) for label, s in states.items()}
    finally:
        bridge.TabletopGame.__deepcopy__, bridge._EngineBox.__deepcopy__ = hooks
    for label in states:
        print(
            f"{label}: clone {fast[label]:.1f} us with the hooks, {slow[label]:.0f} us "
            f"without ({slow[label] / fast[label]:.0f}x)"
        )


def rllib(seconds: float) -> None:
    """Random play through the RLlib adapter (no learning)."""
    from tabletop_zoo.wrappers.rllib import TurnBasedMultiAgentEnv

    rng = np.random.default_rng(0)

    def play(env: Any) -> int:
        obs, _ = env.reset()
        steps = 0
        while True:
            ((agent, seen),) = obs.items()
            action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            obs, _, terminateds, truncateds, _ = env.step({agent: action})
            steps += 1
            if terminateds["__all__"] or truncateds["__all__"]:
                return steps

    _rates(seconds, lambda name, n: TurnBasedMultiAgentEnv({"game": name, "num_players": n}), play)


def torchrl(seconds: float) -> None:
    """Masked random rollouts of TorchRL's PettingZooWrapper over our AEC envs."""
    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    start = time.perf_counter()
    from torchrl.envs import PettingZooWrapper

    from tabletop_zoo.envs.registry import make_env

    print(f"import torchrl: {time.perf_counter() - start:.1f} s")

    def wrapped(name: str, n: int) -> Any:
        return PettingZooWrapper(make_env(name, n), use_mask=True, categorical_actions=True, seed=0)

    def play(env: Any) -> int:
        return int(env.rollout(10_000, break_when_any_done=True).batch_size[0])

    _rates(seconds, wrapped, play)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("library", choices=("openspiel", "openspiel-clone", "rllib", "torchrl"))
    p.add_argument(
        "--seconds",
        type=cli.number(0, 3600, low_open=True),
        default=3.0,
        help="per row (default 3)",
    )
    args = p.parse_args(argv)
    extra = args.library.split("-")[0]  # the extra of the library: before any measurement
    require_extra(extra, f"scripts/bridge_speed.py {args.library}")
    try:
        if args.library == "openspiel-clone":
            openspiel_clone()
        else:
            run = {"openspiel": openspiel, "rllib": rllib, "torchrl": torchrl}[args.library]
            run(args.seconds)
    except KeyboardInterrupt:
        raise cli.Interrupted("the rows printed above are complete") from None
    return 0


if __name__ == "__main__":
    cli.run_main(main)
