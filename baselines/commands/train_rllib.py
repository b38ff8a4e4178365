"""Train PPO with RLlib on one of our games, then evaluate it with our tournament code.

    tabletop-zoo train-rllib --game arktia --num-players 3 --iterations 2
    tabletop-zoo train-rllib --policies snapshot --snapshot-every 5 --iterations 50
    tabletop-zoo train-rllib --address auto --env-runners 16 ...   # on a Ray cluster

``--policies``: ``shared`` (self-play), ``per-seat`` or ``snapshot`` (the other seats a
frozen copy). Writes ``OUT/checkpoint`` and ``OUT/module_<id>``, then plays the module
against ``--eval-agents`` in a round robin. Needs the ``rllib`` extra (docs/ecosystem.md).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents import absolute_spec
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="PPO with RLlib, evaluated by our tournament code.")
    _flags.add_game_flags(p, next(iter(GAMES)))
    p.add_argument("--policies", choices=("shared", "per-seat", "snapshot"), default="shared")
    p.add_argument(
        "--snapshot-every", type=cli.integer(1), default=5, help="iterations between snapshots"
    )
    p.add_argument(
        "--opponent", default=None, help=f"agent spec playing the other seats: {cli.agent_help()}"
    )
    p.add_argument(
        "--iterations", type=cli.integer(1), default=2, help="training iterations (default 2)"
    )
    p.add_argument("--batch", type=cli.integer(1), default=1000, help="env steps per iteration")
    p.add_argument("--minibatch", type=cli.integer(1), default=250)
    p.add_argument("--epochs", type=cli.integer(1), default=4)
    p.add_argument("--lr", type=cli.number(0, low_open=True), default=3e-4)
    p.add_argument(
        "--hidden",
        type=cli.layer_sizes,
        default=(256, 256),
        help="MLP layer sizes (default 256,256)",
    )
    p.add_argument("--env-runners", type=cli.integer(0), default=0, help="0: sample in the driver")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto' to join)")
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument(
        "--out",
        type=cli.output_folder(),
        default="runs/rllib",
        help="output folder (default runs/rllib)",
    )
    p.add_argument("--eval-agents", default="random", help="comma separated specs to play")
    p.add_argument(
        "--eval-games", type=cli.integer(0), default=2, help="games per pairing (default 2)"
    )
    reproducible.add_flag(p)
    return p


def build_config(args: argparse.Namespace, num_players: int):  # -> PPOConfig
    """The PPO config of the chosen setup."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from tabletop_zoo.wrappers import rllib as adapter

    env_config = {"game": args.game, "num_players": num_players, "seed": args.seed}
    if args.opponent:  # absolute: env runners on other nodes have another working folder
        env_config["opponent"] = absolute_spec(args.opponent)
    ids = adapter.module_ids(args.policies, num_players)
    config = (
        PPOConfig()
        .environment(adapter.TurnBasedMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
        )
        .multi_agent(
            policies=set(ids),
            policy_mapping_fn=adapter.policy_mapping(args.policies, num_players),
            policies_to_train=adapter.trained_module_ids(args.policies, num_players),
        )
        .rl_module(rl_module_spec=adapter.module_specs(ids, args.hidden))
        .debugging(seed=args.seed)
    )
    if args.policies == "snapshot":
        every = args.snapshot_every
        config = config.callbacks(lambda: adapter.SnapshotCallback(every))
    return config


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    with cli.usage_errors(parser):  # the player count, the specs and their models before Ray
        num_players = cli.players(args.game, args.num_players)
        if args.opponent:
            cli.check_agent(args.opponent, args.game, num_players, flag="--opponent")
        cli.check_agents(args.eval_agents, args.game, num_players, flag="--eval-agents")
    require_extra("rllib", cli.program("scripts/train_rllib.py"))
    import ray

    from tabletop_zoo.baselines.evaluation import round_robin
    from tabletop_zoo.wrappers import rllib as adapter

    # every path absolute before anything reads it or Ray sends it to a worker: RLlib reads
    # checkpoints as URIs, and a worker's working folder is wherever `ray start` ran
    out = Path(args.out).expanduser().resolve()
    start = time.perf_counter()
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(args, num_players).build_algo()
        print(f"ray up and algorithm built in {time.perf_counter() - start:.1f} s")
        for _ in range(args.iterations):
            tick = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            print(
                f"iteration {algo.iteration}: "
                f"env steps {runners.get('num_env_steps_sampled_lifetime', 0):.0f}, "
                f"episodes {runners.get('num_episodes_lifetime', 0):.0f}, "
                f"mean episode length {runners.get('episode_len_mean', float('nan')):.1f} "
                f"({time.perf_counter() - tick:.1f} s)"
            )
        checkpoint = algo.save_to_path(str(out / "checkpoint"))
        modules = adapter.trained_module_ids(args.policies, num_players)
        for module_id in modules:
            algo.get_module(module_id).save_to_path(str(out / f"module_{module_id}"))
        algo.stop()
        print(f"saved {checkpoint} and {', '.join(f'{out}/module_{m}' for m in modules)}")
    finally:
        ray.shutdown()
    print(f"training took {time.perf_counter() - start:.1f} s")
    if args.eval_games == 0:
        return 0
    specs = [f"rllib:{out / f'module_{modules[0]}'}"]
    specs += [s.strip() for s in args.eval_agents.split(",") if s.strip()]
    table = round_robin(  # trust: the module was written by this run a moment ago
        args.game, specs, games=args.eval_games, num_players=num_players, seed=args.seed, trust=True
    )
    print(table.table())
    return 0
