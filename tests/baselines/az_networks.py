"""Small AlphaZero networks for the tests (``DenseNet`` with random weights, no training),
and a plain masked softmax to check the package's samplers against."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig
from tabletop_zoo.envs.registry import get_spec, new_game


def small_network(
    game: str,
    players: int,
    trunk: int = 0,
    scale: float = 0.05,
    value_scale: float = 0.0,
    value_bias: list[float] | None = None,
    seed: int = 0,
    config: dict[str, Any] | None = None,
) -> DenseNet:
    """A network of ``game`` at ``players`` seats: an optional ReLU layer of ``trunk``
    units and a policy head with normal(0, ``scale``) weights; a value head with
    normal(0, ``value_scale``) weights (zeros when 0: the value is ``value_bias`` in every
    position) and ``value_bias`` (zeros by default). Weights drawn in that order from
    ``default_rng(seed)``; ``config`` goes into the meta (e.g. a score weight)."""
    g = new_game(game, players)
    shape = get_spec(game).make_observation_encoder(g).shape
    inputs = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, scale, (inputs, trunk)), np.zeros(trunk))] if trunk else []
    width = trunk or inputs
    policy = (rng.normal(0, scale, (width, g.num_actions)), np.zeros(g.num_actions))
    value_weight = (
        rng.normal(0, value_scale, (width, players)) if value_scale else np.zeros((width, players))
    )
    bias = np.zeros(players) if value_bias is None else np.asarray(value_bias, dtype=float)
    meta = {
        "kind": "alphazero",
        "game": game,
        "num_players": players,
        "observation_shape": list(shape),
        "num_actions": g.num_actions,
    }
    if config is not None:
        meta["config"] = config
    return DenseNet(layers, {"policy": policy, "value": (value_weight, bias)}, "relu", meta)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of ``logits`` over the entries where ``mask`` is true (others get 0): the
    textbook form, written apart from the package's segment softmax."""
    masked = np.where(mask, logits, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    weights = np.where(mask, np.exp(masked - top), 0.0)
    return weights / weights.sum(axis=-1, keepdims=True)


def self_play_config(tmp_path: Any, game: str, players: int, **changes: Any) -> AlphaZeroConfig:
    """A checked AlphaZero config of a few tiny self-play games (network file in
    ``tmp_path``), with ``changes`` to its fields."""
    settings = dict(game=game, num_players=players, out=str(tmp_path / "net.npz"),
                    parallel_games=3, num_simulations=4, hidden=(16,), max_moves=30,
                    temperature_moves=4, iterations=2, games_per_iteration=4,
                    updates_per_iteration=2, train_batch=16)  # fmt: skip
    settings.update(changes)
    return AlphaZeroConfig(**settings).check()
