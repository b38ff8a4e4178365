"""Mixed opponents in the compiled vector env: each other seat draws its player per
episode from the list, policies see only the games where they are to move, a step stays a
transaction, the same seed gives the same games."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled engines need the 'fast' extra")

from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError
from tabletop_zoo.wrappers.vector import make_vector_env
from tabletop_zoo.wrappers.vector_pool import OpponentMix, PoolVectorEnv


def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The lowest legal action of each game asked about."""
    return masks.argmax(axis=1)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_other_seat_draws_from_the_list_and_the_learner_always_acts(players) -> None:
    # (games asked about, games where the policy is to move: a superset, since games the
    # compiled players ended in the same round restart and wait for the next one)
    asked: list[tuple[int, int]] = []

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        mover = envs.states[:, envs.engine.player_column]
        waiting = (mover >= 0) & (mover != envs.learner_seat)
        code = envs.seat_opponents[np.arange(envs.num_envs), np.maximum(mover, 0)]
        asked.append((len(observations), int((waiting & (code == 0)).sum())))
        return first_legal(observations, masks)

    envs = make_vector_env("arktia", 16, players, opponent=["random", "greedy", policy],
                           learner_seat=None, seed=3)  # fmt: skip
    assert isinstance(envs, PoolVectorEnv)
    envs.reset()
    ended = 0
    for _ in range(150):
        mover = envs.states[:, envs.engine.player_column]
        assert np.array_equal(mover, envs.learner_seat)  # the learner is to act everywhere
        others = np.arange(players)[None] != envs.learner_seat[:, None]
        assert set(envs.seat_opponents[others].tolist()) <= {-1, -2, 0}  # random, greedy, policy
        _, rewards, terminated, truncated, _ = envs.step(envs.sample_legal_actions())
        done = terminated | truncated
        assert set(rewards[done].tolist()) <= {-1.0, 0.0, 1.0} and not rewards[~done].any()
        ended += int(done.sum())
    assert ended > 0 and asked
    assert all(0 < count <= expected for count, expected in asked)  # only its own games
    assert set(envs.pool.counts) == {"random", "greedy", "policy_0"}


def test_the_same_seed_plays_the_same_games() -> None:
    def run() -> list[np.ndarray]:
        envs = make_vector_env("arktia", 8, 3, opponent=["random", "greedy", first_legal],
                               learner_seat=None, seed=5)  # fmt: skip
        out = [envs.reset()[0]]
        rng = np.random.default_rng(0)
        for _ in range(40):
            masks = envs.action_masks()
            actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
            out.append(envs.step(actions)[0])
        return out

    first, second = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize("bad", ["illegal", "raises"])
def test_a_bad_policy_in_the_list_changes_nothing(bad: str) -> None:
    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if bad == "raises":
            raise RuntimeError("the policy failed")
        return np.full(len(observations), -1)

    envs = make_vector_env("mole_hill", 8, opponent=["random", policy], seed=0)
    envs.reset()
    error = IllegalActionError if bad == "illegal" else RuntimeError
    for _ in range(20):
        before = (envs.states.copy(), envs.seat_opponents.copy(), envs.learner_seat.copy())
        counts = dict(envs.pool.counts)
        try:
            envs.step(envs.sample_legal_actions())
        except error:
            after = (envs.states, envs.seat_opponents, envs.learner_seat)
            assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
            assert envs.pool.counts == counts
            return
    pytest.fail("the policy was never asked in 20 steps")


@pytest.mark.parametrize("entries", [[], ["random", "mcts"], ["greedy", 3]])
def test_a_bad_list_is_an_invalid_option(entries: list) -> None:
    with pytest.raises(InvalidOptionError, match="an opponent list holds"):
        make_vector_env("mole_hill", 4, opponent=entries)
    with pytest.raises(InvalidOptionError):
        OpponentMix(entries)
