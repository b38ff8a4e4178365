"""TorchRL's own PettingZooWrapper runs our AEC envs unchanged (extra ``torchrl``)."""

from __future__ import annotations

import pytest
import torch
from torchrl.envs import PettingZooWrapper

from tabletop_zoo.envs.registry import GAMES, make_env

CONFIGS = [(name, n) for name, spec in GAMES.items() for n in spec.players]


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
@pytest.mark.parametrize(
    ("game", "num_players"),
    [c if c[1] == 2 else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
def test_random_rollout_to_the_end_of_a_game(game, num_players):
    env = PettingZooWrapper(
        make_env(game, num_players), use_mask=True, categorical_actions=True, seed=0
    )
    rollout = env.rollout(10_000, break_when_any_done=True)
    state = env._env.unwrapped.game_state
    # the masked random policy played legal moves only: the engine itself reached its end
    # (an illegal move would have ended the wrapped env with the engine still running)
    assert state.is_terminal()
    assert rollout["next", "done"][-1].all() and not rollout["next", "done"][:-1].any()
    final = [rollout["next", f"player_{i}", "reward"][-1].item() for i in range(num_players)]
    assert final == [float(r) for r in state.returns()]
    masks = rollout["player_0", "action_mask"]
    assert masks.dtype == torch.bool and masks.shape[-1] == env._env.unwrapped.num_actions


def test_gym_wrapper_rolls_out_the_vector_env_with_masked_actions() -> None:
    """The recipe of docs/fast.md: DISABLED autoreset (TorchRL's preferred mode, so
    GymWrapper builds its specs without probing the env with unmasked random actions),
    the mask read from the infos with a given spec, TorchRL's ActionMask transform."""
    pytest.importorskip("numba", reason="the vector env needs the 'fast' extra")
    from torchrl.data import Binary
    from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
    from torchrl.envs.libs.gym import default_info_dict_reader

    from tabletop_zoo.wrappers.vector import make_vector_env

    envs = make_vector_env("arktia", 4, 3, autoreset_mode="Disabled", max_turns=40, seed=0)
    n = envs.single_action_space.n
    env = GymWrapper(envs, categorical_action_encoding=True)
    env.set_info_dict_reader(
        default_info_dict_reader(
            ["action_mask"], spec=[Binary(n=n, shape=(4, n), dtype=torch.bool)]
        )
    )
    env = TransformedEnv(env, ActionMask())
    rollout = env.rollout(300, break_when_any_done=False)  # ended games reset by TorchRL
    actions, masks = rollout["action"], rollout["action_mask"]
    assert masks.gather(-1, actions.unsqueeze(-1)).all()  # every action was legal
    done = rollout["next", "done"].squeeze(-1)
    assert done.sum() >= 4  # games ended (or were truncated) and restarted
    rewards = rollout["next", "reward"].squeeze(-1)
    assert set(rewards[done].unique().tolist()) <= {-1.0, 0.0, 1.0}
    assert not rewards[~done].any()
