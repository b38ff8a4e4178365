"""PUCT search, the AlphaZero-style agent and its self-play trainer."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent, NetworkEvaluator
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.puct import PUCTSearch
from tabletop_zoo.baselines.evaluation.arena import make_env, play_game
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tabletop_zoo.envs.registry import FAST_SWITCH, fast_path_available, new_game
from tests.baselines.az_networks import masked_softmax, small_network
from tests.baselines.puct_nodes import evaluate_states, on_states
from tests.envs.nim_game import NimGame


def _solve(state) -> tuple[float, ...]:
    """Exact max-n values of a Nim position (each seat maximises its own result)."""

    @functools.cache
    def value(piles: tuple[int, ...], player: int, last: int) -> tuple[float, ...]:
        probe = state.clone()
        probe.piles, probe.current_player, probe.last_mover = list(piles), player, last
        if probe.is_terminal():
            return tuple(probe.returns())
        best = None
        for action in probe.legal_actions():
            child = probe.clone()
            child.apply_action(action)
            v = value(tuple(child.piles), child.current_player, child.last_mover)
            if best is None or v[player] > best[player]:
                best = v
        return best

    return value(tuple(state.piles), state.current_player, state.last_mover)


def perfect_evaluator(misleading_action: int | None = None):
    """Exact values; priors uniform, or half of them on ``misleading_action`` (a losing move)."""

    def evaluate(states):
        priors = []
        for s in states:
            legal = s.legal_actions()
            p = np.full(len(legal), 1.0 / len(legal))
            if misleading_action in legal and len(legal) > 1:
                p = np.full(len(legal), 0.5 / (len(legal) - 1))
                p[legal.index(misleading_action)] = 0.5
            priors.append(p)
        return priors, np.array([_solve(s) for s in states])

    return on_states(evaluate)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_puct_with_a_perfect_value_finds_the_only_winning_move(batch_size) -> None:
    # piles 1, 2, 4 (nim-sum 7): the only winning move takes 1 from the pile of 4,
    # action 2 * 4 + 0 = 8; every other move loses against perfect play
    state = NimGame(num_players=2, piles=(1, 2, 4)).new_initial_state()
    assert _solve(state)[0] == 1.0
    search = PUCTSearch(perfect_evaluator(misleading_action=0), 64, batch_size=batch_size)
    root = search.run(state)
    assert root.actions[int(np.argmax(root.child_visits))] == 8
    assert root.child_visits.sum() >= 64 - batch_size  # every simulation counted
    assert state.piles == [1, 2, 4]  # the searched state is untouched


def test_puct_values_every_seat_of_a_three_player_game() -> None:
    # three players: the move the search prefers keeps seat 0's exact (max-n) best result
    state = NimGame(num_players=3, piles=(3, 1), max_take=2).new_initial_state()
    values = _solve(state)
    root = PUCTSearch(perfect_evaluator(), 200, batch_size=4).run(state)
    best = root.actions[int(np.argmax(root.child_visits))]
    child = state.clone()
    child.apply_action(best)
    assert _solve(child)[0] == values[0]  # the chosen move keeps seat 0's best result


def test_puct_plays_terminal_wins_without_evaluating_them() -> None:
    state = NimGame(num_players=3, piles=(0, 3), max_take=4).new_initial_state()
    calls = []

    def evaluate(states):
        calls.append(len(states))
        return [np.full(len(s.legal_actions()), 1 / len(s.legal_actions())) for s in states], (
            np.zeros((len(states), 3))
        )

    root = PUCTSearch(on_states(evaluate), 30, batch_size=4).run(state)
    # taking all 3 of pile 1 (action 1 * 4 + 2 = 6) wins at once
    assert root.actions[int(np.argmax(root.child_visits))] == 6


def _net(game: str, players: int, value_bias: list[float], trunk: int = 0) -> DenseNet:
    return small_network(game, players, trunk=trunk, value_bias=value_bias)


def test_network_values_are_turned_from_relative_to_absolute_seats() -> None:
    net = _net("arktia", 3, [0.5, -0.2, 0.1])
    state = new_game("arktia", 3).new_initial_state(0)
    while state.current_player != 1:
        state.apply_action(state.legal_actions()[0])
    priors, values = evaluate_states(NetworkEvaluator(net), [state])
    # seat to act (1) gets output 0, seat 2 output 1, seat 0 output 2
    assert values[0] == pytest.approx(np.tanh([0.1, 0.5, -0.2]))
    assert priors[0].shape == (len(state.legal_actions()),)
    assert priors[0].sum() == pytest.approx(1.0)


def test_masked_softmax_ignores_illegal_actions() -> None:
    p = masked_softmax(np.array([5.0, 1.0, 1.0]), np.array([False, True, True]))
    assert p.tolist() == [0.0, 0.5, 0.5]


def test_network_file_round_trip(tmp_path) -> None:
    net = _net("mole_hill", 2, [0.3, -0.3], trunk=16)
    path = net.save(tmp_path / "net.npz")
    loaded = DenseNet.load(path)
    x = np.random.default_rng(1).random((3, net.input_size)).astype(np.float32)
    # float16 storage: outputs agree to about 3 significant digits
    for name in ("policy", "value"):
        assert np.allclose(loaded.forward(x)[name], net.forward(x)[name], atol=2e-2)
    assert loaded.meta == net.meta
    (tmp_path / "bad.npz").write_bytes(b"not a network")
    with pytest.raises(InvalidOptionError):
        DenseNet.load(tmp_path / "bad.npz")


@pytest.mark.parametrize(("game", "players"), [("mole_hill", 2), ("arktia", 2), ("arktia", 4)])
def test_alphazero_agent_plays_full_games(game, players, tmp_path) -> None:
    path = _net(game, players, [0.0] * players, trunk=16).save(tmp_path / "az.npz")
    agent = make_agent(f"az:{path}:8", seed=3)
    assert isinstance(agent, AlphaZeroAgent) and agent.num_simulations == 8
    agents = [agent] + [make_agent("random", seed=i) for i in range(players - 1)]
    result = play_game(make_env(game, players), agents, seed=2)
    assert result.num_steps > 0 and len(result.returns) == players


@pytest.mark.skipif(not fast_path_available(), reason="the 'fast' extra (numba) is missing")
def test_the_agent_searches_on_the_compiled_engine_in_the_arena(monkeypatch, tmp_path) -> None:
    """Wherever it plays (here the arena, which hands agents Python states) the agent's
    search gets the compiled engine's state, and plays the moves it plays on the Python
    engine (``TABLETOP_ZOO_FAST=0``)."""
    path = _net("arktia", 2, [0.0, 0.0], trunk=16).save(tmp_path / "az.npz")
    received: list[str] = []
    run = PUCTSearch.run

    def spy(search, state):
        received.append(type(state).__name__)
        return run(search, state)

    monkeypatch.setattr(PUCTSearch, "run", spy)
    games = {}
    for switch in ("1", "0"):
        monkeypatch.setenv(FAST_SWITCH, switch)
        received.clear()
        agents = [make_agent(f"az:{path}:8", seed=0), make_agent("greedy", seed=1)]
        result = play_game(make_env("arktia", 2), agents, seed=4)
        games[switch] = (result.returns, result.num_steps, set(received))
    assert games["1"][2] == {"FastArktiaState"} and games["0"][2] == {"ArktiaState"}
    assert games["1"][:2] == games["0"][:2]


@pytest.mark.slow
def test_alphazero_network_for_another_game_is_refused(tmp_path) -> None:
    path = _net("arktia", 3, [0.0] * 3).save(tmp_path / "az3.npz")
    agents = [make_agent(f"az:{path}"), make_agent("random")]
    with pytest.raises(InvalidOptionError, match="same game and number of players"):
        play_game(make_env("arktia", 2), agents, seed=0)
    with pytest.raises(InvalidOptionError):
        make_agent(f"az:{tmp_path / 'missing.npz'}")


@pytest.mark.parametrize(
    ("head", "width", "reason"),
    [
        ("policy", 10, r"input and policy widths \(1008, 10\) do not match its header"),
        ("value", 3, "its value head gives 3 values, not 2"),
    ],
)
def test_an_alphazero_network_whose_heads_do_not_fit_its_header_is_refused(
    tmp_path, head, width, reason
) -> None:
    net = _net("mole_hill", 2, [0.0, 0.0])
    weight, bias = net.heads[head]
    net.heads[head] = (np.resize(weight, (weight.shape[0], width)), np.resize(bias, width))
    path = net.save(tmp_path / "bad.npz")
    with pytest.raises(ModelFileError, match=f"not an AlphaZero network of ours .*{reason}"):
        make_agent(f"az:{path}")


@pytest.mark.slow
def test_self_play_training_writes_a_playable_network(tmp_path) -> None:
    pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    config = AlphaZeroConfig(
        game="mole_hill",
        out=str(tmp_path / "az.npz"),
        iterations=2,
        games_per_iteration=3,
        parallel_games=2,  # three games, two at a time
        num_simulations=4,
        updates_per_iteration=2,
        train_batch=16,
        hidden=(16,),
        checkpoint_seconds=1e-9,  # a checkpoint after every iteration
    )
    result = train_alphazero(config, log=lambda _: None)
    assert result.games == 6 and result.decisions > 0 and len(result.log) == 2
    checkpoints = sorted(tmp_path.glob("az_cpu*s.npz"))  # learning curves evaluate these
    assert 1 <= len(checkpoints) <= 2  # both iterations may end in the same CPU second
    assert DenseNet.load(checkpoints[-1]).meta["history"][0]["iteration"] == 1
    net = DenseNet.load(result.path)
    assert net.meta["kind"] == "alphazero" and net.meta["num_players"] == 2
    agents = [make_agent(f"az:{result.path}:4", seed=0), make_agent("random", seed=1)]
    assert play_game(make_env("mole_hill"), agents, seed=0).num_steps > 0
    with pytest.raises(InvalidOptionError):
        AlphaZeroConfig(game="mole_hill", num_players=3).check()
    with pytest.raises(InvalidOptionError, match="checkpoint_seconds must be > 0"):
        AlphaZeroConfig(game="mole_hill", checkpoint_seconds=0).check()
    with pytest.raises(InvalidOptionError, match="max_moves must be >= 1"):
        AlphaZeroConfig(game="mole_hill", max_moves=0).check()


def test_self_play_games_end_at_max_moves_scored_as_they_stand(tmp_path) -> None:
    """A self-play game still running after max_moves actions ends there (a learned policy
    can keep an Arktia game going for hundreds of moves); its value targets are the result
    by the scores as they stand, like a truncated env game."""
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig
    from tabletop_zoo.baselines.training.self_play import _SelfPlay
    from tabletop_zoo.envs.results import win_returns

    cfg = AlphaZeroConfig(game="arktia", out=str(tmp_path / "a.npz"), games_per_iteration=1,
                          num_simulations=2, hidden=(8,), max_moves=6).check()  # fmt: skip
    net = _net("arktia", 2, [0.0, 0.0], trunk=8)
    self_play = _SelfPlay(net, cfg, 1, np.random.default_rng(0), compiled=False)
    records, stats = self_play.run()
    state = self_play.trees.positions.nodes[0, 0]  # where the game stopped
    assert stats.games == 1 and 1 <= len(records) <= 6  # cut after 6 actions
    assert not state.is_terminal() and self_play.games == [None]
    expected = win_returns(state.scores())  # absolute seats
    for _planes, _mask, _target, relative in records:
        assert sorted(relative.tolist()) == sorted(expected)


class _Finished:
    """A stand-in engine state: finished (or cut) with a given score line."""

    def __init__(self, scores, terminal=True):
        self._scores, self._terminal = list(scores), terminal

    def is_terminal(self):
        return self._terminal

    def scores(self):
        return self._scores

    def returns(self):
        best = max(self._scores)
        sole = self._scores.count(best) == 1
        return [(1.0 if sole else 0.0) if s == best else -1.0 for s in self._scores]


def test_game_values_mix_the_result_with_the_score_margin() -> None:
    from tabletop_zoo.baselines.agents.alphazero import game_values

    # 6 to 4: result +1 / -1, margins +2 / -2; weight 0.5, scale 2: 0.5 + 0.5 tanh(1)
    values = game_values(_Finished([6, 4]), score_weight=0.5, score_scale=2.0)
    assert values.tolist() == pytest.approx([0.5 + 0.5 * np.tanh(1.0), -0.5 - 0.5 * np.tanh(1.0)])
    assert game_values(_Finished([6, 4])).tolist() == [1.0, -1.0]  # weight 0: the result
    assert game_values(_Finished([3, 3]), 0.5).tolist() == [0.0, 0.0]  # a draw stays 0
    # a game cut while running: result by the scores as they stand (2, 5, 5: two tied
    # leaders get 0, the third -1), margins -3, 0, 0
    cut = game_values(_Finished([2, 5, 5], terminal=False), score_weight=1.0, score_scale=3.0)
    assert cut.tolist() == pytest.approx([np.tanh(-1.0), 0.0, 0.0])


def test_a_network_trained_with_a_score_weight_searches_with_it(tmp_path) -> None:
    pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    with pytest.raises(InvalidOptionError, match="score_weight must be in"):
        AlphaZeroConfig(game="mole_hill", score_weight=1.5).check()
    with pytest.raises(InvalidOptionError, match="score_scale must be > 0"):
        AlphaZeroConfig(game="mole_hill", score_scale=0).check()
    config = AlphaZeroConfig(game="mole_hill", out=str(tmp_path / "s.npz"), iterations=1,
                             games_per_iteration=1, num_simulations=4, updates_per_iteration=1,
                             train_batch=8, hidden=(8,), score_weight=0.5,
                             score_scale=2.0)  # fmt: skip
    result = train_alphazero(config, log=lambda _: None)
    agent = make_agent(f"az:{result.path}:4", seed=0)
    assert agent.search.terminal_value(_Finished([6, 4])) == pytest.approx(
        [0.5 + 0.5 * np.tanh(1.0), -0.5 - 0.5 * np.tanh(1.0)]
    )
    plain = make_agent(f"az:{_net('mole_hill', 2, [0.0, 0.0]).save(tmp_path / 'p.npz')}:4")
    assert plain.search.terminal_value(_Finished([6, 4])) == [1.0, -1.0]


@pytest.mark.parametrize("batch_size", [1, 8])
def test_gumbel_root_search_plays_and_targets_the_winning_move(batch_size) -> None:
    # piles 0, 3 (take up to 4): taking all 3 (action 1 * 4 + 2 = 6) wins at once; taking
    # 1 or 2 lets the opponent take the rest and win. The priors put half their mass on
    # taking 1 (action 4).
    state = NimGame(num_players=2, piles=(0, 3), max_take=4).new_initial_state()
    search = PUCTSearch(perfect_evaluator(misleading_action=4), 32, batch_size=batch_size, seed=3)
    root, chosen, improved = search.run_gumbel(state)
    assert root.actions[chosen] == 6
    assert improved.shape == (len(root.actions),) and improved.sum() == pytest.approx(1.0)
    winning = root.actions.index(6)
    # the improved policy moves the mass from the misleading prior to the winning move
    assert improved[winning] > 0.9 and root.priors[winning] == 0.25
    assert root.child_visits.sum() <= 32  # sequential halving stays within the budget
    assert state.piles == [0, 3]


def test_gumbel_root_search_considers_only_the_top_actions() -> None:
    state = NimGame(num_players=2, piles=(1, 2, 4)).new_initial_state()  # 7 legal actions
    root, _, _ = PUCTSearch(perfect_evaluator(), 16, seed=0).run_gumbel(state, num_considered=2)
    assert int((root.child_visits > 0).sum()) == 2  # one halving between two actions
    assert root.child_visits.sum() == 16


@pytest.mark.slow
def test_self_play_with_gumbel_roots_trains_on_improved_policies(tmp_path) -> None:
    pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero
    from tabletop_zoo.baselines.training.self_play import play_self_play_games

    cfg = AlphaZeroConfig(game="mole_hill", out=str(tmp_path / "g.npz"), iterations=1,
                          games_per_iteration=1, num_simulations=8, updates_per_iteration=1,
                          train_batch=8, hidden=(8,), gumbel=True).check()  # fmt: skip
    train_alphazero(cfg, log=lambda _: None)
    net = DenseNet.load(cfg.out)
    records, _ = play_self_play_games(net, cfg, 1, np.random.default_rng(0))
    assert records
    for _planes, mask, target, _value in records:
        assert target.sum() == pytest.approx(1.0) and not target[~mask].any()
        assert (target[mask] > 0).all()  # every legal action keeps some mass
    with pytest.raises(InvalidOptionError, match="gumbel_considered must be >= 1"):
        AlphaZeroConfig(game="mole_hill", gumbel=True, gumbel_considered=0).check()


def test_training_flushes_subnormals_while_it_runs_and_not_after(tmp_path) -> None:
    # Weight decay shrinks never-trained weights into the subnormal range, where matrix
    # products are 11-16x slower: training runs with flush-to-zero, and restores it.
    torch = pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    subnormal = np.array([1e-40], dtype=np.float32)
    seen: list[float] = []
    cfg = AlphaZeroConfig(game="mole_hill", out=str(tmp_path / "f.npz"), iterations=1,
                          games_per_iteration=1, num_simulations=4, updates_per_iteration=1,
                          train_batch=8, hidden=(8,))  # fmt: skip
    train_alphazero(cfg, log=lambda _: seen.append(float((subnormal * np.float32(1))[0])))
    assert seen == [0.0]  # flushed in NumPy during training
    assert float((subnormal * np.float32(1))[0]) > 0.0
    assert (torch.tensor([1e-40]) * 1.0).item() > 0.0
    torch.set_flush_denormal(True)  # a caller that flushes keeps flushing
    try:
        train_alphazero(dataclasses.replace(cfg, overwrite=True), log=lambda _: None)
        assert float((subnormal * np.float32(1))[0]) == 0.0
    finally:
        torch.set_flush_denormal(False)
