"""The OpenSpiel bridge (extra ``openspiel``): every game of the registry, every variant."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

from tabletop_zoo.baselines.agents import MCTSAgent
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES
from tabletop_zoo.envs.results import win_returns
from tabletop_zoo.wrappers import openspiel as bridge


def _variants() -> list[tuple[str, dict]]:
    """(game, params) for every player count and every bool / yes-no option value."""
    out = []
    for spec in GAMES.values():
        defaults = bridge.parameter_specification(spec.name)
        for players in spec.players:
            out.append((spec.name, {"players": players}))
            for name, default in defaults.items():
                if isinstance(default, bool):
                    values = [not default]
                elif default == "" and bool in bridge.allowed_types(spec, name):
                    values = ["yes", "no"]
                else:
                    continue
                for value in values:
                    params = {"players": players, name: value}
                    try:
                        bridge.load_game(spec.name, params)
                    except InvalidOptionError:  # e.g. an option a player count forbids
                        continue
                    out.append((spec.name, params))
    return out


VARIANTS = _variants()
DEFAULT_GAMES = [(spec.name, {}) for spec in GAMES.values()]


def _ids(variant: tuple[str, dict]) -> str:
    game, params = variant
    return f"{game}-" + "-".join(f"{k}={v}" for k, v in sorted(params.items()))


def _random_state(game: pyspiel.Game, moves: int, seed: int) -> pyspiel.State:
    """The state after ``moves`` uniformly random decisions (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history()) < moves:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_importing_registers_every_game_of_the_registry():
    assert bridge.REGISTERED_GAMES == [f"python_{name}" for name in GAMES]
    registered = set(pyspiel.registered_names())
    assert set(bridge.REGISTERED_GAMES) <= registered


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_random_sim_test_with_serialization(variant):
    game = pyspiel.load_game(bridge.short_name(variant[0]), variant[1])
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_game_type_and_information(variant):
    name, params = variant
    game = pyspiel.load_game(bridge.short_name(name), params)
    kind = game.get_type()
    engine = game.engine
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    players = params["players"]
    expected_utility = "ZERO_SUM" if players == 2 else "GENERAL_SUM"
    assert kind.utility.name == expected_utility
    assert game.num_players() == players == engine.num_players
    assert game.num_distinct_actions() == engine.num_actions
    # the true bound: the rules' own (a Game's max_game_length) or else the max_moves cut
    bound = engine.max_game_length
    assert game.max_game_length() == (
        bridge.DEFAULT_MAX_MOVES if bound is None else min(bound, bridge.DEFAULT_MAX_MOVES)
    )
    if bound is not None:
        assert bridge.load_game(name, {**params, "max_moves": bound + 5}).max_game_length() == (
            bound
        )
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    starts = {engine.new_initial_state(seed=s).to_json() for s in range(4)}
    stochastic = len(starts) > 1
    assert game.stochastic is stochastic
    assert (kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) is stochastic
    assert game.max_chance_outcomes() == (bridge.CHANCE_SEEDS if stochastic else 0)


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_observation_is_the_public_encoder_channel_first(variant):
    name, params = variant
    game = pyspiel.load_game(bridge.short_name(name), params)
    encoder = GAMES[name].make_observation_encoder(game.engine, None)
    rows, cols, planes = encoder.shape
    assert game.observation_tensor_shape() == [planes, rows, cols]
    state = _random_state(game, 12, seed=3)
    for player in range(game.num_players()):
        tensor = np.asarray(state.observation_tensor(player)).reshape(planes, rows, cols)
        expected = encoder.encode(state.engine_state, player)
        np.testing.assert_array_equal(tensor, np.moveaxis(expected, -1, 0))
        assert state.observation_string(player) == str(state.engine_state)


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_fast_observation_tensor_is_openspiels_own(variant):
    """Our observation_tensor (no observer object per call) gives OpenSpiel's result."""
    game = bridge.load_game(*variant)
    generic = pyspiel.State.observation_tensor  # OpenSpiel's: a fresh observer every call
    for moves in (0, 1, 9):
        state = _random_state(game, moves, seed=moves)
        for player in range(game.num_players()):
            ours = state.observation_tensor(player)
            assert isinstance(ours, list) and ours == generic(state, player)
        if not state.is_terminal() and not state.is_chance_node():
            assert state.observation_tensor() == generic(state, state.current_player())
    with pytest.raises(InvalidOptionError, match="player must be a seat"):
        state.observation_tensor(game.num_players())


