"""AlphaZero-style self-play training: PUCT self-play games, a replay buffer, a torch network.

Each iteration plays ``games_per_iteration`` games (:func:`~.self_play.play_self_play_games`)
and keeps each decision's planes, legal mask, policy target and seat-relative game value;
the network then takes ``updates_per_iteration`` Adam steps on the newest ``buffer_size``
decisions. Exported as a NumPy :class:`~tabletop_zoo.baselines.agents.numpy_net.DenseNet`
(``az:PATH``). Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.checks import check_seed
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.training import checkpoint
from tabletop_zoo.baselines.training.export import linear_pair
from tabletop_zoo.baselines.training.self_play import load_opponent, play_self_play_games
from tabletop_zoo.envs._files import check_output_file
from tabletop_zoo.envs.errors import InvalidOptionError, as_integer
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import get_spec, new_game


@dataclass
class AlphaZeroConfig:
    """Settings of an AlphaZero-style run (defaults: a small run of a few CPU-minutes)."""

    game: str
    num_players: int | None = None
    out: str = "runs/alphazero.npz"
    seed: int = 0
    iterations: int = 20
    max_seconds: float | None = None  # stop after the iteration that passes this budget
    checkpoint_seconds: float | None = None  # also keep a copy every this many CPU seconds
    games_per_iteration: int = 8
    parallel_games: int = 64  # self-play games searched together (at most games_per_iteration)
    leaves_per_game: int = 1  # new leaves a self-play game adds per step (virtual loss if > 1)
    num_simulations: int = 32
    search_batch: int = 8  # leaves per network call of a one-game search (not self-play)
    c_puct: float = 1.5
    dirichlet_alpha: float = 0.3
    temperature_moves: int = 10
    gumbel: bool = False  # self-play root: Gumbel sequential halving (PUCTSearch.run_gumbel)
    gumbel_considered: int = 16  # root actions the Gumbel search considers
    max_moves: int = 500  # a self-play game ends here, scored as it stands (env truncation)
    score_weight: float = 0.0  # share of tanh(score margin / score_scale) in the game value
    score_scale: float = 5.0
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    train_batch: int = 256
    updates_per_iteration: int = 40
    buffer_size: int = 50_000
    game_options: dict[str, Any] = field(default_factory=dict)
    opponent: str | None = None  # a fixed policy network in some games (ref:NAME or a file)
    opponent_share: float = 0.25  # of the self-play games, when ``opponent`` is set
    overwrite: bool = False  # replace an existing ``out`` (refused otherwise)

    def check(self) -> AlphaZeroConfig:
        """A copy with the player count filled in; ``InvalidOptionError`` on bad values or
        an existing ``out`` without ``overwrite``."""
        spec = get_spec(self.game)
        if Path(self.out).exists() and not self.overwrite:
            raise InvalidOptionError(
                f"{self.out!r} already exists: pick another output file or pass "
                "overwrite=True (--overwrite) to replace it"
            )
        players = spec.default_players if self.num_players is None else self.num_players
        if players not in spec.players:
            raise InvalidOptionError(f"num_players must be one of {spec.players}, got {players}")
        positive = "iterations games_per_iteration num_simulations search_batch parallel_games "
        positive += "leaves_per_game max_moves gumbel_considered train_batch "
        for key in (positive + "updates_per_iteration buffer_size").split():
            if getattr(self, key) < 1:
                raise InvalidOptionError(f"{key} must be >= 1, got {getattr(self, key)}")
        if self.checkpoint_seconds is not None and self.checkpoint_seconds <= 0:
            raise InvalidOptionError(
                f"checkpoint_seconds must be > 0 (or None: no checkpoints), got "
                f"{self.checkpoint_seconds}"
            )
        if not 0.0 <= self.score_weight <= 1.0:
            raise InvalidOptionError(f"score_weight must be in [0, 1], got {self.score_weight}")
        if not self.score_scale > 0:
            raise InvalidOptionError(f"score_scale must be > 0, got {self.score_scale}")
        if not self.hidden or min(self.hidden) < 1:
            raise InvalidOptionError(f"hidden must be layer sizes >= 1, got {self.hidden}")
        self._check_numbers()
        check_seed(self.seed, "seed")
        check_game_options(self.game, players, self.game_options)
        check_output_file(self.out, (".npz",))
        checked = dataclasses.replace(self, num_players=players)
        checked.load_opponent()  # a bad opponent file: refused before training
        return checked

    def load_opponent(self) -> DenseNet | None:
        """The fixed self-play opponent's network (None without ``opponent``), checked
        against the game (:func:`~.self_play.load_opponent`)."""
        if self.opponent is None:
            return None
        game, shape = self.new_game()
        return load_opponent(self.opponent, self.game, self.num_players, shape, game.num_actions)

    def new_game(self) -> tuple[Any, tuple[int, ...]]:
        """A rules game of these settings and the shape of its observation planes."""
        game = new_game(self.game, self.num_players, **self.game_options)
        return game, tuple(get_spec(self.game).make_observation_encoder(game).shape)

    def _check_numbers(self) -> None:
        """The float settings: finite, in range (nan and inf refused)."""
        for key in "learning_rate weight_decay c_puct dirichlet_alpha opponent_share".split():
            value, sign = getattr(self, key), ">=" if key == "weight_decay" else ">"
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            finite = number and math.isfinite(value)
            if not (finite and (value >= 0 if sign == ">=" else value > 0)):
                raise InvalidOptionError(f"{key} must be a finite number {sign} 0.0, got {value!r}")
        if self.opponent_share > 1:
            raise InvalidOptionError(f"opponent_share must be <= 1, got {self.opponent_share}")
        if as_integer(self.temperature_moves) is None or self.temperature_moves < 0:
            raise InvalidOptionError(
                f"temperature_moves must be an integer >= 0, got {self.temperature_moves!r}"
            )
        if self.max_seconds is not None and not (
            math.isfinite(self.max_seconds) and self.max_seconds > 0
        ):
            raise InvalidOptionError(
                f"max_seconds must be > 0 (or None: no budget), got {self.max_seconds}"
            )


def check_game_options(game: str, num_players: int, options: dict[str, Any]) -> None:
    """``InvalidOptionError`` unless ``options`` are rules options ``game`` accepts with
    ``num_players`` (unknown names listed with the known ones; values checked by the game)."""
    game_class = get_spec(game).game_class()
    known = [
        name
        for name, parameter in inspect.signature(game_class).parameters.items()
        if name != "num_players"
        and parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InvalidOptionError(
            f"unknown game option {unknown[0]!r}; {get_spec(game).title} takes "
            f"{', '.join(known) or 'none'}"
        )
    new_game(game, num_players, **options)  # the game checks the values


@dataclass
class AlphaZeroResult:
    """What :func:`train_alphazero` produced."""

    config: AlphaZeroConfig
    path: Path
    games: int
    decisions: int
    seconds: float
    log: list[dict[str, float]]


class _Network:
    """The torch twin of :class:`DenseNet` (ReLU trunk, policy and value heads)."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], actions: int, players: int):
        from torch import nn

        sizes = [inputs, *hidden]
        pairs = zip(sizes, sizes[1:], strict=False)
        self.trunk = nn.Sequential(*(m for a, b in pairs for m in (nn.Linear(a, b), nn.ReLU())))
        self.policy = nn.Linear(sizes[-1], actions)
        self.value = nn.Linear(sizes[-1], players)
        self.modules = nn.ModuleList([self.trunk, self.policy, self.value])

    def __call__(self, planes: Any) -> tuple[Any, Any]:
        x = self.trunk(planes.reshape(planes.shape[0], -1))
        return self.policy(x), self.value(x)

    def export(self, meta: dict[str, Any]) -> DenseNet:
        """The network as a :class:`DenseNet` (weights transposed to ``(inputs, outputs)``)."""
        trunk = [linear_pair(m.weight, m.bias) for m in self.trunk if hasattr(m, "weight")]
        heads = {"policy": self.policy, "value": self.value}
        heads = {name: linear_pair(m.weight, m.bias) for name, m in heads.items()}
        return DenseNet(trunk, heads, "relu", meta)


