"""A fixed opponent in some of the self-play games: a frozen policy network.

AlphaZero self-play meets only itself, so a network can keep a hole that one fixed
opponent walks into every time (networks that beat MCTS lost to a deterministic PPO
reference along a few lines: docs/results.md). With ``AlphaZeroConfig(opponent=...,
opponent_share=p)`` each self-play game, with probability ``p``, seats this opponent in
one seat (drawn uniformly); the opponent plays its policy's most probable legal action
at that seat (the observation planes the search reads), the other seats search as in any
self-play game. Only the searched decisions are recorded; their value targets are the
outcomes of those games. The opponent acts on all its waiting games in one network call.

The opponent is a policy network file of the game and player count: ``ref:NAME``, a
shipped reference model (its file hash checked), or the path of a network file
(``.npz``, as :mod:`~tabletop_zoo.baselines.training.export` writes for a PPO model, or an
AlphaZero network, whose policy head then plays without search).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet, legal_action
from tabletop_zoo.baselines.agents.reference import reference_path
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError

__all__ = ["load_opponent", "opponent_actions"]


def load_opponent(
    spec: str, game: str, num_players: int, shape: tuple[int, ...], num_actions: int
) -> DenseNet:
    """The network of opponent ``spec`` (``ref:NAME`` or a network file), checked to be a
    policy of ``game`` with ``num_players`` reading planes of ``shape``;
    :class:`~tabletop_zoo.envs.errors.InvalidOptionError` (or its ``ModelFileError``)
    otherwise."""
    path = reference_path(spec[4:]) if spec.startswith("ref:") else Path(spec)
    net = DenseNet.load(path)
    meta, label = net.meta, f"opponent {spec!r}"
    if "policy" not in net.heads:
        raise InvalidOptionError(f"{label}: the network has no policy head")
    found = (meta.get("game"), meta.get("num_players"), meta.get("num_actions"))
    if found != (game, num_players, num_actions):
        raise InvalidOptionError(
            f"{label} is a network of {found[0]!r} with {found[1]} players and {found[2]} "
            f"actions, not of {game!r} with {num_players} players and {num_actions} actions"
        )
    if tuple(meta.get("observation_shape", ())) != tuple(shape):
        raise InvalidOptionError(
            f"{label} reads observations of shape {meta.get('observation_shape')}, "
            f"the game's are {list(shape)}"
        )
    mismatch = net.layer_mismatch()
    if mismatch:
        raise ModelFileError(f"{label}: {mismatch}")
    return net


def opponent_actions(net: DenseNet, planes: np.ndarray, masks: np.ndarray) -> list[int]:
    """The opponent's move in each position (``planes`` of the seat to act, legal
    ``masks``): the legal action with the largest logit, all rows in one network call."""
    legal = [np.flatnonzero(mask) for mask in masks]
    logits, _ = net.forward_rows(planes, legal)
    return [legal_action(row, actions) for row, actions in zip(logits, legal, strict=True)]
