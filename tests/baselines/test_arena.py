"""The arena: make_env and play_game, on the toy Nim env and on our real envs."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines import GreedyAgent, MCTSAgent, RandomAgent, make_agent
from tabletop_zoo.baselines.evaluation import arena
from tabletop_zoo.baselines.evaluation.arena import GameResult, make_env, play_game
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES
from tests.baselines.nim_toy import NimEnv, Scripted


def test_make_env_builds_every_registered_game() -> None:
    for name, spec in GAMES.items():
        env = make_env(name)
        assert isinstance(env, spec.env_module_object().raw_env)
        assert len(env.possible_agents) == spec.default_players


def test_make_env_rejects_unknown_game() -> None:
    allowed = ", ".join(sorted(GAMES))
    with pytest.raises(InvalidOptionError, match=f"unknown game 'chess'; allowed: {allowed}"):
        make_env("chess")


def test_make_env_mole_hill_is_two_players_only() -> None:
    with pytest.raises(InvalidOptionError, match="2-player"):
        make_env("mole_hill", num_players=3)


def test_play_game_needs_one_agent_per_seat() -> None:
    with pytest.raises(ValueError, match="2 seats .* but 3 agents"):
        play_game(NimEnv(), [RandomAgent()] * 3)


def test_play_game_known_outcome_and_on_step() -> None:
    # Piles 1, 2, 4 (take up to 4): seat 0 takes 1 from the 4-pile, seat 1 empties
    # the 2-pile, seat 0 empties the 3-pile, seat 1 takes the last object and wins.
    env = NimEnv(piles=(1, 2, 4), max_take=4)
    seen: list[tuple[int, int]] = []
    agents = [Scripted([8, 10]), Scripted([5, 0])]
    result = play_game(env, agents, seed=0, on_step=lambda e, seat, a: seen.append((seat, a)))
    assert result == GameResult([-1.0, 1.0], [4, 3], num_steps=4, moves=[8, 5, 10, 0])
    assert seen == [(0, 8), (1, 5), (0, 10), (1, 0)]


def test_play_game_mcts_beats_random_from_a_won_position() -> None:
    env = NimEnv(piles=(1, 2, 4), max_take=4)
    for seed in range(3):
        result = play_game(env, [MCTSAgent(500), RandomAgent()], seed=seed)
        assert result.returns == [1.0, -1.0]


class LowestLegal:
    """Deterministic: always the lowest legal action."""

    name = "lowest"

    def act(self, observation, action_mask, state) -> int:
        return int(action_mask.nonzero()[0][0])


def test_random_opening_gives_deterministic_agents_different_games() -> None:
    """Mole Hill has no chance: two deterministic agents play one game whatever the seed,
    unless the first actions are random (then the seed decides them, reproducibly)."""
    env = make_env("mole_hill")
    agents = [LowestLegal(), LowestLegal()]

    def moves(seed: int, opening: int) -> list[int]:
        seen: list[int] = []
        play_game(env, agents, seed=seed, random_opening=opening,
                  on_step=lambda e, seat, a: seen.append(a))  # fmt: skip
        return seen

    assert len({tuple(moves(seed, 0)) for seed in range(4)}) == 1
    with_opening = [moves(seed, 3) for seed in range(6)]
    assert len({tuple(m[:3]) for m in with_opening}) > 1  # random first three actions
    assert moves(2, 3) == with_opening[2]  # reproducible by seed
    assert play_game(env, agents, seed=1, random_opening=3).num_steps == len(with_opening[1])
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidOptionError, match="random_opening must be an integer >= 0"):
            play_game(env, agents, seed=0, random_opening=bad)


def test_play_game_is_reproducible_by_seed() -> None:
    env = NimEnv(piles=(3, 4, 5), num_players=3, max_take=3, win_rule="score")
    agents = [RandomAgent(), GreedyAgent(), RandomAgent()]
    first = play_game(env, agents, seed=11)
    assert play_game(env, agents, seed=11) == first
    assert sum(first.scores) == 12


# ----------------------------------------------------------------------- real envs
@pytest.mark.parametrize(
    "game, num_players",
    [
        *(pytest.param(*c, marks=pytest.mark.slow) for c in [("mole_hill", 2), ("arktia", 2)]),
        ("arktia", 3),
    ],
)
def test_play_game_real_envs_random_and_greedy(game: str, num_players: int) -> None:
    env = make_env(game, num_players=num_players)
    agents = [make_agent("greedy", seed=1)] + [
        make_agent("random", seed=s) for s in range(num_players - 1)
    ]
    result = play_game(env, agents, seed=7)
    state = env.unwrapped.game_state
    assert result.scores == list(state.scores())
    assert result.num_steps > 0
    assert sorted(set(result.returns)) in ([-1.0, 1.0], [-1.0, 0.0], [0.0])
    if state.is_terminal():
        assert result.returns == list(state.returns())
    assert play_game(env, agents, seed=7) == result


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_play_game_real_envs_mcts(game: str) -> None:
    env = make_env(game)
    agents = [MCTSAgent(n_simulations=8, max_rollout_depth=20), RandomAgent()]
    result = play_game(env, agents, seed=3)
    assert len(result.returns) == 2 and result.num_steps > 0


def test_play_game_truncated_arktia_is_scored_as_it_stands() -> None:
    env = make_env("arktia", num_players=2, max_turns=3)
    result = play_game(env, [RandomAgent(), RandomAgent()], seed=5)
    assert not env.unwrapped.game_state.is_terminal()
    expected = [1.0, -1.0] if result.scores[0] > result.scores[1] else [-1.0, 1.0]
    if result.scores[0] == result.scores[1]:
        expected = [0.0, 0.0]
    assert result.returns == expected


def test_model_agents_are_built_once_per_process_and_others_fresh() -> None:
    arena.forget_model_agents()
    ref = arena.seeded_agent("ref:mole_hill-2p-ppo", 1)
    assert arena.seeded_agent("ref:mole_hill-2p-ppo", 2) is ref
    assert arena.seeded_agent("greedy", 1) is not arena.seeded_agent("greedy", 1)
    arena.forget_model_agents()
    assert arena.seeded_agent("ref:mole_hill-2p-ppo", 1) is not ref
    with pytest.raises(InvalidOptionError, match="waits for a person"):
        arena.seeded_agent("human", 0)


def test_play_task_is_reproducible_from_its_seed() -> None:
    task = ("mole_hill", 2, {}, ["greedy", "mcts:8"], 123, 2)
    first = arena.play_task(task)
    assert arena.play_task(task) == first
    returns, scores, moves = first
    assert len(returns) == len(scores) == 2 and len(moves) > 2


@pytest.mark.slow
def test_cpu_seconds_counts_finished_worker_processes() -> None:
    before = arena.cpu_seconds()
    tasks = [("mole_hill", 2, {}, ["greedy", "random"], seed, 0) for seed in range(4)]
    assert len(list(arena.play_tasks(tasks, workers=2))) == 4
    assert arena.cpu_seconds() > before