def train_alphazero(
    config: AlphaZeroConfig,
    log: Callable[[str], Any] = print,
    checkpoint_every: float = checkpoint.DEFAULT_EVERY,
    resume: dict | None = None,
) -> AlphaZeroResult:
    """Run self-play training as configured; write the network to ``config.out``
    (``checkpoint_every``, ``resume``: :mod:`.checkpoint`, ending as an uninterrupted run).
    Subnormal floats are flushed to zero meanwhile (torch and NumPy in this thread; the
    caller's mode restored after): weight decay shrinks the weights of never-legal actions
    and always-zero inputs into the subnormal range within about 2,000 updates, where every
    matrix product with them is 11-16x slower."""
    require_extra("train", "AlphaZero training", ("torch",))
    import torch

    was_flushing = float(np.float32(1e-40) * np.float32(1.0)) == 0.0  # the caller's mode
    torch.set_flush_denormal(True)
    try:
        return _train(config.check(), log, checkpoint_every, resume)
    finally:
        torch.set_flush_denormal(was_flushing)


def network_meta(cfg: AlphaZeroConfig, shape: tuple[int, ...], num_actions: int) -> dict:
    """What a network file of ``cfg``'s game says about itself (kind, game, seats, input
    shape, actions), the part shared by trained and untrained networks."""
    return {
        "kind": "alphazero",
        "game": cfg.game,
        "num_players": cfg.num_players,
        "observation_shape": list(shape),
        "num_actions": int(num_actions),
    }


