"""TorchRL's own PettingZooWrapper runs our AEC envs and parallel faces unchanged (extra
``torchrl``)."""

from __future__ import annotations

import pytest
import torch
from torchrl.envs import PettingZooWrapper

from tabletop_zoo.envs.registry import GAMES, make_env, make_parallel_env

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


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
@pytest.mark.parametrize("game", list(GAMES))
def test_the_parallel_face_in_one_group_rolls_out_a_whole_game(game) -> None:
    """BenchMARL's route: every seat in one group (one shared policy), the masks TorchRL
    reads from the observations: the waiting seats' allow only action 0, so TorchRL's
    masked random policy plays legal moves only through the raw env (which would raise)."""
    parallel = make_parallel_env(game)
    seats = parallel.possible_agents
    env = PettingZooWrapper(
        parallel, group_map={"players": seats}, categorical_actions=True, return_state=True, seed=0
    )
    rollout = env.rollout(10_000, break_when_any_done=True)
    state = parallel.aec_env.game_state
    assert state.is_terminal() and rollout["next", "done"][-1].all()
    masks = rollout["players", "action_mask"]  # (steps, seats, actions)
    acting = rollout["players", "info", "acting"].reshape(masks.shape[:2]).bool()
    assert (acting.sum(-1) == 1).all()  # one seat acts at every step
    waiting = masks[~acting]
    assert (waiting.sum(-1) == 1).all() and waiting[:, 0].all()
    final = rollout["next", "players", "reward"][-1].flatten().tolist()
    assert final == [float(r) for r in state.returns()]


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
