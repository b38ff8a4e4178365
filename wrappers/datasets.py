"""Episodes of the single-agent Gymnasium env as a Minari dataset, for offline RL::

    dataset = record_dataset("tabletop_zoo/mole_hill-greedy-v0", "mole_hill", "greedy", 100)

An agent (spec or object) plays the learner's seat (a random seat each episode) of
``gymnasium.make(<the game's id>, opponent=...)``; every step keeps the observation planes,
the action, the reward, the flags and the info as arrays (``scores``, ``learner_seat`` and
the int8 ``action_mask`` of the next decision). Episode ``i`` is reset with ``seed + i``
(Minari keeps the seed), and the env's opponents are seeded from it, so the dataset's
actions played in ``dataset.recover_environment()`` reset with that seed give the same
episode. Needs the ``minari`` extra (no jax: the episodes are written as Minari's buffers).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

import gymnasium
import numpy as np

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_fits, check_seed
from tabletop_zoo.envs.errors import InvalidOptionError, as_integer
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import get_spec


def record_dataset(
    dataset_id: str,
    game: str,
    agent: Any = "greedy",
    episodes: int = 100,
    *,
    num_players: int | None = None,
    opponent: str = "random",
    seed: int = 0,
    trust: bool = False,
    **env_options: Any,
) -> Any:
    """Play ``episodes`` episodes of ``game``'s Gymnasium env with ``agent`` (a spec, loaded
    with ``trust``, or an agent object) against ``opponent`` (a spec string) and write them as
    the Minari dataset ``dataset_id`` in Minari's datasets folder (``MINARI_DATASETS_PATH``,
    default ``~/.minari/datasets``), whole or not at all; return it loaded. Bad arguments, a
    malformed or existing id: ``InvalidOptionError`` before anything is written."""
    require_extra("minari", "record_dataset")
    import minari
    from minari.namespace import create_namespace, list_local_namespaces

    if (count := as_integer(episodes)) is None or count < 1:
        raise InvalidOptionError(f"episodes must be an integer >= 1, got {episodes!r}")
    check_seed(seed)
    try:
        namespace = minari.dataset.minari_dataset.parse_dataset_id(dataset_id)[0]
    except (ValueError, TypeError):
        raise InvalidOptionError(f"{dataset_id!r} is no Minari dataset id (NAME-vN)") from None
    root = minari.storage.get_dataset_path().resolve()
    if (root / dataset_id).exists():
        raise InvalidOptionError(f"a dataset {dataset_id!r} is in {root}: give another id")
    if not isinstance(opponent, str):  # Minari keeps the env's arguments as JSON
        raise InvalidOptionError(f"opponent must be an agent spec string, got {opponent!r}")
    env_id = get_spec(game).gymnasium_id
    env = gymnasium.make(env_id, num_players=num_players, opponent=opponent, **env_options)
    player = make_agent(agent, seed=seed, trust=trust) if isinstance(agent, str) else agent
    check_agent_fits(player, env.unwrapped.aec_env)
    buffers = [_episode(env, player, number, seed + number) for number in range(count)]
    if namespace is not None and namespace not in list_local_namespaces():
        create_namespace(namespace)
    name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    description = f"{env_id}: {name} against {opponent}, {count} episodes, seed {seed}"
    with tempfile.TemporaryDirectory(dir=root) as folder:  # written there, then renamed
        with (
            mock.patch.dict(os.environ, {"MINARI_DATASETS_PATH": folder}),
            warnings.catch_warnings(),
        ):
            warnings.filterwarnings("ignore", "`.*` is set to None", UserWarning)  # author, ...
            minari.create_dataset_from_buffers(
                dataset_id, buffers, env, algorithm_name=name, description=description
            )
        (root / dataset_id).parent.mkdir(parents=True, exist_ok=True)
        Path(folder, dataset_id).rename(root / dataset_id)
    return minari.load_dataset(dataset_id)


def _episode(env: gymnasium.Env, agent: Any, number: int, seed: int) -> Any:
    """One episode of ``agent`` in ``env``, reset with ``seed``, as Minari's buffer."""
    from minari.data_collector import EpisodeBuffer

    observation, info = env.reset(seed=seed)
    if callable(getattr(agent, "reset", None)):
        agent.reset(seed=seed)
    observations, infos, actions, rewards, ends = [observation], [info], [], [], [(0, 0)]
    while not any(ends[-1]):
        actions.append(int(agent.act(observation, info["action_mask"], env.unwrapped.game_state)))
        observation, reward, terminated, truncated, info = env.step(actions[-1])
        observations.append(observation)
        infos.append(info)
        rewards.append(reward)
        ends.append((terminated, truncated))
    flags = np.array(ends[1:], dtype=bool)
    return EpisodeBuffer(
        id=number,
        seed=seed,
        observations=np.stack(observations),
        actions=np.array(actions),
        rewards=np.array(rewards),
        terminations=flags[:, 0],
        truncations=flags[:, 1],
        infos={key: np.stack([np.asarray(i[key]) for i in infos]) for key in info},
    )
