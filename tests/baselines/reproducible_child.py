"""A child process of ``test_reproducible.py``: a short seeded MaskablePPO run on the first
game of the registry, started as the commands start (the reproducible mode from ``argv``,
before torch loads), printing one JSON line: torch's kernel path and the weights' hash.

    python -m tests.baselines.reproducible_child --reproducible
"""

from __future__ import annotations

import hashlib
import json
import sys

from tabletop_zoo.baselines import reproducible


def train_and_hash() -> dict[str, str]:
    """Train 256 steps (seed 0, one thread, the commands' Adam) and hash the policy's weights."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed

    from tabletop_zoo.baselines.agents.threads import limit_threads
    from tabletop_zoo.envs.registry import GAMES
    from tabletop_zoo.wrappers.single_agent import make_env

    limit_threads(1)
    set_random_seed(0)
    env = make_env(next(iter(GAMES)), seed=0)
    adam = {"optimizer_kwargs": reproducible.ADAM}
    settings = {"n_steps": 128, "batch_size": 64, "n_epochs": 2, "seed": 0, "device": "cpu"}
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=adam, **settings)
    model.learn(256)
    digest = hashlib.sha256()
    for name, tensor in sorted(model.policy.state_dict().items()):
        digest.update(name.encode() + tensor.numpy().tobytes())
    capability = str(torch.backends.cpu.get_cpu_capability())
    return {"capability": capability, "weights": digest.hexdigest()}


if __name__ == "__main__":
    reproducible.configure(sys.argv[1:])
    print(json.dumps(train_and_hash()))
