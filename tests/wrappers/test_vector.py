"""The Gymnasium VectorEnv over the compiled engines, and its compiled opponents."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")

from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError  # noqa: E402
from tabletop_zoo.envs.registry import GAMES, fast_engine  # noqa: E402
from tabletop_zoo.wrappers.vector import BatchedVectorEnv, make_vector_env  # noqa: E402

CONFIGS = [(spec.name, n) for spec in GAMES.values() if spec.fast_engine for n in spec.players]


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_learner_always_acts_and_episodes_reset_with_rewards(game: str, players: int) -> None:
    envs = make_vector_env(game, 16, players, opponent="random", learner_seat=None, seed=3)
    obs, infos = envs.reset()
    assert obs.shape == (16, *envs.single_observation_space.shape)
    assert obs.dtype == np.float32 and envs.observation_space.contains(obs)
    finished = 0
    for _ in range(400):
        seats = infos["learner_seat"]
        movers = envs.engine.current_players(envs.states)
        assert np.array_equal(movers, seats)  # the learner decides in every game
        expected = envs.engine.observe(envs.states, seats)
        assert np.array_equal(obs, expected)
        assert np.array_equal(infos["action_mask"], envs.engine.legal_mask(envs.states))
        actions = envs.sample_legal_actions()
        assert infos["action_mask"][np.arange(16), actions].all()
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        ended = terminated | truncated
        assert not (terminated & truncated).any()
        assert np.all(rewards[~ended] == 0)
        if ended.any():
            assert np.array_equal(infos["_final_obs"], ended)
            assert set(np.unique(rewards[ended])) <= {-1.0, 0.0, 1.0}
            for i in np.flatnonzero(ended):
                scores = infos["final_scores"][i]
                seat = seats[i]
                best_other = max(s for j, s in enumerate(scores) if j != seat)
                assert rewards[i] == np.sign(scores[seat] - best_other)  # +1 / 0 tied / -1
                assert infos["final_obs"][i].shape == obs.shape[1:]
            finished += int(ended.sum())
    assert finished > 16


def test_score_rewards_and_fixed_seat() -> None:
    envs = make_vector_env("mole_hill", 8, reward_mode="score", learner_seat=1, seed=0)
    envs.reset()
    seen = 0
    while seen < 20:
        _, rewards, terminated, _, infos = envs.step(envs.sample_legal_actions())
        assert np.all(infos["learner_seat"] == 1)
        for i in np.flatnonzero(terminated):
            scores = infos["final_scores"][i]
            assert rewards[i] == scores[1] - scores[0]
            seen += 1


def test_batched_policy_opponent_sees_its_own_side() -> None:
    calls = []

    def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(observations.shape[0])
        return masks.argmax(axis=1)

    engine = fast_engine("mole_hill")
    envs = BatchedVectorEnv(engine, 4, opponent=first_legal, learner_seat=0, seed=1)
    envs.reset()
    for _ in range(30):
        envs.step(envs.sample_legal_actions())
    assert calls and all(0 < c <= 4 for c in calls)


def test_illegal_learner_action_raises_and_changes_nothing() -> None:
    envs = make_vector_env("mole_hill", 4, seed=0)
    envs.reset()
    before = envs.states.copy()
    with pytest.raises(IllegalActionError):
        envs.step(np.full(4, 172))  # a rod: illegal for the mole's first placement (M4)
    assert np.array_equal(envs.states, before)


def test_bad_options_are_rejected() -> None:
    with pytest.raises(InvalidOptionError):
        make_vector_env("mole_hill", 0)
    with pytest.raises(InvalidOptionError):
        make_vector_env("mole_hill", 4, opponent="mcts")
    with pytest.raises(InvalidOptionError):
        make_vector_env("arktia", 4, 3, learner_seat=3)
    with pytest.raises(InvalidOptionError):
        make_vector_env("mole_hill", 4, reward_mode="margin")
    for seat in (True, 1.0, "1"):  # one integer rule (errors.as_integer) for seats
        with pytest.raises(InvalidOptionError, match="learner_seat"):
            make_vector_env("mole_hill", 4, learner_seat=seat)
    for count in (True, 4.0):
        with pytest.raises(InvalidOptionError, match="num_envs"):
            make_vector_env("mole_hill", count)
    assert make_vector_env("mole_hill", np.int64(4), learner_seat=np.int64(1)).num_envs == 4
    with pytest.raises(UsageError, match="before reset"):
        make_vector_env("mole_hill", 4).step(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_compiled_greedy_picks_a_best_action_of_the_greedy_rule(game: str, players: int) -> None:
    """Best (result if the game ends, score margin) one ply deep, as GreedyAgent ranks."""
    engine = fast_engine(game, players)
    states = engine.new_states(8, seed=0)
    engine.seed(0)
    checked = 0
    for _ in range(60):
        choice = engine.greedy_actions(states)
        for i, row in enumerate(states):
            state = engine.to_state(row)
            player = state.current_player
            keys = {}
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                scores = child.scores()
                margin = scores[player] - max(s for j, s in enumerate(scores) if j != player)
                result = child.returns()[player] if child.is_terminal() else 0.0
                keys[action] = (result, margin)
            best = max(keys.values())
            assert keys[int(choice[i])] == best
            checked += 1
        engine.step(states, engine.random_actions(states))
    assert checked == 480
