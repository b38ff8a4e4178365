"""The Gymnasium VectorEnv over the compiled engines, and its compiled opponents."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")

from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError
from tabletop_zoo.envs.registry import GAMES, fast_engine
from tabletop_zoo.wrappers.vector import BatchedVectorEnv, make_vector_env

CONFIGS = [(spec.name, n) for spec in GAMES.values() if spec.fast_engine for n in spec.players]


@pytest.mark.parametrize(
    ("game", "players"),
    [CONFIGS[0], *(pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS[1:])],
)
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "players"),
    [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
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


def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A deterministic batched opponent: the lowest legal action."""
    del observations
    return masks.argmax(axis=1)


def broken(output) -> object:
    """An opponent policy returning ``output(masks)`` once, the lowest legal action after."""
    calls = {"n": 0}

    def policy(observations: np.ndarray, masks: np.ndarray) -> object:
        calls["n"] += 1
        return output(masks) if calls["n"] == 1 else first_legal(observations, masks)

    return policy


BAD_OPPONENT_OUTPUTS = {
    "float actions": (lambda m: m.argmax(axis=1).astype(np.float64) + 0.4, "integer"),
    "bool actions": (lambda m: np.ones(len(m), dtype=bool), "integer"),
    "one action too few": (lambda m: m.argmax(axis=1)[:-1], "shape"),
    "one action too many": (lambda m: np.append(m.argmax(axis=1), 0), "shape"),
    "a scalar": (lambda m: np.int64(0), "shape"),
    "ragged list": (lambda m: [[1], [1, 2]], "opponent policy"),
    "illegal action": (lambda m: np.where(m, -1, np.arange(m.shape[1])).max(axis=1), "row"),
    "out of range": (lambda m: np.full(len(m), 10_000), "row"),
    "negative": (lambda m: np.full(len(m), -1), "row"),
}


@pytest.mark.parametrize("case", sorted(BAD_OPPONENT_OUTPUTS))
def test_a_bad_opponent_output_changes_nothing(case: str) -> None:
    output, message = BAD_OPPONENT_OUTPUTS[case]
    envs = BatchedVectorEnv(fast_engine("mole_hill"), 6, broken(output), learner_seat=0, seed=4)
    twin = BatchedVectorEnv(fast_engine("mole_hill"), 6, first_legal, learner_seat=0, seed=4)
    envs.reset()
    twin.reset()
    actions = envs.sample_legal_actions()  # the learner's move is legal
    before = envs.states.copy(), envs.learner_seat.copy()
    with pytest.raises(IllegalActionError, match=message):
        envs.step(actions)
    assert np.array_equal(envs.states, before[0]) and np.array_equal(envs.learner_seat, before[1])
    # the next step plays the same seats as an env that never met the bad output
    for _ in range(40):
        mine, theirs = envs.step(actions), twin.step(actions)
        for a, b in zip(mine[:4], theirs[:4], strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(envs.states, twin.states)
        actions = mine[4]["action_mask"].argmax(axis=1)


def test_an_illegal_opponent_action_names_the_game_row() -> None:
    def second_game_wrong(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        chosen = masks.argmax(axis=1)
        if len(chosen) > 1:
            chosen[1] = np.flatnonzero(~masks[1])[0]
        return chosen

    envs = BatchedVectorEnv(fast_engine("mole_hill"), 4, second_game_wrong, seed=0)
    envs.reset()
    with pytest.raises(IllegalActionError, match="game row 1: action"):
        envs.step(envs.sample_legal_actions())


def test_an_opponent_policy_that_raises_leaves_the_env_as_it_was() -> None:
    calls = {"n": 0}

    def failing_on_the_second_call(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("policy crashed")
        return masks.argmax(axis=1)

    policy = failing_on_the_second_call
    envs = BatchedVectorEnv(fast_engine("arktia", 3), 4, policy, learner_seat=2, seed=0)
    with pytest.raises(RuntimeError):  # seat 2 learns: reset plays seats 0 and 1
        envs.reset()
    with pytest.raises(UsageError, match="before reset"):  # the failed reset left it unready
        envs.step(np.zeros(4, dtype=np.int64))
    envs.reset()
    before = envs.states.copy(), envs.learner_seat.copy(), envs._rng.bit_generator.state
    calls["n"] = 1
    with pytest.raises(RuntimeError):
        envs.step(envs.sample_legal_actions())
    assert np.array_equal(envs.states, before[0]) and np.array_equal(envs.learner_seat, before[1])
    assert envs._rng.bit_generator.state == before[2]


def test_learner_actions_are_not_truncated_or_broadcast() -> None:
    envs = make_vector_env("mole_hill", 4, seed=0)
    envs.reset()
    before = envs.states.copy()
    for bad in (np.zeros(4) + 0.5, np.zeros(3, dtype=np.int64), np.int64(0), [True] * 4):
        with pytest.raises(IllegalActionError, match="integer array of shape"):
            envs.step(bad)
    assert np.array_equal(envs.states, before)


def test_the_rows_are_read_only_from_outside() -> None:
    envs = make_vector_env("mole_hill", 2, seed=0)
    envs.reset()
    with pytest.raises(ValueError, match="read-only"):
        envs.states[0, 8] = -(2**63)
