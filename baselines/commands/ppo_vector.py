"""Masked PPO in one file on the compiled vector env (CleanRL style: read top to bottom).

    tabletop-zoo ppo-vector --game GAME --num-players N --opponent random
    tabletop-zoo ppo-vector --opponent snapshot --snapshot-every 20 --cpu-budget 300
    tabletop-zoo ppo-vector --game GAME --num-players 3 --opponent random,greedy

The learner takes a random seat in each of ``--num-envs`` games stepped together by the
compiled engine (:mod:`tabletop_zoo.wrappers.vector`); the other seats are played inside
the batch by compiled ``random`` or ``greedy`` players, or by a frozen copy of the learner
(``snapshot``, refreshed every ``--snapshot-every`` updates; random until the first one).
A comma list mixes them: each other seat of each episode draws one entry, uniformly
(:mod:`tabletop_zoo.wrappers.vector_pool`).
Illegal actions are masked out of the policy. Every update prints learner steps per second
(wall and CPU); at the end the policy is evaluated with the arena (Python env, every seat)
against ``--eval-opponents``, playing its most probable legal action or drawing one
(``--eval-policy sample``). ``--save`` / ``--load`` write and read the weights (tensors
only). Needs the ``fast`` and ``train`` extras (numba, torch).
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.envs._files import atomic_path
from tabletop_zoo.envs.errors import ModelFileError
from tabletop_zoo.envs.extras import MissingExtraError, install_command, require_extra
from tabletop_zoo.envs.registry import GAMES, fast_path_available

# a missing extra is one line (cli.run_main catches this), not a traceback from the imports
require_extra("train", cli.program("scripts/ppo_vector.py"), ("torch",))
if not fast_path_available():
    raise MissingExtraError(
        f"{cli.program('scripts/ppo_vector.py')} needs the 'fast' extra (missing: numba); "
        "install it with: " + install_command("fast")
    )

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.distributions import Categorical  # noqa: E402

from tabletop_zoo.baselines.agents.numpy_net import legal_action  # noqa: E402
from tabletop_zoo.baselines.evaluation import evaluate_agent  # noqa: E402
from tabletop_zoo.baselines.training.export import read_ppo_vector_weights  # noqa: E402
from tabletop_zoo.wrappers.vector import make_vector_env  # noqa: E402

GAMES_WITH_ENGINES = [name for name, spec in GAMES.items() if spec.fast_engine is not None]
POSITIVE = cli.number(0, low_open=True)  # a finite number > 0 (no nan, no inf)
OPPONENT_KINDS = ("random", "greedy", "snapshot")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Masked PPO on the compiled vector env.")
    p.add_argument("--game", choices=GAMES_WITH_ENGINES, default=GAMES_WITH_ENGINES[0])
    p.add_argument("--num-players", type=int, default=None, help="default: the smallest count")
    p.add_argument("--opponent", type=opponent_list, default="random",
                   help="random, greedy, snapshot, or a comma list of them drawn per seat "
                   "and episode (e.g. random,greedy)")  # fmt: skip
    p.add_argument("--seed", type=cli.SEED, default=0)
    p.add_argument("--reward-mode", choices=["win", "score"], default="win",
                   help="win: +1 / 0 / -1; score: own score minus the best other one")  # fmt: skip
    p.add_argument("--reward-scale", type=POSITIVE, default=1.0,
                   help="rewards are divided by this (for score rewards)")  # fmt: skip
    p.add_argument("--total-timesteps", type=cli.integer(0), default=2_000_000,
                   help="0: no training (with --load: evaluate those weights)")  # fmt: skip
    p.add_argument("--cpu-budget", type=POSITIVE, default=None,
                   help="stop training after this many CPU-seconds of this process")  # fmt: skip
    p.add_argument("--num-envs", type=cli.integer(1, cli.MAX_LAYER), default=64)
    p.add_argument(
        "--num-steps", type=cli.integer(1, cli.MAX_LAYER), default=64, help="rollout steps per env"
    )
    p.add_argument("--learning-rate", type=POSITIVE, default=1e-3)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--gamma", type=cli.number(0, 1), default=0.99)
    p.add_argument("--gae-lambda", type=cli.number(0, 1), default=0.95)
    p.add_argument("--num-minibatches", type=cli.integer(1), default=4)
    p.add_argument("--update-epochs", type=cli.integer(1), default=4)
    p.add_argument("--clip-coef", type=POSITIVE, default=0.2)
    p.add_argument("--ent-coef", type=cli.number(0), default=0.01)
    p.add_argument("--vf-coef", type=cli.number(0), default=0.5)
    p.add_argument("--max-grad-norm", type=POSITIVE, default=0.5)
    p.add_argument(
        "--hidden", type=cli.integer(1, cli.MAX_LAYER), default=128, help="units per hidden layer"
    )
    p.add_argument("--snapshot-every", type=cli.integer(1), default=20, help="updates")
    p.add_argument("--torch-threads", type=cli.PROCESSES, default=1)
    p.add_argument("--log-every", type=cli.integer(1), default=10, help="updates between logs")
    p.add_argument("--eval-games", type=cli.integer(0), default=50,
                   help="per opponent per seat; 0 = none")  # fmt: skip
    p.add_argument("--eval-policy", choices=["argmax", "sample"], default="argmax",
                   help="the most probable action, or one drawn from the policy")  # fmt: skip
    p.add_argument("--eval-opponents", default="random,greedy",
                   help=f"agent specs, comma separated: {cli.agent_help()}")  # fmt: skip
    p.add_argument("--load", default=None,
                   help="start from weights written by --save (same game, --hidden)")  # fmt: skip
    p.add_argument("--save", type=cli.output_file(), default=None,
                   help="write the trained network's weights (.pt)")  # fmt: skip
    reproducible.add_flag(p)
    args = p.parse_args(argv)
    players = GAMES[args.game].players
    args.num_players = players[0] if args.num_players is None else args.num_players
    if args.num_players not in players:
        p.error(f"--num-players must be one of {list(players)} for {args.game}")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-envs x --num-steps must be divisible by --num-minibatches")
    specs, args.eval_opponents = args.eval_opponents, []
    if args.eval_games:  # the specs before training, not after it
        try:
            args.eval_opponents = cli.check_agents(
                specs, args.game, args.num_players, flag="--eval-opponents"
            )
        except ValueError as exc:
            cli.fail(p, exc)
    return args


def opponent_list(text: str) -> str:
    """``--opponent``: one of random/greedy/snapshot or a comma list of them (argparse type)."""
    names = text.split(",")
    bad = [name for name in names if name not in OPPONENT_KINDS]
    if bad:
        raise argparse.ArgumentTypeError(
            f"{bad[0]!r} is not an opponent; choose from {', '.join(OPPONENT_KINDS)} "
            "(or a comma list of them)"
        )
    return text


class Agent(nn.Module):
    """An MLP over the flattened planes with a masked policy head and a value head."""

    def __init__(self, inputs: int, actions: int, hidden: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Flatten(), nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.actor = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(obs)).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):  # noqa: ANN201
        hidden = self.trunk(obs)
        logits = torch.where(mask, self.actor(hidden), torch.tensor(-1e9))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(-1)


class ArenaPlayer:
    """The trained policy as an arena agent: its most probable legal action (``argmax``), or
    an action drawn from its masked policy with the player's own generator (``sample``)."""

    def __init__(self, agent: Agent, name: str, policy: str = "argmax", seed: int = 0) -> None:
        self.agent, self.name, self.policy = agent, name, policy
        self.rng = np.random.default_rng(seed)

    @torch.no_grad()
    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: object = None) -> int:
        obs = torch.as_tensor(np.asarray(observation, np.float32))[None]
        legal = np.flatnonzero(np.asarray(action_mask, bool))
        logits = self.agent.actor(self.agent.trunk(obs))[0].numpy()[legal]
        return legal_action(logits, legal, None if self.policy == "argmax" else self.rng)