@pytest.mark.parametrize("variant", DEFAULT_GAMES, ids=_ids)
def test_action_strings_are_our_notation(variant):
    game = bridge.load_game(*variant)
    state = _random_state(game, 6, seed=1)
    for action in state.legal_actions():
        text = state.action_to_string(state.current_player(), action)
        assert text == state.engine_state.action_to_string(action)
        assert state.engine_state.string_to_action(text) == action


@pytest.mark.parametrize("variant", DEFAULT_GAMES, ids=_ids)
def test_clone_is_independent_and_shares_the_game(variant):
    game = bridge.load_game(*variant)
    state = _random_state(game, 8, seed=2)
    twin = state.clone()
    assert twin.history() == state.history()
    assert twin.tabletop_game is game  # the game is not rebuilt per clone
    assert twin.engine_state is not state.engine_state
    assert twin.engine_state.to_json() == state.engine_state.to_json()
    twin.apply_action(twin.legal_actions()[0])
    assert len(twin.history()) == len(state.history()) + 1
    assert twin.engine_state.to_json() != state.engine_state.to_json()
    deep = copy.deepcopy(state)
    assert deep.history() == state.history() and deep.moves == state.moves


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_pickled_game_keeps_its_python_attributes(variant):
    game = pyspiel.load_game(bridge.short_name(variant[0]), variant[1])
    restored = pickle.loads(pickle.dumps(game))
    assert isinstance(restored, bridge.TabletopGame)
    assert str(restored) == str(game)
    assert restored.engine.num_actions == game.engine.num_actions
    state = _random_state(game, 10, seed=4)
    back = pickle.loads(pickle.dumps(state))
    assert back.history() == state.history()
    assert back.engine_state.to_json() == state.engine_state.to_json()


def _play_in_worker(game: pyspiel.Game) -> tuple[str, list[float]]:
    state = _random_state(game, 10_000, seed=5)
    return str(game), state.returns()


@pytest.mark.slow
def test_games_survive_spawned_worker_processes():
    games = [pyspiel.load_game(bridge.short_name(name), params) for name, params in VARIANTS]
    context = multiprocessing.get_context("spawn")  # a fresh interpreter, like AlphaZero's actors
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        results = list(pool.map(_play_in_worker, games, timeout=300))
    for game, (text, returns) in zip(games, results, strict=True):
        assert text == str(game)
        assert returns == _random_state(game, 10_000, seed=5).returns()


def test_serialize_game_and_state_round_trip():
    for name, params in VARIANTS:
        game = pyspiel.load_game(bridge.short_name(name), params)
        state = _random_state(game, 15, seed=6)
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert state2.engine_state.to_json() == state.engine_state.to_json()


@pytest.mark.parametrize("variant", DEFAULT_GAMES, ids=_ids)
def test_max_moves_cuts_the_game_and_scores_the_position(variant):
    name, _ = variant
    game = bridge.load_game(name, {"max_moves": 5})
    assert game.max_game_length() == 5
    state = _random_state(game, 10_000, seed=7)
    assert state.is_terminal()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.moves == 5
    assert not state.engine_state.is_terminal()
    assert state.returns() == [float(r) for r in win_returns(state.engine_state.scores())]


def test_bad_parameters_raise_clear_errors():
    name = next(iter(GAMES))
    with pytest.raises(InvalidOptionError, match="unknown parameter"):
        bridge.load_game(name, {"colour": 3})
    with pytest.raises(InvalidOptionError, match="players=9"):
        bridge.load_game(name, {"players": 9})
    with pytest.raises(InvalidOptionError, match="max_moves"):
        bridge.load_game(name, {"max_moves": 0})
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game(bridge.short_name(name), {"colour": 3})


@pytest.mark.slow
@pytest.mark.parametrize("variant", DEFAULT_GAMES, ids=_ids)
def test_python_mcts_bot_beats_random_through_evaluate_bots(variant):
    game = pyspiel.load_game(bridge.short_name(variant[0]))
    n = game.num_players()
    mcts_returns = []
    for g in range(4):
        seat = g % n
        bots = [UniformRandomBot(p, np.random.RandomState(10 + g + p)) for p in range(n)]
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(g))
        bots[seat] = mcts.MCTSBot(game, 1.4, 20, evaluator, random_state=np.random.RandomState(g))
        returns = evaluate_bots.evaluate_bots(
            game.new_initial_state(), bots, np.random.RandomState(g)
        )
        mcts_returns.append(returns[seat])
    assert np.mean(mcts_returns) >= 0.5, mcts_returns  # at least 3 wins of 4 (or 2 + 2 draws)


