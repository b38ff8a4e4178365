"""The AlphaZero-style agent (``az:PATH``, ``az:PATH:SIMS``): PUCT search guided by a small
policy/value network (:class:`~.numpy_net.DenseNet`, heads ``policy`` and ``value``) that
reads the planes of the seat to act (``GameSpec.make_observation_encoder``). Value output
``k`` is the expected result of seat ``(current + k) % n``, so one network plays every seat.
Playing needs NumPy only; training (:mod:`tabletop_zoo.baselines.training.alphazero`) torch.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.numpy_net import DenseNet, segment_softmax
from tabletop_zoo.baselines.agents.positions import Leaves
from tabletop_zoo.baselines.agents.puct import PUCTSearch
from tabletop_zoo.baselines.agents.search import legal_from_mask
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.envs._json import short
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError, as_integer
from tabletop_zoo.envs.registry import GAMES, fast_state
from tabletop_zoo.envs.results import final_result, score_margins

DEFAULT_SIMULATIONS = 64


def absolute_values(relative: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Network values (row ``i`` relative to the seat to act, ``seats[i]``: output ``k`` is
    seat ``(seats[i] + k) % n``'s) in absolute seat order, float64."""
    k, n = relative.shape
    values = np.zeros((k, n))
    values[np.arange(k)[:, None], (seats[:, None] + np.arange(n)) % n] = relative
    return values


def game_values(state: Any, score_weight: float = 0.0, score_scale: float = 5.0) -> np.ndarray:
    """Value of every seat (absolute order, in ``[-1, 1]``) of a finished or cut game:
    ``(1 - score_weight) * result + score_weight * tanh(margin / score_scale)``, the result
    as the envs score the game (:func:`~tabletop_zoo.envs.results.final_result`) and the
    margin each seat's score minus the best other. A weight tells a narrow win from a wide
    one and a draw from a near-win (many Mole Hill games between good players are drawn);
    a network trained with one (``meta["config"]``) searches with the same values."""
    returns, scores = final_result(state)
    result = np.asarray(returns, np.float64)
    if not score_weight:
        return result
    margin = np.tanh(np.asarray(score_margins(scores), np.float64) / score_scale)
    return (1.0 - score_weight) * result + score_weight * margin


def model_shape(meta: dict[str, Any]) -> SimpleNamespace:
    """What :func:`~.checks.check_agent_fits` reads of a model: observation shape and
    number of actions (so a network for another game or player count is refused)."""
    return SimpleNamespace(
        observation_space=SimpleNamespace(shape=tuple(meta["observation_shape"])),
        action_space=SimpleNamespace(n=int(meta["num_actions"])),
    )