def load_weights(agent: Agent, path: str) -> None:
    """Load ``--save`` weights into ``agent`` (tensors only, nothing in the file runs); a
    file that is not such weights, or weights of another game, player count or ``--hidden``,
    is a :class:`ModelFileError` and loads nothing."""
    weights = read_ppo_vector_weights(path)
    expected = agent.state_dict()
    if any(weights[name].shape != expected[name].shape for name in expected):
        raise ModelFileError(
            f"--load {path}: these weights do not fit this game, player count and --hidden"
        )
    agent.load_state_dict(weights)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (Ctrl-C: one line saying nothing was saved)."""
    try:
        return run(argv)
    except KeyboardInterrupt:
        raise cli.Interrupted("nothing saved") from None


def run(argv: list[str] | None = None) -> int:
    """Train, then evaluate the greedy policy; returns the exit code."""
    args = parse_args(argv)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # the opponents: compiled players, or a frozen copy of the learner sampling its policy
    frozen: list[Agent | None] = [None]

    @torch.no_grad()
    def snapshot_policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if frozen[0] is None:  # no snapshot yet: a uniformly random legal action
            return (np.random.random(masks.shape) * masks).argmax(axis=1)
        obs, mask = torch.as_tensor(observations), torch.as_tensor(masks)
        return frozen[0].act(obs, mask)[0].numpy()

    kinds = args.opponent.split(",")
    entries = [snapshot_policy if kind == "snapshot" else kind for kind in kinds]
    opponent = entries[0] if len(entries) == 1 else entries  # a list: drawn per seat
    envs = make_vector_env(args.game, args.num_envs, args.num_players, opponent=opponent,
                           learner_seat=None, reward_mode=args.reward_mode,
                           seed=args.seed)  # fmt: skip
    obs_shape = envs.single_observation_space.shape
    num_actions = int(envs.single_action_space.n)
    agent = Agent(int(np.prod(obs_shape)), num_actions, args.hidden)
    if args.load is not None:
        load_weights(agent, args.load)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # rollout storage
    n, s = args.num_envs, args.num_steps
    obs = torch.zeros((s, n, *obs_shape))
    masks = torch.zeros((s, n, num_actions), dtype=torch.bool)
    actions = torch.zeros((s, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((s, n)) for _ in range(4))

    batch_size = n * s
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_timesteps // batch_size) if args.total_timesteps else 0
    next_obs_np, infos = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(next_obs_np), torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(n)
    global_step, finished, returns, cut = 0, 0, [], []  # cut: games ended by truncation
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    print(f"{args.game} ({args.num_players} players) vs {args.opponent}: {num_updates} updates "
          f"of {batch_size} steps")  # fmt: skip

    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (update - 1) / num_updates)
        for step in range(s):  # collect a rollout
            global_step += n
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            next_obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            ended = terminated | truncated
            reward = reward / args.reward_scale
            rewards[step] = torch.as_tensor(reward)
            next_obs, next_mask = (
                torch.as_tensor(next_obs_np),
                torch.as_tensor(infos["action_mask"]),
            )
            next_done = torch.as_tensor(ended, dtype=torch.float32)
            finished += int(ended.sum())
            returns.extend(reward[ended].tolist())
            cut.extend(truncated[ended].tolist())

        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n)
            for t in reversed(range(s)):
                not_done = 1.0 - (next_done if t == s - 1 else dones[t + 1])
                following = next_value if t == s - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            targets = advantages + values

        b_obs, b_masks = obs.reshape(batch_size, *obs_shape), masks.reshape(batch_size, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_targets = advantages.reshape(-1), targets.reshape(-1)
        for _epoch in range(args.update_epochs):  # optimize the clipped objective
            order = torch.randperm(batch_size)
            for start in range(0, batch_size, minibatch_size):
                mb = order[start : start + minibatch_size]
                _, new_logprob, entropy, new_value = agent.act(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (new_logprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                value_loss = 0.5 * ((new_value - b_targets[mb]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if "snapshot" in kinds and update % args.snapshot_every == 0:
            frozen[0] = copy.deepcopy(agent)
        cpu = time.process_time() - cpu_start
        if update % args.log_every == 0 or update == num_updates:
            recent = returns[-1000:]
            mean = float(np.mean(recent)) if recent else float("nan")
            truncated_share = float(np.mean(cut[-1000:])) if cut else float("nan")
            print(f"update {update:5d}  steps {global_step:9d}  games {finished:7d}  "
                  f"mean reward (last 1000) {mean:+.3f}  truncated {truncated_share:.2f}  "
                  f"steps/s {global_step / (time.perf_counter() - wall_start):8.0f}  "
                  f"steps/CPU-s {global_step / cpu:8.0f}", flush=True)  # fmt: skip
        if args.cpu_budget is not None and cpu >= args.cpu_budget:
            print(f"CPU budget of {args.cpu_budget:g} s reached after {global_step} steps")
            break

    cpu = time.process_time() - cpu_start
    rate = global_step / max(cpu, 1e-9)
    print(f"trained {global_step} steps in {cpu:.1f} CPU-s ({rate:.0f} steps/CPU-s)")
    if args.save is not None:
        with atomic_path(args.save) as temporary:  # a failed or killed save keeps the old file
            torch.save(agent.state_dict(), temporary)
        print(f"saved {args.save}")
    if args.eval_games:
        player = ArenaPlayer(agent.eval(), "ppo_vector", args.eval_policy, args.seed + 1)
        for row in evaluate_agent(player, args.game, args.num_players, args.eval_opponents,
                                  args.eval_games, seed=args.seed + 1):  # fmt: skip
            lo, hi = row.interval("wins")
            print(f"vs {row.opponent:<10} games {row.games:4d}  win {row.rate('wins'):.3f} "
                  f"[{lo:.2f}, {hi:.2f}]  draw {row.rate('draws'):.3f}  "
                  f"loss {row.rate('losses'):.3f}")  # fmt: skip
    print(f"process CPU-s in all (training, evaluation, start-up): {time.process_time():.1f}")
    return 0


if __name__ == "__main__":
    cli.run_main(main)
