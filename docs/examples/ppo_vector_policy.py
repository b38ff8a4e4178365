"""`tabletop-zoo ppo-vector --save FILE` weights as an outside policy, for the agent spec
py:docs/examples/ppo_vector_policy.py:policy (the leaderboard's ppo-vector rows). The file is
$PPO_VECTOR_WEIGHTS (default runs/leaderboard/ppo_vector.pt), read as tensors only; the
policy plays the most probable legal action, as ppo-vector's own evaluation does."""

import os

from tabletop_zoo.baselines.training.export import read_ppo_vector_weights
from tabletop_zoo.baselines.training.ppo_vector import Agent, ArenaPlayer


def policy(path=None):
    """The policy of the saved weights at ``path`` (default: $PPO_VECTOR_WEIGHTS)."""
    path = path or os.environ.get("PPO_VECTOR_WEIGHTS", "runs/leaderboard/ppo_vector.pt")
    weights = read_ppo_vector_weights(path)
    hidden, inputs = weights["trunk.1.weight"].shape
    agent = Agent(inputs, weights["actor.weight"].shape[0], hidden)
    agent.load_state_dict(weights)
    player = ArenaPlayer(agent.eval(), "ppo-vector")
    return lambda observation, action_mask: player.act(observation, action_mask)
