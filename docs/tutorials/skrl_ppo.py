"""skrl: IPPO and MAPPO on our parallel face, one policy for every seat (self-play).

    mole_hill_v0.parallel_env()          every seat steps at once; the seat to move acts
      -> skrl's wrap_env(env, wrapper="pettingzoo")   (skrl's own PettingZoo wrapper)
      -> skrl's IPPO or MAPPO, SequentialTrainer, a masked categorical policy

skrl flattens each seat's observation dict (``action_mask`` first, then the planes); the
policy unflattens it with skrl's ``unflatten_tensorized_space`` and puts -inf on the logits
of masked actions. The seat that waits has a mask allowing only action 0 (the env ignores
it), so its sampled action has log-probability 0: those steps add nothing to the policy
gradient, and no all-zero mask ever reaches ``Categorical``.

Self-play: the same policy object serves every seat (skrl steps it once per seat's update).
IPPO's critic sees the seat's own observation and is shared too. MAPPO's critic sees the
global state (``env.state()``, seat 0's planes): one critic per seat there, since the
seats' returns are opposite for the same state.

What stock skrl 2.1.1 needed, and why (each fixed here, as skrl's docs would):

* the all-zero mask PettingZoo's ``turn_based_aec_to_parallel`` gives the waiting seat made
  ``Categorical`` fail ("probability tensor contains either inf, nan or element < 0"): the
  parallel face gives that seat one allowed action instead;
* ``IPPO_CFG`` / ``MAPPO_CFG`` refuse their own default ``{}`` for the ``*_kwargs`` fields
  ("Specified keys (set()) do not match possible agents": a dict is read as one entry per
  agent), so the script passes one ``{}`` per agent; IPPO also wants ``state_spaces``;
* the trainer calls ``env.render()`` at every step unless ``headless=True``;
* one shared critic cannot tell the seats apart on the global state (MAPPO).

    python docs/tutorials/skrl_ppo.py --algorithm ippo
    python docs/tutorials/skrl_ppo.py --algorithm mappo
    python docs/tutorials/skrl_ppo.py --algorithm ippo --game arktia --num-players 3

The budgets (``--steps``): 40,000 env steps on Mole Hill, 15,000 on Arktia, where an env
step is one decision of the game (every seat steps, one acts) and each of the three seats'
memories fills and trains the shared policy in turn, so a step costs more than twice
Mole Hill's. The settings are the same for both games; a win on Arktia is a sole first
place (chance against two random players is about 0.3).

Measured results (CPU, CPU-seconds, before/after with intervals): docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import numpy as np
import torch
from skrl.envs.wrappers.torch import wrap_env
from skrl.memories.torch import RandomMemory
from skrl.models.torch import CategoricalMixin, DeterministicMixin, Model
from skrl.multi_agents.torch.ippo import IPPO, IPPO_CFG
from skrl.multi_agents.torch.mappo import MAPPO, MAPPO_CFG
from skrl.trainers.torch import SequentialTrainer
from skrl.utils import set_seed
from skrl.utils.spaces.torch import unflatten_tensorized_space

from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation.outside import (
    CpuShare,
    chance_level,
    win_rate,
)
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report
from tabletop_zoo.envs.registry import get_spec

HERE = Path(__file__).resolve()
HIDDEN = 128


def mlp(inputs: int, outputs: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(inputs, HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, outputs),
    )


class Policy(CategoricalMixin, Model):
    """Masked categorical policy over the planes (skrl's model pattern)."""

    def __init__(self, observation_space, action_space, device=None):
        Model.__init__(
            self, observation_space=observation_space, action_space=action_space, device=device
        )
        CategoricalMixin.__init__(self, unnormalized_log_prob=True)
        planes = observation_space["observation"].shape
        self.net = mlp(int(np.prod(planes)), action_space.n)

    def compute(self, inputs, role=""):
        observation = unflatten_tensorized_space(self.observation_space, inputs["observations"])
        logits = self.net(observation["observation"].flatten(1))
        return logits.masked_fill(observation["action_mask"] == 0, -torch.inf), {}


class Value(DeterministicMixin, Model):
    """The critic: of the seat's own planes (IPPO) or of the global state (MAPPO)."""

    def __init__(self, observation_space, state_space, action_space, key, device=None):
        Model.__init__(
            self,
            observation_space=observation_space,
            state_space=state_space,
            action_space=action_space,
            device=device,
        )
        DeterministicMixin.__init__(self)
        self.key = key
        space = state_space if key == "states" else observation_space["observation"]
        self.net = mlp(int(np.prod(space.shape)), 1)

    def compute(self, inputs, role=""):
        if self.key == "states":
            return self.net(inputs["states"]), {}
        observation = unflatten_tensorized_space(self.observation_space, inputs["observations"])
        return self.net(observation["observation"].flatten(1)), {}


def policy(path: str | None = None):
    """``policy(observation, action_mask) -> int``: the trained network, greedy (the ``py:``
    agent spec's factory). ``path``: the model, by default ``$TUTORIAL_MODEL`` or
    ``runs/tutorials/skrl_ppo/model.pt``; its game is read from ``result.json`` beside it."""
    weights = Path(path or os.environ.get("TUTORIAL_MODEL", "runs/tutorials/skrl_ppo/model.pt"))
    result = json.loads((weights.parent / "result.json").read_text())
    env = (
        get_spec(result["game"]).env_module_object().parallel_env(num_players=result["num_players"])
    )
    agent = env.possible_agents[0]
    model = Policy(env.observation_space(agent), env.action_space(agent))
    model.load_state_dict(torch.load(weights, weights_only=True))
    return greedy(model)


def greedy(model: Policy):
    """The policy's most likely legal action for the AEC env's planes and mask."""

    def act(observation, action_mask):
        with torch.no_grad():
            planes = torch.as_tensor(np.asarray(observation), dtype=torch.float32)
            logits = model.net(planes.reshape(1, -1))[0]
            mask = torch.as_tensor(np.asarray(action_mask)) == 0
            return int(logits.masked_fill(mask, -torch.inf).argmax())

    return act


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=("ippo", "mappo"), default="ippo")
    parser.add_argument("--game", default="mole_hill")
    parser.add_argument("--num-players", type=int, default=None)
    parser.add_argument(
        "--steps", type=int, default=None, help="env steps (Mole Hill 40,000; Arktia 15,000)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", default="runs/tutorials/skrl_ppo")
    parser.add_argument("--rate", action=argparse.BooleanOptionalAction, default=True)
    reproducible.add_flag(parser)
    args = parser.parse_args()
    steps = args.steps or (40_000 if args.game == "mole_hill" else 15_000)
    limit_threads(1)
    set_seed(args.seed, deterministic=True)

    options = {} if args.num_players is None else {"num_players": args.num_players}
    env = wrap_env(get_spec(args.game).env_module_object().parallel_env(**options), "pettingzoo")
    agents = env.possible_agents
    observation_space, action_space = env.observation_space(agents[0]), env.action_space(agents[0])
    shared_policy = Policy(observation_space, action_space)
    if args.algorithm == "ippo":
        critic = Value(observation_space, None, action_space, "observations")
        critics = dict.fromkeys(agents, critic)
    else:
        state_space = env.state_spaces[agents[0]]
        critics = {a: Value(observation_space, state_space, action_space, "states") for a in agents}
    models = {a: {"policy": shared_policy, "value": critics[a]} for a in agents}
    rollouts = 1024
    memories = {a: RandomMemory(memory_size=rollouts) for a in agents}
    settings = dict(
        rollouts=rollouts,
        learning_epochs=4,
        mini_batches=4,
        learning_rate=3e-4,
        entropy_loss_scale=0.01,
        value_loss_scale=0.5,
    )
    # skrl 2.1.1 refuses its own default {} for these (it reads a dict as one per agent):
    # "Specified keys (set()) do not match possible agents"; so one empty dict per agent
    for name in ("learning_rate_scheduler", "observation_preprocessor", "state_preprocessor"):
        settings[f"{name}_kwargs"] = {a: {} for a in agents}
    settings["value_preprocessor_kwargs"] = {a: {} for a in agents}
    algorithm, config = (IPPO, IPPO_CFG) if args.algorithm == "ippo" else (MAPPO, MAPPO_CFG)
    cfg = config(**settings)
    cfg.experiment.write_interval = cfg.experiment.checkpoint_interval = 0  # no files
    learner = algorithm(
        cfg=cfg,
        possible_agents=agents,
        models=models,
        memories=memories,
        observation_spaces=env.observation_spaces,
        state_spaces=env.state_spaces,
        action_spaces=env.action_spaces,
        device=env.device,
    )

    evaluation = dict(
        game=args.game, num_players=args.num_players, games=args.eval_games, seed=args.seed
    )
    chance = chance_level(**evaluation)
    before = win_rate(greedy(shared_policy), **evaluation)
    trainer = SequentialTrainer(
        env=env,
        agents=learner,
        cfg={"timesteps": steps, "headless": True, "disable_progressbar": True},
    )
    with CpuShare() as training:
        trainer.train()
    after = win_rate(greedy(shared_policy), **evaluation)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(shared_policy.state_dict(), out / "model.pt")
    players = env.num_agents if args.num_players is None else args.num_players
    print(f"skrl {args.algorithm.upper()} on {args.game} ({players} players), {steps} env steps")
    rates = {"chance": chance, "before": before, "after": after}
    if args.rate:  # the full run: also against greedy, then the rating
        rates["greedy"] = win_rate(greedy(shared_policy), opponent="greedy", **evaluation)
    sole = {"metric": "sole first places against uniformly random players, seats rotating"}
    result = report(
        HERE,
        ["skrl"],
        training,
        rates,
        library="skrl",
        algorithm=f"{args.algorithm.upper()}, self-play with one shared policy",
        game=args.game,
        num_players=players,
        seed=args.seed,
        budget={"env_steps": steps},
        model=out / "model.pt",
        **(sole if players > 2 else {}),
    )
    if args.rate:  # on the shipped ladder, through the py: agent spec
        rate_on_ladder(HERE, result, None)


if __name__ == "__main__":
    main()
