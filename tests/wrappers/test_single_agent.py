"""The single-agent Gymnasium view: rewards, opponents, checkers, SB3 integration."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.classic.tictactoe.tictactoe import raw_env as tictactoe_env

from tabletop_zoo.baselines import GreedyAgent, RandomAgent
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError
from tabletop_zoo.envs.registry import GAMES
from tabletop_zoo.wrappers.single_agent import SingleAgentEnv
from tests.baselines.nim_toy import NimEnv, Scripted

GYM_IDS = ("tabletop_zoo/Arktia-v0", "tabletop_zoo/MoleHill-v0")


# -------------------------------------------------------------- known outcomes (Nim)
@pytest.mark.parametrize(
    "nim_kwargs, seat, opponent_moves, learner_moves, rewards",
    [
        # Win: a single object, the learner (seat 0) takes it.
        ({"piles": (1,), "max_take": 1}, 0, [], [0], [1.0]),
        # Loss: two objects, take 1 each; the opponent takes the last one. The loss
        # reaches the learner on the step it made before the opponent's winning reply.
        ({"piles": (2,), "max_take": 1}, 0, [0], [0], [-1.0]),
        # Learner in seat 1: the opponent moves inside reset(); the learner wins.
        ({"piles": (2,), "max_take": 1}, 1, [0], [0], [1.0]),
        # Learner in seat 1 loses: piles 3, take 1 each, seat 0 takes the last one.
        ({"piles": (3,), "max_take": 1}, 1, [0, 0], [0], [-1.0]),
        # Draw ("score" rule): one object each.
        ({"piles": (2,), "max_take": 1, "win_rule": "score"}, 0, [0], [0], [0.0]),
        # Longer win: 0 on every step but the last.
        ({"piles": (4,), "max_take": 1}, 1, [0, 0], [0, 0], [0.0, 1.0]),
    ],
)
def test_learner_gets_its_own_win_loss_and_draw(
    nim_kwargs, seat, opponent_moves, learner_moves, rewards
) -> None:
    env = SingleAgentEnv(NimEnv(**nim_kwargs), opponent=Scripted(opponent_moves), learner_seat=seat)
    env.reset(seed=0)
    got, flags = [], []
    for action in learner_moves:
        _obs, reward, terminated, truncated, info = env.step(action)
        got.append(reward)
        flags.append(terminated)
        assert truncated is False and info["learner_seat"] == seat
    assert got == rewards
    assert flags == [False] * (len(rewards) - 1) + [True]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_rewards_sum_to_the_engine_return(num_players: int) -> None:
    env = SingleAgentEnv(
        NimEnv(piles=(3, 4, 5), num_players=num_players, max_take=3, win_rule="score"),
        opponent="greedy",
        seed=1,
    )
    learner = RandomAgent(seed=2)
    seen = set()
    for _ in range(40):
        obs, info = env.reset()
        total, done = 0.0, False
        while not done:
            action = learner.act(obs, env.action_masks(), env.game_state)
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        assert total == env.game_state.returns()[env.learner_seat]
        seen.add((env.learner_seat, total))
    assert {r for _, r in seen} == {-1.0, 0.0, 1.0}
    assert {s for s, _ in seen} == set(range(num_players))


# ---------------------------------------------------------------------- mechanics
def test_observation_is_the_learners_own_view() -> None:
    # Nim's planes: each pile as a fraction of its start, then the objects taken (out of
    # all 5) from the observer's seat on.
    env = SingleAgentEnv(NimEnv(piles=(5,), max_take=3), opponent=Scripted([2]), learner_seat=1)
    obs, _ = env.reset(seed=0)
    assert obs.ravel().tolist() == pytest.approx([2 / 5, 0 / 5, 3 / 5])  # 2 left; 0; 3 taken
    assert env.action_masks().tolist() == [True, True, False]


def test_check_env_on_toy_envs() -> None:
    check_env(SingleAgentEnv(tictactoe_env(), seed=0), skip_render_check=True)
    check_env(SingleAgentEnv(NimEnv(num_players=3), seed=0), skip_render_check=True)


def test_seeded_episodes_are_reproducible() -> None:
    def run(seed: int) -> list:
        env = SingleAgentEnv(tictactoe_env(), opponent="random")
        obs, _ = env.reset(seed=seed)
        trace = [env.learner_seat, obs.tolist()]
        learner = RandomAgent(seed=seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(
                learner.act(obs, env.action_masks(), None)
            )
            trace.append((obs.tolist(), reward))
            done = terminated or truncated
        return trace

    assert run(4) == run(4)
    assert any(run(4) != run(s) for s in range(5, 10))


def test_illegal_action_loses_by_default_or_raises() -> None:
    env = SingleAgentEnv(NimEnv(piles=(1, 2)), learner_seat=0)
    env.reset(seed=0)
    _obs, reward, terminated, truncated, info = env.step(3)  # pile 0 holds only 1
    assert (reward, terminated, truncated) == (-1.0, True, False)
    # in the game's notation (Nim writes "take@pile"), with the legal moves
    assert info["illegal_action"] == (
        "action 3 (4@0) is not legal for player_0 now; legal: 1@0, 1@1, 2@1"
    )
    with pytest.raises(UsageError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    strict = SingleAgentEnv(NimEnv(piles=(1, 2)), learner_seat=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"; legal: 1@0, 1@1, 2@1$"):
        strict.step(3)


def test_opponent_forms() -> None:
    env = SingleAgentEnv(NimEnv(num_players=3), opponent=["random", GreedyAgent()], seed=0)
    env.reset()
    kinds = sorted(type(a).__name__ for a in env._opponents.values())
    assert kinds == ["GreedyAgent", "RandomAgent"]
    calls = []

    def pool(rng: np.random.Generator):
        calls.append(rng)
        return RandomAgent(seed=int(rng.integers(100)))

    env.set_opponent(pool)
    env.reset()
    env.reset()
    assert len(calls) == 2 and all(isinstance(r, np.random.Generator) for r in calls)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"opponent": ["random"]}, "one entry per other seat"),
        ({"opponent": 3}, "opponent must be"),
        ({"opponent": ["random", object()]}, "is not an agent"),
        ({"opponent": "nobody"}, "unknown agent spec"),
        ({"learner_seat": 3}, "learner_seat must be"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv(NimEnv(num_players=3), **kwargs)
    assert issubclass(InvalidOptionError, ValueError)


# ------------------------------------------------------------- our envs, registered
@pytest.mark.slow
@pytest.mark.parametrize("env_id", GYM_IDS)
def test_check_env_on_registered_ids(env_id: str) -> None:
    env = gymnasium.make(env_id)
    check_env(env.unwrapped)
    env.close()


def test_gymnasium_make_without_prior_import() -> None:
    code = (
        "import gymnasium, sys\n"
        "assert 'tabletop_zoo.envs' not in sys.modules\n"
        "env = gymnasium.make('tabletop_zoo.envs:tabletop_zoo/Arktia-v0', num_players=3)\n"
        "obs, info = env.reset(seed=0)\n"
        "assert env.unwrapped.num_players == 3\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_real_games_rewards_match_engine_returns(env_id: str) -> None:
    env = gymnasium.make(env_id, opponent="greedy").unwrapped
    learner = RandomAgent(seed=0)
    for episode in range(4):
        obs, _ = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(
                learner.act(obs, env.action_masks(), env.game_state)
            )
            assert env.observation_space.contains(obs)
            total += reward
            done = terminated or truncated
        state = env.game_state
        if state.is_terminal():
            assert total == state.returns()[env.learner_seat]


@pytest.mark.slow
def test_sb3_vec_envs_dummy_and_subproc() -> None:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    for vec_cls in (None, SubprocVecEnv):
        kwargs = {} if vec_cls is None else {"vec_env_cls": vec_cls}
        venv = make_vec_env(
            "tabletop_zoo.envs:tabletop_zoo/MoleHill-v0", n_envs=2, seed=0, **kwargs
        )
        try:
            venv.reset()
            for _ in range(5):
                masks = np.stack(venv.env_method("action_masks"))
                actions = np.array([np.flatnonzero(m)[0] for m in masks])
                obs, rewards, dones, infos = venv.step(actions)
                assert obs.shape[0] == 2 and rewards.shape == (2,)
        finally:
            venv.close()


def test_maskable_ppo_smoke_then_ppo_agent_in_arena(tmp_path) -> None:
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.baselines import make_agent
    from tabletop_zoo.baselines.agents.ppo import PPOAgent
    from tabletop_zoo.baselines.evaluation.arena import make_env, play_game
    from tabletop_zoo.baselines.training import silent_logger

    env = gymnasium.make("tabletop_zoo/MoleHill-v0", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.set_logger(silent_logger())  # SB3's default logger litters the temp folder
    model.learn(total_timesteps=128)
    path = tmp_path / "mole_hill_ppo.zip"
    model.save(path)
    agent = make_agent(f"ppo:{path}")
    assert isinstance(agent, PPOAgent)
    result = play_game(make_env("mole_hill"), [agent, make_agent("random", seed=0)], seed=0)
    assert len(result.returns) == 2 and result.num_steps > 0


def test_arktia_truncation_reaches_the_learner_scored_as_it_stands() -> None:
    # R23: after max_turns the game is truncated and scored by the position as it stands.
    from tabletop_zoo.envs.results import win_returns

    env = gymnasium.make("tabletop_zoo/Arktia-v0", num_players=3, max_turns=4).unwrapped
    learner = RandomAgent(seed=1)
    for episode in range(3):
        obs, _ = env.reset(seed=episode)
        total, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(
                learner.act(obs, env.action_masks(), env.game_state)
            )
            total += reward
        assert truncated and not terminated
        expected = win_returns(env.game_state.scores())[env.learner_seat]
        assert total == expected == win_returns(info["scores"])[env.learner_seat]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_infos_are_arrays_with_the_learner_s_mask(game: str) -> None:
    """Array values (Minari's recorder refuses lists): the scores, and the int8 mask that
    ``action_masks()`` gives, all zeros once the game is over."""
    env = gymnasium.make(GAMES[game].gymnasium_id).unwrapped
    _obs, info = env.reset(seed=2)
    done = False
    while not done:
        assert info["action_mask"].dtype == np.int8 and info["scores"].dtype == np.int64
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        action = int(np.flatnonzero(info["action_mask"])[-1])
        _obs, _reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert info["scores"].tolist() == list(env.game_state.scores())
    assert not info["action_mask"].any() and info["learner_seat"] == env.learner_seat


def test_action_masks_before_reset_is_a_clear_error() -> None:
    from tabletop_zoo.wrappers.single_agent import make_env

    with pytest.raises(UsageError, match=r"action_masks\(\) before reset\(\): call reset\(\)"):
        make_env("mole_hill").action_masks()
