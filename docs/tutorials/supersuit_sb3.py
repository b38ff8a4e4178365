"""SuperSuit's vector route to Stable-Baselines3: MaskablePPO, one policy for both seats.

    mole_hill_v0.parallel_env()                          every seat steps; only the mover acts
      -> supersuit.pettingzoo_env_to_vec_env_v1          one vector slot per seat
      -> supersuit.concat_vec_envs_v1(..., base_class="stable_baselines3")   8 games
      -> MasksFromObservations (below)                   action_masks() for MaskablePPO
      -> sb3_contrib.MaskablePPO("MultiInputPolicy")     self-play: one policy, both seats

Why SB3's PPO barely learned before (0.34 -> 0.52 against random after 200,000 steps): it
samples without the mask. Every illegal action ended the game with -1 (PettingZoo's
classic rule, through ``turn_based_aec_to_parallel(mole_hill_v0.env())``), so most of its
budget went into learning the rules from the mask in its input, and the slots of the seat
not to move (an all-zero mask, their actions ignored) added noise to every update. SB3's
answer to invalid actions is sb3-contrib's ``MaskablePPO``, which asks the vector env for
``action_masks()``; SuperSuit's vector env has none, so the few lines of
``MasksFromObservations`` read them from the observations. Our parallel face gives the
seat not to move a mask allowing only action 0 (ignored by the env), so its samples have
log-probability 0 and add nothing to the policy's gradient. Nothing else was tuned beyond
a 128-128 network and 4 epochs per rollout.

``PPO(seed=...)`` fails on SuperSuit's vector env (it has no ``seed()``): the seeds are set
by hand, the games through one seeded reset.

    python docs/tutorials/supersuit_sb3.py      # --steps 200000 --seed 0; --help
    tabletop-zoo rate --game mole_hill --agent py:docs/tutorials/supersuit_sb3.py:policy

Results with their intervals and CPU-seconds: docs/tutorials/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tabletop_zoo.baselines import reproducible

if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])  # before torch loads

import supersuit as ss
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import VecEnvWrapper

from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.evaluation import outside
from tabletop_zoo.baselines.evaluation.outside_results import rate_on_ladder, report
from tabletop_zoo.envs import mole_hill_v0

HERE = Path(__file__).resolve()
MODEL = "runs/tutorials/supersuit_sb3/model.zip"


class MasksFromObservations(VecEnvWrapper):
    """``action_masks()`` for MaskablePPO, read from the observations (the seat not to move:
    action 0 only, which the env ignores)."""

    def reset(self):
        self.observations = self.venv.reset()
        return self.observations

    def step_wait(self):
        self.observations, rewards, dones, infos = self.venv.step_wait()
        return self.observations, rewards, dones, infos

    def has_attr(self, attr_name):
        return attr_name == "action_masks" or self.venv.has_attr(attr_name)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name != "action_masks":
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        return list(self.observations["action_mask"].astype(bool))


def greedy(model):
    """``policy(observation, action_mask)`` for our AEC env's planes."""

    def act(observation, action_mask):
        obs = {"observation": observation, "action_mask": action_mask}
        action, _ = model.predict(obs, deterministic=True, action_masks=action_mask == 1)
        return int(action)

    return act


def policy(path: str | None = None):
    """The trained policy, for the ``py:`` agent spec (``$TUTORIAL_MODEL`` or MODEL)."""
    return greedy(MaskablePPO.load(path or os.environ.get("TUTORIAL_MODEL", MODEL)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="vector slot steps (budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(MODEL).parent)
    parser.add_argument("--rate", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--rate-against", metavar="SPEC", help="rate against SPEC, not the ladder")
    reproducible.add_flag(parser)
    args = parser.parse_args()
    limit_threads(1)
    set_random_seed(args.seed)

    env = ss.pettingzoo_env_to_vec_env_v1(mole_hill_v0.parallel_env())
    env = ss.concat_vec_envs_v1(env, 8, num_cpus=0, base_class="stable_baselines3")
    env.venv.reset(seed=args.seed)  # seeds the 8 games; their later resets follow
    env = MasksFromObservations(env)
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=128,
        batch_size=256,
        n_epochs=4,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
    )
    evaluation = {"games": args.eval_games, "seed": args.seed}
    chance, before = (
        outside.chance_level(**evaluation),
        outside.win_rate(greedy(model), **evaluation),
    )
    with outside.CpuShare() as training:
        model.learn(total_timesteps=args.steps)
    after = outside.win_rate(greedy(model), **evaluation)
    against_greedy = outside.win_rate(greedy(model), opponent="greedy", **evaluation)

    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "model.zip")
    rates = {"chance": chance, "before": before, "after": after, "greedy": against_greedy}
    result = report(
        HERE,
        ["supersuit", "stable-baselines3", "sb3-contrib"],
        training,
        rates,
        library="SuperSuit + SB3",
        algorithm="MaskablePPO, self-play with one shared policy",
        game="mole_hill",
        num_players=2,
        seed=args.seed,
        budget={"slot_steps": args.steps},
        model=args.out / "model.zip",
    )
    if args.rate:  # on the shipped ladder, through the py: agent spec
        rate_on_ladder(HERE, result, args.rate_against)


if __name__ == "__main__":
    main()
