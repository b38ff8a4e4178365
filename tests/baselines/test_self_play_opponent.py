"""A fixed opponent network in a share of the self-play games (``AlphaZeroConfig.opponent``):
it plays its most probable legal move at its seat, its moves are not recorded, the games are
the same on both engines, and a bad opponent is refused before training."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.training import self_play
from tabletop_zoo.baselines.training.alphazero import (
    AlphaZeroConfig,
    random_network,
    train_alphazero,
)
from tabletop_zoo.baselines.training.self_play import play_self_play_games
from tabletop_zoo.envs import registry
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tests.baselines.az_networks import self_play_config

needs_fast = pytest.mark.skipif(
    not registry.fast_path_available(), reason="the 'fast' extra (numba) is missing"
)


def _config(tmp_path, game: str = "mole_hill", players: int = 2, **changes) -> AlphaZeroConfig:
    return self_play_config(tmp_path, game, players, **changes)


def _opponent_file(tmp_path, game: str = "mole_hill", players: int = 2) -> str:
    """A policy network file of the game (an untrained AlphaZero network of other sizes)."""
    cfg = _config(tmp_path, game, players, hidden=(8,))
    path = tmp_path / f"opponent_{game}_{players}.npz"
    random_network(cfg, seed=7).save(path)
    return str(path)


def test_the_opponent_plays_its_most_probable_legal_move_and_is_not_recorded(
    tmp_path, monkeypatch
) -> None:
    opponent_path = _opponent_file(tmp_path)
    cfg = _config(tmp_path, opponent=opponent_path, opponent_share=1.0)
    asked, original = [], self_play.opponent_actions

    def spy(net, planes, masks):
        moves = original(net, planes, masks)
        asked.append((planes.copy(), masks.copy(), moves))
        return moves

    monkeypatch.setattr(self_play, "opponent_actions", spy)
    net = random_network(cfg, seed=1)
    records, stats = play_self_play_games(net, cfg, 4, np.random.default_rng(2), opponent=None)
    assert stats.opponent_moves == 0 and not asked  # no network given: pure self-play
    pure = len(records)

    loaded = cfg.load_opponent()
    records, stats = play_self_play_games(net, cfg, 4, np.random.default_rng(2), opponent=loaded)
    assert stats.games == 4 and stats.decisions == len(records)
    assert stats.opponent_moves == sum(len(moves) for _, _, moves in asked) > 0
    # every game of 2 seats has the opponent in one: about half the decisions are its own
    assert 0 < len(records) < pure
    # its move: the legal action of the largest logit, computed here by the other path
    reference = DenseNet.load(opponent_path)
    for planes, masks, moves in asked:
        logits = reference.forward(planes)["policy"]
        pairs = zip(logits, masks, strict=True)
        expected = [int(np.flatnonzero(m)[np.argmax(row[m])]) for row, m in pairs]
        assert moves == expected
        assert all(masks.sum(axis=1) > 1)  # a forced move needs no opponent


@pytest.mark.slow
@needs_fast
@pytest.mark.parametrize(("game", "players"), [("mole_hill", 2), ("arktia", 3)])
def test_games_with_an_opponent_are_the_same_on_both_engines(tmp_path, game, players) -> None:
    cfg = _config(tmp_path, game, players, opponent=_opponent_file(tmp_path, game, players),
                  opponent_share=0.5)  # fmt: skip
    net, opponent = random_network(cfg, seed=1), cfg.load_opponent()
    seen = {}
    for fast in (True, False):
        rng = np.random.default_rng(5)
        records, stats = play_self_play_games(net, cfg, 4, rng, fast=fast, opponent=opponent)
        parts = [b"|".join(np.ascontiguousarray(p).tobytes() for p in r) for r in records]
        seen[fast] = (parts, dataclasses.replace(stats, engine=""), rng.random())
    assert seen[True] == seen[False]
    assert seen[True][1].opponent_moves > 0


def test_training_with_an_opponent_records_it_in_the_network(tmp_path) -> None:
    opponent_path = _opponent_file(tmp_path)
    cfg = _config(tmp_path, opponent=opponent_path, opponent_share=0.5)
    result = train_alphazero(cfg, log=lambda line: None)
    meta = DenseNet.load(result.path).meta["config"]
    assert meta["opponent"] == opponent_path and meta["opponent_share"] == 0.5


@pytest.mark.parametrize(
    ("changes", "error", "words"),
    [
        ({"opponent": "ref:arktia-2p-ppo"}, InvalidOptionError, "not of 'mole_hill'"),
        ({"opponent": "ref:no-such-model"}, InvalidOptionError, "unknown reference model"),
        ({"opponent": "missing.npz"}, ModelFileError, "no network file"),
        ({"opponent": "ref:mole_hill-2p-ppo", "opponent_share": 0.0}, InvalidOptionError, "> 0"),
        ({"opponent": "ref:mole_hill-2p-ppo", "opponent_share": 1.5}, InvalidOptionError, "<= 1"),
    ],
)
def test_a_bad_opponent_is_refused_before_training(tmp_path, changes, error, words) -> None:
    with pytest.raises(error, match=words):
        _config(tmp_path, **changes)
    assert not (tmp_path / "net.npz").exists()


def test_an_opponent_whose_arrays_do_not_match_its_header_is_refused(tmp_path) -> None:
    # a header of the game over a policy head of 10 actions: refused when loaded, not
    # an IndexError deep in the first network call of training
    net = DenseNet.load(_opponent_file(tmp_path))
    weight, bias = net.heads["policy"]
    narrow = DenseNet(net.trunk, {"policy": (weight[:, :10], bias[:10])}, net.activation,
                      net.meta)  # fmt: skip
    narrow.save(tmp_path / "narrow.npz")
    with pytest.raises(ModelFileError, match=r"policy widths \(1008, 10\) do not match"):
        _config(tmp_path, opponent=str(tmp_path / "narrow.npz"))


def test_an_opponent_of_another_player_count_is_refused(tmp_path) -> None:
    path = _opponent_file(tmp_path, "arktia", 3)
    with pytest.raises(InvalidOptionError, match="with 3 players"):
        _config(tmp_path, "arktia", 2, opponent=path)
