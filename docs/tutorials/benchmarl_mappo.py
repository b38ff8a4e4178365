"""BenchMARL: MAPPO or IPPO on our games through a task class, one shared self-play policy.

    TabletopTask.MOLE_HILL.get_task(config={...})      a BenchMARL task class of our own
      -> mole_hill_v0.parallel_env()                   every seat steps at once
      -> TorchRL's PettingZooWrapper(group_map={"players": [every seat]}, return_state=True)
      -> BenchMARL's Experiment: MAPPO or IPPO, its MLP, a masked categorical policy

Three choices make it work on a turn-based board game:

* ``group_map``: all seats in one group, ``"players"``. BenchMARL shares a policy within a
  group (``share_policy_params``), so one network plays every seat: self-play. TorchRL's
  default map gives each seat a group of its own (player_0 and player_1 would be two
  networks).
* The parallel face. TorchRL reads each seat's ``action_mask`` from its observation; our
  waiting seat's mask allows only action 0, which the env ignores, so the waiting steps
  have log-probability 0 and add nothing to the policy gradient. Through the AEC env,
  TorchRL gives the waiting seat an all-True mask and trains on its ignored actions.
* The planes: BenchMARL's MLP takes one feature axis by default and refuses the
  ``(7, 9, 16)`` planes; ``num_feature_dims=3`` makes it flatten them.

MAPPO's critic sees ``env.state()`` (seat 0's planes), one critic per seat
(``share_param_critic=False``): the seats' returns are opposite for the same state, so a
shared critic could only learn their average, 0.

Why it first learned slower than skrl (0.78 after 20,000 env steps in 201 CPU-s, where
skrl's PPO reached 0.97 after 40,000 in 177): not the turn-based bookkeeping but two
settings of BenchMARL's ``ExperimentConfig``, read off its collection loop:

* ``on_policy_n_envs_per_worker=1`` made TorchRL's collector step one env at a time, and
  its per-step TensorDict work (wrapper, transforms, the policy on a batch of one) took
  about three quarters of the CPU (cProfile). BenchMARL's default, 10 envs, batches it.
* ``on_policy_n_minibatch_iters`` counts passes over the collected batch (epochs), each of
  ``frames_per_batch / minibatch_size`` minibatches, not minibatches: 12 meant 48
  gradient steps per 1,000 frames. 4 passes, as skrl's ``learning_epochs`` here.

Together: about 4.5 CPU-s per 1,000 env steps instead of 10, so the budget buys 40,000
env steps, after which MAPPO and IPPO (same settings) both pass 0.90 against random.
The waiting seats' steps stay in the batch: log-probability 0 and entropy 0 under their
one-action mask, so they add no policy gradient (they do count in the loss's mean, as in
skrl), and the critic learns their values, through which the final reward (every seat's,
on the last step) flows back in GAE.

    python docs/tutorials/benchmarl_mappo.py --algorithm mappo
    python docs/tutorials/benchmarl_mappo.py --algorithm ippo

What stock BenchMARL 1.5.2 needed besides (its packaging): it requires ``torchvision``
without importing it, and an unpinned one replaced the CPU torch by a CUDA build (the
``benchmarl`` extra pins it); its default task classes build PettingZoo's own envs, so a
task class of ours (below) builds ours.

Measured results (CPU, CPU-seconds, before/after with intervals): docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import numpy as np
import torch
from benchmarl.algorithms import IppoConfig, MappoConfig
from benchmarl.environments.common import Task
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models.mlp import MlpConfig
from tensordict import TensorDict
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import ExplorationType, set_exploration_type

from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation.outside import (
    CpuShare,
    chance_level,
    win_rate,
)
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report
from tabletop_zoo.envs.registry import get_spec

HERE = Path(__file__).resolve()
GROUP = "players"


class TabletopClass(PettingZooClass):
    """A BenchMARL task over our parallel face (BenchMARL's PettingZoo task pattern);
    ``config``: the env's options (``num_players``, ...)."""

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        config = copy.deepcopy(self.config)
        game = get_spec(self.name.lower()).env_module_object()

        def make():
            env = game.parallel_env(**config)
            return PettingZooWrapper(
                env,
                group_map={GROUP: env.possible_agents},  # one group: one shared policy
                categorical_actions=True,
                return_state=True,
                seed=seed,
                device=device,
            )

        return make

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_state(self) -> bool:
        return True

    def has_render(self, env) -> bool:
        return False

    def max_steps(self, env) -> int:
        return 1000  # decisions; our games end (or truncate) well before

    @staticmethod
    def env_name() -> str:
        return "tabletop_zoo"


class TabletopTask(Task):
    """Our games as BenchMARL tasks."""

    MOLE_HILL = None
    ARKTIA = None

    @staticmethod
    def associated_class():
        return TabletopClass


def build(args: argparse.Namespace, folder: str) -> Experiment:
    """The experiment: task, algorithm, models and BenchMARL's experiment settings."""
    options = {} if args.num_players is None else {"num_players": args.num_players}
    task = TabletopTask[args.game.upper()].get_task(config=options)
    algorithm = (MappoConfig if args.algorithm == "mappo" else IppoConfig).get_from_yaml()
    algorithm.share_param_critic = False  # one critic per seat (see the docstring)
    algorithm.entropy_coef = 0.01
    model = MlpConfig(
        num_cells=[128, 128],
        layer_class=torch.nn.Linear,
        activation_class=torch.nn.ReLU,
        num_feature_dims=3,  # the (rows, cols, planes) observation
    )
    config = ExperimentConfig.get_from_yaml()
    config.prefer_continuous_actions = False
    config.max_n_frames = args.steps
    config.on_policy_collected_frames_per_batch = min(1000, args.steps)
    config.on_policy_n_envs_per_worker = 10  # BenchMARL's default: 100 steps of 10 envs
    config.on_policy_n_minibatch_iters = 4  # passes over the batch (epochs), not minibatches
    config.on_policy_minibatch_size = 250
    config.lr = 3e-4
    config.evaluation = config.render = config.create_json = False
    config.loggers = []
    config.save_folder = folder or tempfile.mkdtemp()
    config.checkpoint_at_end = False
    return Experiment(
        task=task,
        algorithm_config=algorithm,
        model_config=model,
        critic_model_config=copy.deepcopy(model),
        seed=args.seed,
        config=config,
    )


def greedy(experiment: Experiment):
    """``policy(observation, action_mask) -> int`` of the experiment's shared policy."""
    agents = len(experiment.group_map[GROUP])

    def act(observation, action_mask):
        planes = torch.as_tensor(np.asarray(observation), dtype=torch.float32)
        mask = torch.as_tensor(np.asarray(action_mask)).bool()
        group = {  # TorchRL's layout: the planes under ("players", "observation", ...)
            "observation": {"observation": planes.expand(agents, *planes.shape)},
            "action_mask": mask.expand(agents, *mask.shape),
        }
        td = TensorDict({GROUP: TensorDict(group, batch_size=[agents])}, batch_size=[])
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(experiment.policy(td)[GROUP, "action"][0])

    return act


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=("mappo", "ippo"), default="mappo")
    parser.add_argument("--game", choices=("mole_hill", "arktia"), default="mole_hill")
    parser.add_argument("--num-players", type=int, default=None)
    parser.add_argument("--steps", type=int, default=40_000, help="env steps (the budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", default="runs/tutorials/benchmarl_mappo")
    parser.add_argument("--rate", action=argparse.BooleanOptionalAction, default=True)
    reproducible.add_flag(parser)
    return parser.parse_args(argv)