def random_network(cfg: AlphaZeroConfig, seed: int = 0) -> DenseNet:
    """An untrained AlphaZero network of ``cfg``'s game and layer sizes (He-normal
    weights from ``seed``), as the first iteration of a run searches with."""
    rng = np.random.default_rng(seed)
    game, shape = cfg.new_game()
    sizes = [int(np.prod(shape)), *cfg.hidden]

    def layer(inputs: int, outputs: int) -> tuple[np.ndarray, np.ndarray]:
        weight = rng.normal(0.0, np.sqrt(2.0 / inputs), (inputs, outputs)).astype(np.float32)
        return weight, np.zeros(outputs, dtype=np.float32)

    trunk = [layer(a, b) for a, b in zip(sizes, sizes[1:], strict=False)]
    outputs = {"policy": game.num_actions, "value": cfg.num_players}
    heads = {name: layer(sizes[-1], n) for name, n in outputs.items()}
    return DenseNet(trunk, heads, "relu", network_meta(cfg, shape, game.num_actions))


def _train(
    cfg: AlphaZeroConfig, log: Callable[[str], Any], every: float, resume: dict | None
) -> AlphaZeroResult:
    """The training loop of :func:`train_alphazero` (``cfg`` checked)."""
    import torch

    torch.manual_seed(cfg.seed)
    limit_threads()  # one torch / BLAS thread (TABLETOP_ZOO_THREADS asks for more)
    rng = np.random.default_rng(cfg.seed)
    game, shape = cfg.new_game()
    config = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("out", "overwrite")}
    meta = {**network_meta(cfg, shape, game.num_actions), "config": config}
    network = _Network(int(np.prod(shape)), cfg.hidden, game.num_actions, cfg.num_players)
    # fused: the same digits on Intel and AMD (reproducible.ADAM)
    adam = {"lr": cfg.learning_rate, "weight_decay": cfg.weight_decay, "fused": True}
    optimizer = torch.optim.Adam(network.modules.parameters(), **adam)
    buffer: deque = deque(maxlen=cfg.buffer_size)
    opponent = cfg.load_opponent()
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    checkpoints = checkpoint.Checkpoints(out, "train-alphazero", every, bool(resume))
    parts = {"network": network.modules, "optimizer": optimizer}
    counters = (0, 0, 0, [], 0.0, cfg.checkpoint_seconds)  # done, games, ..., next copy
    if resume is not None:  # a checkpoint's state: go on as if never stopped
        run = checkpoint.restore(resume, parts)
        rng.bit_generator.state = run["generator"]
        buffer.extend(zip(*run["buffer"], strict=True))
        counters = run["counters"]
        log(json.dumps({"resumed_after_iteration": counters[0], "games": counters[1]}))
    done, games, decisions, history, spent, next_checkpoint = counters
    start = time.process_time() - spent
    for iteration in range(done + 1, cfg.iterations + 1):
        if checkpoints.due():  # the state before this iteration, the replay buffer with it
            counters = (iteration - 1, games, decisions, history, time.process_time() - start)
            columns = [np.stack(column) for column in zip(*buffer, strict=True)]
            checkpoints.save(
                dataclasses.asdict(cfg),
                checkpoint.capture(
                    parts,
                    generator=rng.bit_generator.state,
                    buffer=columns,
                    counters=(*counters, next_checkpoint),
                ),
            )
        records, played = play_self_play_games(
            network.export(meta), cfg, cfg.games_per_iteration, rng, opponent=opponent
        )
        buffer.extend(records)
        games += played.games
        decisions += played.decisions
        policy_loss, value_loss = _update(network, optimizer, buffer, rng, cfg)
        seconds = time.process_time() - start
        row = {"iteration": iteration, "games": games, "decisions": decisions}
        row.update({"policy_loss": float(policy_loss), "value_loss": float(value_loss)})
        row["cpu_seconds"] = round(seconds, 1)
        row |= {"resumed": 1} if resume is not None and iteration == done + 1 else {}  # marks it
        history.append(row)
        log(json.dumps(row))
        network.export(meta).save(out)
        if next_checkpoint is not None and seconds >= next_checkpoint:
            copy = out.with_name(f"{out.stem}_cpu{int(seconds):05d}s.npz")  # CPU-s so far
            network.export({**meta, "history": list(history)}).save(copy)
            next_checkpoint += cfg.checkpoint_seconds
        if cfg.max_seconds is not None and seconds >= cfg.max_seconds:
            break
    meta["history"] = history
    network.export(meta).save(out)
    checkpoints.remove()
    return AlphaZeroResult(cfg, out, games, decisions, time.process_time() - start, history)


def _update(network: _Network, optimizer: Any, buffer: deque, rng: Any, cfg: Any) -> np.ndarray:
    """``updates_per_iteration`` Adam steps on batches of ``buffer``; the mean losses."""
    import torch

    losses = []
    for _ in range(cfg.updates_per_iteration):
        picked = rng.integers(len(buffer), size=min(cfg.train_batch, len(buffer)))
        planes, masks, targets, values = (
            np.stack(x) for x in zip(*(buffer[i] for i in picked), strict=True)
        )
        logits, value = network(torch.from_numpy(planes))
        logits = logits.masked_fill(~torch.from_numpy(masks), -1e9)
        policy_loss = -(torch.from_numpy(targets).float() * logits.log_softmax(-1)).sum(-1)
        value_loss = ((value.tanh() - torch.from_numpy(values)) ** 2).mean(-1)
        loss = (policy_loss + value_loss).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        checkpoint.check_finite("an AlphaZero update", loss)
        losses.append((policy_loss.mean().item(), value_loss.mean().item()))
    checkpoint.check_finite("an AlphaZero update", *network.modules.parameters())  # before a save
    return np.mean(losses, axis=0)