@pytest.mark.slow
def test_our_mcts_and_openspiel_mcts_are_of_comparable_strength():
    """Equal simulations, alternating seats: neither side wins (nearly) every game."""
    game = pyspiel.load_game(bridge.short_name(next(iter(GAMES))))
    results = []
    for g in range(8):
        ours, theirs = (0, 1) if g % 2 == 0 else (1, 0)
        bots = [UniformRandomBot(p, np.random.RandomState(p)) for p in range(game.num_players())]
        bots[ours] = bridge.AgentBot(game, MCTSAgent(20), seed=g)
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(g))
        bots[theirs] = mcts.MCTSBot(game, 1.4, 20, evaluator, random_state=np.random.RandomState(g))
        returns = evaluate_bots.evaluate_bots(
            game.new_initial_state(), bots, np.random.RandomState(g)
        )
        results.append(np.sign(returns[ours] - returns[theirs]))
    score = (results.count(1) + 0.5 * results.count(0)) / len(results)
    assert 0.2 <= score <= 0.8, results


def test_policy_gradient_trains_through_rl_environment():
    import torch
    from open_spiel.python.pytorch import policy_gradient

    name = next(iter(GAMES))
    env = rl_environment.Environment(bridge.load_game(name))
    env.seed(0)
    size = env.observation_spec()["info_state"][0]
    assert size == int(np.prod(env.game.observation_tensor_shape()))
    num_actions = env.action_spec()["num_actions"]
    torch.manual_seed(0)
    agents = [
        policy_gradient.PolicyGradient(
            player_id=p,
            info_state_size=size,
            num_actions=num_actions,
            loss_str="a2c",
            hidden_layers_sizes=[32],
            batch_size=1,
            num_critic_before_pi=1,
        )
        for p in range(env.num_players)
    ]
    before = [p.detach().clone() for p in agents[0]._policy_logits_layer.parameters()]
    for _ in range(2):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            assert output.action in time_step.observations["legal_actions"][player]
            time_step = env.step([output.action])
        for agent in agents:
            agent.step(time_step)
    critic_loss, pi_loss = agents[0].loss
    assert np.isfinite(critic_loss.item()) and np.isfinite(pi_loss.item())
    after = list(agents[0]._policy_logits_layer.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))


def test_dqn_learns_through_rl_environment():
    """OpenSpiel's PyTorch DQN (it needs dm-tree, which the openspiel extra installs)."""
    pytest.importorskip("tree", reason="dm-tree comes with the openspiel extra")
    from open_spiel.python.pytorch import dqn

    name = next(iter(GAMES))
    env = rl_environment.Environment(bridge.load_game(name))
    env.seed(0)
    size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    agents = [
        dqn.DQN(
            player_id=p,
            state_representation_size=size,  # an int, despite the type hint
            num_actions=num_actions,
            hidden_layers_sizes=[32],
            batch_size=16,
            replay_buffer_capacity=500,
            learn_every=4,
            min_buffer_size_to_learn=32,
            seed=p,
        )
        for p in range(env.num_players)
    ]
    for _ in range(2):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            assert output.action in time_step.observations["legal_actions"][player]
            time_step = env.step([output.action])
        for agent in agents:
            agent.step(time_step)
    assert all(agent.loss is not None and np.isfinite(agent.loss) for agent in agents)


def test_mcts_pair_sets_up_both_searches_alike() -> None:
    game = bridge.load_game("mole_hill")
    ours, theirs = bridge.mcts_pair(game, 12, seed=7, solve=False)
    assert isinstance(ours.agent, MCTSAgent) and ours.seed == 7
    assert (ours.agent.n_simulations, ours.agent.exploration, ours.agent.solve) == (12, 1.4, False)
    assert isinstance(theirs, mcts.MCTSBot)
    assert (theirs.max_simulations, theirs.uct_c, theirs.solve) == (12, 1.4, True)
    # seeded: the same seed gives OpenSpiel's bot the same move
    state = game.new_initial_state()
    moves = {bridge.mcts_pair(game, 12, seed=7)[1].step(state.clone()) for _ in range(3)}
    assert len(moves) == 1
