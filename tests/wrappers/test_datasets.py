"""Minari datasets of the Gymnasium env (``wrappers/datasets.py``): the round trip (each
episode's actions, played in the dataset's recovered env reset with the episode's seed, give
the recorded observations, rewards and scores), the masks and array-valued infos kept, bad
arguments refused in one line with nothing written, and Minari's own recorder taking the env
as it is. Skipped without the ``minari`` extra (``dev`` installs it)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES

minari = pytest.importorskip("minari", reason="needs the minari extra")
from tabletop_zoo.wrappers.datasets import record_dataset  # noqa: E402


@pytest.fixture(autouse=True)
def datasets(tmp_path, monkeypatch):
    """Minari's datasets folder: a temporary one."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_dataset_s_actions_replay_to_its_scores(game: str) -> None:
    players = max(GAMES[game].players[:2])  # 3-player Arktia: two opponents
    dataset = record_dataset(f"tabletop_zoo/{game}-v0", game, "greedy", 3, num_players=players)
    assert dataset.total_episodes == 3 and dataset.spec.env_spec.kwargs["opponent"] == "random"
    env = dataset.recover_environment()
    metadata = dataset.storage.get_episode_metadata(range(3))
    for episode, meta in zip(dataset.iterate_episodes(), metadata, strict=True):
        assert meta["seed"] == episode.id
        assert set(episode.infos) == {"scores", "learner_seat", "action_mask"}
        observation, info = env.reset(seed=meta["seed"])
        assert np.array_equal(observation, episode.observations[0])
        for step, action in enumerate(episode.actions):
            assert info["action_mask"][action] == 1
            assert np.array_equal(info["action_mask"], episode.infos["action_mask"][step])
            observation, reward, terminated, truncated, info = env.step(action)
            assert reward == episode.rewards[step] and terminated == episode.terminations[step]
        assert terminated and not truncated and episode.terminations[-1]
        assert np.array_equal(observation, episode.observations[-1])
        assert np.array_equal(info["scores"], episode.infos["scores"][-1])
        assert episode.infos["scores"].shape == (len(episode.actions) + 1, players)
        assert not episode.infos["action_mask"][-1].any()  # the game is over


def test_bad_arguments_are_one_line_and_write_nothing(datasets) -> None:
    record_dataset("mole_hill-random-v0", "mole_hill", "random", 1)
    kept = sorted(datasets.rglob("*"))
    for kwargs, message in [
        ({"episodes": 0}, "episodes must be an integer >= 1"),
        ({"episodes": 2.0}, "episodes must be an integer >= 1"),
        ({"seed": -1}, "seed"),
        ({"dataset_id": "no version"}, "is no Minari dataset id"),
        ({"dataset_id": "mole_hill-random-v0"}, "a dataset 'mole_hill-random-v0' is in"),
        ({"opponent": ["random"]}, "opponent must be an agent spec string"),
        ({"agent": "nobody"}, "unknown agent spec 'nobody'"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"num_players": 3}, "num_players must be 2"),
    ]:
        arguments = {"dataset_id": "new-v0", "game": "mole_hill", "agent": "random", "episodes": 1}
        with pytest.raises(InvalidOptionError, match=message) as exc:
            record_dataset(**arguments | kwargs)
        assert "\n" not in str(exc.value)
    assert sorted(datasets.rglob("*")) == kept


def test_minari_s_recorder_keeps_the_env_s_infos_and_masks() -> None:
    """Minari's ``DataCollector(record_infos=True)`` (it needs jax: ``minari[create]``)."""
    pytest.importorskip("jax", reason="Minari's DataCollector needs jax (minari[create])")
    env = minari.DataCollector(gymnasium.make("tabletop_zoo/MoleHill-v0"), record_infos=True)
    _observation, info = env.reset(seed=3)
    terminated = False
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        _observation, _reward, terminated, _truncated, info = env.step(int(legal[0]))
    dataset = env.create_dataset("tabletop_zoo/mole_hill-first-legal-v0", algorithm_name="first")
    episode = dataset[0]
    assert np.array_equal(episode.infos["scores"][-1], info["scores"])
    assert episode.infos["action_mask"].shape == (len(episode.actions) + 1, env.action_space.n)
