"""TorchRL's own PettingZooWrapper runs our AEC envs unchanged (extra ``torchrl``)."""

from __future__ import annotations

import pytest
import torch
from torchrl.envs import PettingZooWrapper

from tabletop_zoo.envs.registry import GAMES, make_env

CONFIGS = [(name, n) for name, spec in GAMES.items() for n in spec.players]


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
@pytest.mark.parametrize(("game", "num_players"), CONFIGS)
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