def policy(path: str | None = None):
    """``policy(observation, action_mask) -> int``: the trained network, greedy (the ``py:``
    agent spec's factory). ``path``: the model, by default ``$TUTORIAL_MODEL`` or
    ``runs/tutorials/benchmarl_mappo/model.pt``; its game is read from ``result.json``."""
    default = "runs/tutorials/benchmarl_mappo/model.pt"
    weights = Path(path or os.environ.get("TUTORIAL_MODEL", default))
    result = json.loads((weights.parent / "result.json").read_text())
    argv = ["--game", result["game"], "--num-players", str(result["num_players"])]
    algorithm = result["algorithm"].split(",")[0].lower()
    experiment = build(parse([*argv, "--algorithm", algorithm]), "")
    experiment.policy.load_state_dict(torch.load(weights, weights_only=True))
    return greedy(experiment)


def main() -> None:
    args = parse()
    limit_threads(1)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        experiment = build(args, folder)
        learner = greedy(experiment)
        evaluation = dict(
            game=args.game, num_players=args.num_players, games=args.eval_games, seed=args.seed
        )
        chance = chance_level(**evaluation)
        before = win_rate(learner, **evaluation)
        with CpuShare() as training:
            experiment.run()
        after = win_rate(learner, **evaluation)
        torch.save(experiment.policy.state_dict(), out / "model.pt")
        players = len(experiment.group_map[GROUP])
    name = args.algorithm.upper()
    print(f"BenchMARL {name} on {args.game} ({players} players), {args.steps} env steps")
    rates = {"chance": chance, "before": before, "after": after}
    if args.rate:  # the full run: also against greedy, then the rating
        rates["greedy"] = win_rate(learner, opponent="greedy", **evaluation)
    result = report(
        HERE,
        ["benchmarl", "torchrl", "tensordict"],
        training,
        rates,
        library="BenchMARL",
        algorithm=f"{name}, self-play with one shared policy (group_map: one group)",
        game=args.game,
        num_players=players,
        seed=args.seed,
        budget={"env_steps": args.steps},
        model=out / "model.pt",
    )
    if args.rate:  # on the shipped ladder, through the py: agent spec
        rate_on_ladder(HERE, result, None)


if __name__ == "__main__":
    main()