def check_network_meta(net: DenseNet, label: str) -> None:
    """Raise :class:`~tabletop_zoo.envs.errors.ModelFileError` (naming ``label``) unless
    ``net`` is an AlphaZero network of a known game: kind, game, player count, observation
    shape and number of actions in its ``meta``, and heads of the matching widths."""
    meta = net.meta

    def bad(reason: str) -> ModelFileError:
        return ModelFileError(f"{label}: not an AlphaZero network of ours ({reason})")

    if meta.get("kind") != "alphazero":
        raise bad(f"kind {short(meta.get('kind'), 40)}")
    game = meta.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise bad(f"game {short(game, 40)}; known: {', '.join(sorted(GAMES))}")
    players, actions = as_integer(meta.get("num_players")), as_integer(meta.get("num_actions"))
    if players not in GAMES[game].players:
        raise bad(f"num_players {short(meta.get('num_players'), 40)}")
    shape = meta.get("observation_shape")
    if not (isinstance(shape, list) and shape and all((as_integer(x) or 0) > 0 for x in shape)):
        raise bad(f"observation_shape {short(shape, 40)}")
    if actions is None or actions < 1:
        raise bad(f"num_actions {short(meta.get('num_actions'), 40)}")
    if set(net.heads) != {"policy", "value"}:
        raise bad(f"heads {sorted(net.heads)}, expected policy and value")
    mismatch = net.layer_mismatch()
    if mismatch:
        raise bad(mismatch)
    if net.heads["value"][0].shape[1] != players:
        raise bad(f"its value head gives {net.heads['value'][0].shape[1]} values, not {players}")
    config = meta.get("config", {})
    if not isinstance(config, dict):
        raise bad("'config' is not an object")
    weight, scale = config.get("score_weight", 0.0), config.get("score_scale", 5.0)
    for key, value in (("score_weight", weight), ("score_scale", scale)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad(f"config {key} {short(value, 40)}")
    if not (0.0 <= weight <= 1.0 and scale > 0):
        raise bad(f"config score_weight {weight}, score_scale {scale}")


class NetworkEvaluator:
    """The search's :data:`~.puct.Evaluator` of a policy/value network: one forward pass
    over the planes of a batch of positions; the priors a softmax over each position's
    legal actions, the values in absolute seat order (what the search backs up)."""

    def __init__(self, net: DenseNet) -> None:
        self.net = net
        self.shape = tuple(net.meta["observation_shape"]), int(net.meta["num_actions"])

    def __call__(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        """The priors (end to end, as ``leaves.actions``) and every seat's value of each
        position of ``leaves``."""
        planes = leaves.planes()
        found = planes.shape[1:], leaves.positions.game.num_actions
        if found != self.shape:
            raise InvalidOptionError(
                f"this network was trained for observations {self.shape[0]} with "
                f"{self.shape[1]} actions, but the game has {found[0]} and {found[1]}: use "
                "a network trained on the same game and number of players"
            )
        logits, heads = self.net.forward_flat(planes, leaves.actions, leaves.starts)
        values = absolute_values(np.tanh(heads["value"]), leaves.players)
        return segment_softmax(logits, leaves.starts), values


class AlphaZeroAgent:
    """PUCT search (:class:`~.puct.PUCTSearch`'s settings) with a policy/value network (a
    :class:`~.numpy_net.DenseNet` or its ``.npz`` path); plays the most visited action.
    ``seed`` seeds the search's generator (its play draws nothing from it); ``fast``: search
    on the compiled engine's copy of the state when available (the same moves, faster)."""

    reads_observation = False  # it encodes the searched positions itself

    def __init__(
        self,
        net_or_path: DenseNet | str | Path,
        num_simulations: int = DEFAULT_SIMULATIONS,
        c_puct: float = 1.5,
        batch_size: int = 8,
        seed: int | None = None,
        name: str | None = None,
        fast: bool = True,
    ) -> None:
        if isinstance(net_or_path, DenseNet):
            net, default_name, label = net_or_path, "az", name or "az"
        else:
            net, default_name = DenseNet.load(net_or_path), f"az:{Path(net_or_path).stem}"
            label = repr(str(net_or_path))
        check_network_meta(net, label)
        if int(num_simulations) < 1:
            raise InvalidOptionError(f"num_simulations must be >= 1, got {num_simulations!r}")
        self.net = net
        self.model = model_shape(net.meta)
        self.evaluator = NetworkEvaluator(net)
        self.num_simulations = int(num_simulations)
        trained = net.meta.get("config", {})
        weight, scale = trained.get("score_weight", 0.0), trained.get("score_scale", 5.0)
        self.search = PUCTSearch(
            self.evaluator, self.num_simulations, c_puct, batch_size, seed=seed
        )
        if weight:  # finished games valued as in training
            self.search.terminal_value = lambda state: game_values(state, weight, scale)
        self.name = name or default_name
        self.fast = fast
        self.keep_analysis = False  # True: act() keeps its root's numbers in last_analysis
        self.last_analysis: dict[str, Any] | None = None
        limit_threads()  # a small network: one BLAS thread (TABLETOP_ZOO_THREADS)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the search's generator."""
        if seed is not None:
            self.search.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any) -> int:
        """Search from ``state`` and return the most visited legal action."""
        legal = legal_from_mask(action_mask)
        if legal.size == 1:
            return int(legal[0])
        compiled = fast_state(state) if self.fast else None
        root = self.search.run(state if compiled is None else compiled)
        if self.keep_analysis:
            self.last_analysis = {
                "actions": root.actions,
                "visits": root.child_visits.tolist(),
                "priors": root.priors.tolist(),
                "value": float(root.value_sum[root.player] / max(1.0, root.visits)),
            }
        return root.final_move()
