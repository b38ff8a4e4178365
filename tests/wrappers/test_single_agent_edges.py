"""Hard edges of the single-agent view: the integer rule for actions, bad options, messages
in notation, opponents made for another game, no SB3 litter."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError
from tabletop_zoo.envs.registry import GAMES
from tabletop_zoo.wrappers.single_agent import SingleAgentEnv, make_env

NOT_ACTIONS = [31.9, "31", True, False, None, float("nan"), float("inf"), np.float64(1.0),
               np.array([0]), b"1", [1]]  # fmt: skip


def _started(game: str, **kwargs) -> SingleAgentEnv:
    env = make_env(game, opponent="random", learner_seat=0, seed=3, **kwargs)
    env.reset()
    return env


# ------------------------------------------------------------------------ the integer rule
@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_non_integer_actions_raise_and_change_nothing(game: str, action) -> None:
    env = _started(game, illegal_action="raise")
    before = env.game_state.to_json()
    with pytest.raises(IllegalActionError, match="is not an action: actions are integers"):
        env.step(action)
    assert env.game_state.to_json() == before
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(legal)  # still playable
    assert env.game_state.to_json() != before


@pytest.mark.parametrize("action", [31.9, "31", True, None], ids=repr)
def test_non_integer_actions_lose_by_default(action) -> None:
    env = _started(next(iter(GAMES)))
    _obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "is not an action" in info["illegal_action"]


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint16, np.array])
def test_numpy_integers_and_0d_integer_arrays_are_actions(kind) -> None:
    game = next(iter(GAMES))
    plain, numpy_env = (
        _started(game, illegal_action="raise"),
        _started(game, illegal_action="raise"),
    )
    legal = int(np.flatnonzero(plain.action_masks())[1])
    obs_plain, *rest_plain = plain.step(legal)
    obs_numpy, *rest_numpy = numpy_env.step(kind(legal))  # same seed: must be the same game
    assert np.array_equal(obs_plain, obs_numpy) and rest_plain[:3] == rest_numpy[:3]
    assert all(np.array_equal(v, rest_numpy[3][k]) for k, v in rest_plain[3].items())
    assert plain.game_state.to_json() == numpy_env.game_state.to_json()


def test_illegal_action_message_is_notation_and_short() -> None:
    # 4-player Arktia, the longest legal list: notation and at most ten moves, not raw ids
    name, spec = max(GAMES.items(), key=lambda item: max(item[1].players))
    env = make_env(name, num_players=max(spec.players), learner_seat=0, illegal_action="raise")
    env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    legal = np.flatnonzero(mask).tolist()
    with pytest.raises(IllegalActionError) as info:
        env.step(illegal)
    message = str(info.value)
    assert f"action {illegal} ({env.game_state.action_to_string(illegal)}) is not legal" in message
    shown = [env.game_state.action_to_string(a) for a in legal[:10]]
    assert f"legal: {', '.join(shown)}, ... ({len(legal)} legal moves)" in message
    assert len(message) < 250


def test_out_of_range_action_says_the_range() -> None:
    env = _started(next(iter(GAMES)), illegal_action="raise")
    with pytest.raises(IllegalActionError, match=rf"out of range 0..{env.action_space.n - 1}"):
        env.step(env.action_space.n)


# ----------------------------------------------------------------------- wrapper options
@pytest.mark.parametrize("seat", [1.0, "1", True, -1, 2, [0]], ids=repr)
def test_learner_seat_must_be_an_integer_seat(seat) -> None:
    with pytest.raises(
        InvalidOptionError, match=r"learner_seat must be None .* integer seat in 0\.\.1"
    ):
        make_env(next(iter(GAMES)), num_players=2, learner_seat=seat)


def test_numpy_learner_seat_is_accepted() -> None:
    env = make_env(next(iter(GAMES)), num_players=2, learner_seat=np.int64(1))
    env.reset(seed=0)
    assert env.learner_seat == 1 and type(env.learner_seat) is int


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, [1]], ids=repr)
def test_bad_seeds_name_the_rule(seed) -> None:
    with pytest.raises(InvalidOptionError, match="seed must be None or a non-negative integer"):
        make_env(next(iter(GAMES)), seed=seed)
    env = make_env(next(iter(GAMES)))
    with pytest.raises(InvalidOptionError, match=r"reset\(seed=...\) must be None or a non-neg"):
        env.reset(seed=seed)


@pytest.mark.parametrize(
    "aec_env", [None, 3, "mole", object()], ids=["None", "3", "mole", "object"]
)
def test_not_an_aec_env_is_an_option_error(aec_env) -> None:
    with pytest.raises(InvalidOptionError, match="aec_env must be a PettingZoo AEC env"):
        SingleAgentEnv(aec_env)


@pytest.mark.parametrize("mode", [["lose"], None, "LOSE"], ids=repr)
def test_bad_illegal_action_mode(mode) -> None:
    with pytest.raises(InvalidOptionError, match="illegal_action must be one of"):
        make_env(next(iter(GAMES)), illegal_action=mode)


# ---------------------------------------------------- a model made for another game
class _ModelAgent:
    """An agent holding a 'model' whose spaces are those of ``game``'s env."""

    def __init__(self, game: str, num_players: int) -> None:
        from tabletop_zoo.envs.registry import make_raw_env

        env = make_raw_env(game, num_players)
        first = env.possible_agents[0]
        self.name = f"model_of_{game}"
        self.model = type("Model", (), {})()
        self.model.observation_space = env.observation_space(first)["observation"]
        self.model.action_space = env.action_space(first)

    def act(self, observation, action_mask, state) -> int:
        return int(np.flatnonzero(action_mask)[0])


def test_opponent_trained_on_another_game_is_refused() -> None:
    first, second = sorted(GAMES)
    with pytest.raises(InvalidOptionError, match="trained on observations of shape"):
        make_env(first, opponent=_ModelAgent(second, 2))
    env = make_env(first, opponent=lambda rng: _ModelAgent(second, 2))
    with pytest.raises(InvalidOptionError, match="use a model trained on the same game"):
        env.reset(seed=0)
    make_env(first, opponent=_ModelAgent(first, 2)).reset(seed=0)  # its own game: fine


# --------------------------------------------------------------------- no SB3 litter
def test_sb3_learn_with_our_logger_writes_nothing_to_the_temp_folder(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.baselines.training import silent_logger

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    env = make_env(next(iter(GAMES)), opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.set_logger(silent_logger())
    model.learn(total_timesteps=32)

    def sb3_folders() -> list[str]:  # (torch may keep its own caches there: not ours)
        return [p.name for p in temp.iterdir() if p.name.startswith("SB3-")]

    assert sb3_folders() == []
    # and the default logger would have left an SB3-<date> folder there
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=32)
    assert len(sb3_folders()) == 1


# --------------------------------------------------------------------- misuse order
def test_step_before_reset_and_after_the_end_say_what_to_do() -> None:
    from tabletop_zoo.envs.errors import UsageError

    env = make_env(next(iter(GAMES)), learner_seat=0)
    with pytest.raises(UsageError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=1)
    done = False
    while not done:
        _obs, _r, terminated, truncated, _info = env.step(
            int(np.flatnonzero(env.action_masks())[0])
        )
        done = terminated or truncated
    with pytest.raises(UsageError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=2)  # and a new game starts cleanly
    assert env.action_masks().any()
