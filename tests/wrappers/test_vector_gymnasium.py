"""The vector env as Gymnasium 1.x users expect it: autoreset modes, ``final_info``,
``gymnasium.make_vec`` and the Gymnasium vector wrappers docs/fast.md lists."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as vector_wrappers

pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")

import tabletop_zoo  # noqa: F401 - registers the ids
from tabletop_zoo.envs.errors import InvalidOptionError, UsageError
from tabletop_zoo.wrappers.vector import BatchedVectorEnv, make_vector_env


def test_autoreset_mode_attribute_and_metadata() -> None:
    same = make_vector_env("mole_hill", 2)
    assert same.autoreset_mode is AutoresetMode.SAME_STEP
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    for mode in (AutoresetMode.DISABLED, "Disabled", "disabled"):
        off = make_vector_env("mole_hill", 2, autoreset_mode=mode)
        assert off.autoreset_mode is off.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    assert BatchedVectorEnv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP  # untouched
    for bad in (AutoresetMode.NEXT_STEP, "next_step", 1, None):
        with pytest.raises(InvalidOptionError, match="autoreset_mode"):
            make_vector_env("mole_hill", 2, autoreset_mode=bad)


def test_same_step_final_info_marks_the_games_that_ended() -> None:
    envs = make_vector_env("arktia", 8, 2, max_turns=30, seed=0)  # truncations too
    envs.reset()
    seen = 0
    while seen < 10:
        seats = envs.learner_seat.copy()
        _, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
        ended = terminated | truncated
        if not ended.any():
            assert "final_info" not in infos
            continue
        final = infos["final_info"]
        assert np.array_equal(infos["_final_info"], ended)
        assert np.array_equal(infos["_final_obs"], ended)
        for key in ("learner_seat", "final_scores"):
            assert np.array_equal(final[f"_{key}"], ended)
        assert np.array_equal(final["learner_seat"][ended], seats[ended])
        assert np.array_equal(final["final_scores"], infos["final_scores"])
        seen += int(ended.sum())


def test_disabled_mode_waits_for_a_reset_mask() -> None:
    envs = make_vector_env("mole_hill", 6, autoreset_mode="Disabled", seed=1)
    envs.reset()
    while True:
        obs, _, terminated, _, infos = envs.step(envs.sample_legal_actions())
        if terminated.any():
            break
    ended = terminated
    assert "final_obs" not in infos  # the returned observation is the final one
    assert np.array_equal(obs[ended], envs.engine.observe(envs.states[ended], 0))
    assert not envs.action_masks()[ended].any() and not infos["action_mask"][ended].any()
    assert (envs.states[ended, envs.engine.player_column] < 0).all()
    with pytest.raises(UsageError, match="reset_mask"):
        envs.step(envs.sample_legal_actions())
    with pytest.raises(InvalidOptionError, match="reset_mask"):
        envs.reset(options={"reset_mask": ended.astype(int)})
    kept = envs.states[~ended].copy()
    obs, infos = envs.reset(options={"reset_mask": ended})
    assert np.array_equal(envs.states[~ended], kept)  # only the masked games restart
    assert (envs.states[ended, envs.engine.player_column] >= 0).all()
    assert infos["action_mask"].any(axis=1).all()
    envs.step(envs.sample_legal_actions())


@pytest.mark.parametrize(
    ("game_id", "options", "players"),
    [
        ("tabletop_zoo/MoleHill-v0", {}, 2),
        ("tabletop_zoo/Arktia-v0", {"num_players": 3, "neutral_pieces": True}, 3),
    ],
)
def test_make_vec_returns_the_vector_env(game_id: str, options: dict, players: int) -> None:
    envs = gymnasium.make_vec(
        game_id, num_envs=64, vectorization_mode="vector_entry_point", **options
    )
    assert isinstance(envs, BatchedVectorEnv) and envs.num_envs == 64
    assert envs.engine.num_players == players and envs.spec.id == game_id
    if "neutral_pieces" in options:
        assert envs.engine.game.neutral_pieces is True
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (64, *envs.single_observation_space.shape)
    envs.step(envs.sample_legal_actions())


def test_make_vec_passes_the_autoreset_mode() -> None:
    envs = gymnasium.make_vec(
        "tabletop_zoo/MoleHill-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        autoreset_mode="Disabled",
        opponent="greedy",
    )
    assert envs.autoreset_mode is AutoresetMode.DISABLED and envs.opponent == "greedy"


def play(envs, steps: int = 120) -> int:
    """Random legal play through ``envs`` (maybe wrapped); resets ended games in DISABLED
    mode; returns the number of games that ended."""
    base = envs.unwrapped
    envs.reset(seed=0)
    ended = 0
    for _ in range(steps):
        _, _, terminated, truncated, infos = envs.step(base.sample_legal_actions())
        done = np.asarray(terminated) | np.asarray(truncated)
        ended += int(done.sum())
        if done.any() and base.autoreset_mode is AutoresetMode.DISABLED:
            envs.reset(options={"reset_mask": done})
    return ended


ANY_MODE_WRAPPERS = {
    "RecordEpisodeStatistics": vector_wrappers.RecordEpisodeStatistics,
    "NormalizeReward": vector_wrappers.NormalizeReward,
    "ClipReward": lambda e: vector_wrappers.ClipReward(e, -0.5, 0.5),
    "TransformReward": lambda e: vector_wrappers.TransformReward(e, lambda r: 2 * r),
    "DictInfoToList": vector_wrappers.DictInfoToList,
}
DISABLED_MODE_WRAPPERS = {
    "FlattenObservation": vector_wrappers.FlattenObservation,
    "TransformObservation": lambda e: vector_wrappers.TransformObservation(
        e, lambda o: 1 - o, e.observation_space
    ),
    "RescaleObservation": lambda e: vector_wrappers.RescaleObservation(
        e,
        np.float32(-1.0),
        np.float32(1.0),  # the bounds in the space's dtype: no cast warning
    ),
}


@pytest.mark.parametrize("mode", ["SameStep", "Disabled"])
@pytest.mark.parametrize("name", sorted(ANY_MODE_WRAPPERS))
def test_reward_info_and_statistics_wrappers_work_in_both_modes(name: str, mode: str) -> None:
    envs = ANY_MODE_WRAPPERS[name](make_vector_env("mole_hill", 4, autoreset_mode=mode))
    assert play(envs) > 0


def test_record_episode_statistics_counts_whole_games() -> None:
    envs = vector_wrappers.RecordEpisodeStatistics(make_vector_env("mole_hill", 4, seed=0))
    envs.reset(seed=0)
    lengths = []
    for _ in range(200):
        *_, infos = envs.step(envs.unwrapped.sample_legal_actions())
        if "episode" in infos:
            lengths += infos["episode"]["l"][infos["_episode"]].tolist()
    # the learner (the mole first) decides about half of a game's at most 86 actions
    assert lengths and all(2 <= n <= 44 for n in lengths)


@pytest.mark.parametrize("name", sorted(DISABLED_MODE_WRAPPERS))
def test_observation_wrappers_need_the_disabled_mode(name: str) -> None:
    wrap = DISABLED_MODE_WRAPPERS[name]
    assert play(wrap(make_vector_env("mole_hill", 4, autoreset_mode="Disabled"))) > 0
    with pytest.raises(ValueError, match="autoreset_mode"):  # Gymnasium's own refusal
        wrap(make_vector_env("mole_hill", 4))


def test_normalize_observation_is_not_supported() -> None:
    for mode in ("SameStep", "Disabled"):  # Gymnasium wants NEXT_STEP for it
        with pytest.raises(ValueError, match="autoreset_mode"):
            vector_wrappers.NormalizeObservation(
                make_vector_env("mole_hill", 2, autoreset_mode=mode)
            )
