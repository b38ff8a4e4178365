"""The Stable-Baselines3 VecEnv over the compiled engines: SB3's VecEnv contract, the same
observations and masks as the Python single-agent env, the snapshot pool in the batch."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled engines need the 'fast' extra")
pytest.importorskip("sb3_contrib", reason="MaskablePPO needs the 'train' extra")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.training import silent_logger
from tabletop_zoo.baselines.training.opponents import BatchedOpponentPool
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES
from tabletop_zoo.wrappers.sb3 import make_sb3_vec_env
from tabletop_zoo.wrappers.single_agent import make_env
from tests.baselines.az_networks import masked_softmax

CONFIGS = [(spec.name, n) for spec in GAMES.values() if spec.fast_engine for n in spec.players]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_the_vec_env_keeps_sb3s_contract(game: str, players: int) -> None:
    envs = VecCheckNan(make_sb3_vec_env(game, 6, players, opponent="greedy", seed=1))
    assert isinstance(envs.unwrapped, VecEnv) and envs.num_envs == 6
    assert envs.render_mode is None
    obs = envs.reset()
    assert obs.shape == (6, *envs.observation_space.shape) and obs.dtype == np.float32
    assert all(envs.observation_space.contains(o) for o in obs)
    assert is_masking_supported(envs)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        masks = get_action_masks(envs)
        assert masks.shape == (6, envs.action_space.n) and masks.dtype == bool
        assert masks.any(axis=1).all()
        assert np.array_equal(masks, envs.unwrapped.action_masks())
        obs, rewards, dones, infos = envs.step(random_legal(masks, rng))
        assert obs.shape == (6, *envs.observation_space.shape) and obs.dtype == np.float32
        assert rewards.shape == (6,) and dones.shape == (6,) and dones.dtype == bool
        assert len(infos) == 6 and np.all(rewards[~dones] == 0)
        for i in np.flatnonzero(dones):
            assert envs.observation_space.contains(infos[i]["terminal_observation"])
            assert isinstance(infos[i]["TimeLimit.truncated"], bool)
            assert rewards[i] in (-1.0, 0.0, 1.0)
        ended += int(dones.sum())
    assert ended > 0
    seats = envs.get_attr("learner_seat")
    assert seats == [info["learner_seat"] for info in infos]
    assert envs.get_attr("learner_seat", [2]) == seats[2:3]
    assert envs.env_is_wrapped(VecMonitor) == [False] * 6
    with pytest.raises(AttributeError):
        envs.get_attr("no_such_attribute")
    envs.close()


def test_seeded_resets_repeat_the_same_games() -> None:
    def play(seed: int) -> list[np.ndarray]:
        envs = make_sb3_vec_env("mole_hill", 4, opponent="random")
        envs.seed(seed)
        seen = [envs.reset()]
        for _ in range(40):
            masks = envs.action_masks()
            seen.append(envs.step(masks.argmax(axis=1))[0])
        return seen

    first, again, other = play(3), play(3), play(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_observations_and_masks_are_the_python_envs(game: str, players: int) -> None:
    """For positions the compiled games reach, the Python single-agent env, put in the
    same position with the learner to move, gives the same planes and legal actions."""
    envs = make_sb3_vec_env(game, 4, players, opponent="random", seed=2)
    engine = envs.env.engine
    python_env = make_env(game, players, learner_seat=0, seed=0)
    python_env.reset()
    aec = python_env.aec_env.unwrapped
    rng = np.random.default_rng(1)
    obs = envs.reset()
    checked = 0
    for step in range(60):
        masks = envs.action_masks()
        if step % 6 == 0:
            for i, seat in enumerate(envs.get_attr("learner_seat")):
                aec.game_state = engine.to_state(envs.env.states[i])
                aec.agent_selection = python_env.learner = aec.possible_agents[seat]
                python_env.learner_seat = seat
                np.testing.assert_array_equal(obs[i], python_env._observation())
                np.testing.assert_array_equal(masks[i], python_env.action_masks())
                checked += 1
        obs = envs.step(random_legal(masks, rng))[0]
    assert checked == 40


class CountingNet:
    """A policy network stand-in: fixed logits, counts its batches."""

    def __init__(self, logits: np.ndarray) -> None:
        self.logits, self.batches = logits, []

    def forward(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        self.batches.append(len(inputs))
        return {"policy": np.repeat(self.logits[None], len(inputs), axis=0)}


def test_snapshot_sampling_follows_the_policy_over_the_legal_actions() -> None:
    pool = BatchedOpponentPool(("random",), seed=0)
    logits = np.array([0.0, 1.0, 2.0, 5.0, 0.5])
    pool.loaded[7] = CountingNet(logits)
    masks = np.tile([True, True, True, False, True], (20_000, 1))
    actions = pool.sample_actions(7, np.zeros((20_000, 3)), masks)
    assert pool.loaded[7].batches == [20_000]  # one forward pass for the whole batch
    frequencies = np.bincount(actions, minlength=5) / len(actions)
    np.testing.assert_allclose(frequencies, masked_softmax(logits, masks[0]), atol=0.015)
    assert frequencies[3] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), [CONFIGS[0], CONFIGS[-1]])
def test_snapshots_play_inside_the_batch(game: str, players: int, tmp_path) -> None:
    envs = make_sb3_vec_env(game, 8, players, opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", envs, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.save(tmp_path / "step_16.zip")
    pool = BatchedOpponentPool(("random", "greedy"), tmp_path, self_play_prob=0.7, seed=0)
    envs = make_sb3_vec_env(game, 16, players, opponent=pool, seed=0)
    envs.reset()
    assert list(pool.loaded) == [16] and isinstance(pool.loaded[16], DenseNet)
    batches: list[int] = []
    sample = pool.sample_actions
    pool.sample_actions = lambda c, o, m: batches.append(len(o)) or sample(c, o, m)
    rng = np.random.default_rng(0)
    for _ in range(60):
        envs.step(random_legal(envs.action_masks(), rng))
    assert pool.counts["snapshot_16"] > 0 and pool.counts.keys() <= {
        "random",
        "greedy",
        "snapshot_16",
    }
    assert max(batches) > 1  # the games waiting on the snapshot decide together


def test_the_pool_plays_only_compiled_baselines() -> None:
    with pytest.raises(InvalidOptionError, match="other agents play only on the Python"):
        BatchedOpponentPool(("random", "mcts:5"))
    with pytest.raises(InvalidOptionError, match="self_play_prob"):
        BatchedOpponentPool(("random",), self_play_prob=2.0)


@pytest.mark.parametrize(
    ("game", "players"),
    [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
def test_maskable_ppo_trains_a_few_hundred_steps(game: str, players: int, tmp_path) -> None:
    pool = BatchedOpponentPool(("random", "greedy"), tmp_path, seed=0)
    envs = VecMonitor(make_sb3_vec_env(game, 4, players, opponent=pool, seed=0))
    model = MaskablePPO(
        "MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]},
    )  # fmt: skip
    model.set_logger(silent_logger())
    model.learn(256)
    model.save(tmp_path / "step_256.zip")
    model.learn(256, reset_num_timesteps=False)
    assert model.num_timesteps == 512
    assert 256 in pool.loaded
