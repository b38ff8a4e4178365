"""Batched self-play (many games in lockstep, one network call per step): the same games
and the same trained network with and without the compiled engine."""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest

from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.agents.tree import Forest, kernels
from tabletop_zoo.baselines.training.alphazero import random_network
from tabletop_zoo.baselines.training.self_play import _SelfPlay, play_self_play_games
from tabletop_zoo.envs import registry
from tests.baselines.az_networks import self_play_config

needs_fast = pytest.mark.skipif(
    not registry.fast_path_available(), reason="the 'fast' extra (numba) is missing"
)


def _as_bytes(records) -> list[bytes]:
    return [b"|".join(np.ascontiguousarray(part).tobytes() for part in r) for r in records]


@pytest.mark.slow
@needs_fast
@pytest.mark.parametrize(
    ("game", "players", "changes"),
    [
        ("mole_hill", 2, {}),
        ("arktia", 2, {"score_weight": 0.5}),
        pytest.param("arktia", 3, {"gumbel": True}, marks=pytest.mark.slow),  # trees grow
        ("arktia", 2, {"leaves_per_game": 4}),
        ("mole_hill", 2, {"gumbel": True, "leaves_per_game": 3}),
    ],
)
def test_the_compiled_and_the_python_path_play_the_same_games(tmp_path, game, players, changes):
    cfg = self_play_config(tmp_path, game, players, **changes)
    net = random_network(cfg, seed=1)
    seen = {}
    for fast in (True, False):
        rng = np.random.default_rng(5)
        records, stats = play_self_play_games(net, cfg, 4, rng, fast=fast)
        assert stats.engine == ("compiled" if fast else "python")
        seen[fast] = (_as_bytes(records), dataclasses.replace(stats, engine=""), rng.random())
    assert seen[True] == seen[False]
    assert seen[True][1].games == 4 and seen[True][1].decisions == len(seen[True][0]) > 0


def test_self_play_records_are_targets_over_the_legal_actions(tmp_path) -> None:
    cfg = self_play_config(tmp_path, "mole_hill", 2)
    records, stats = play_self_play_games(random_network(cfg), cfg, 4, np.random.default_rng(0))
    assert stats.games == 4 and stats.evaluations > len(records) > 0
    assert stats.steps * cfg.parallel_games >= stats.evaluations  # one leaf per game per step
    for planes, mask, target, value in records:
        assert planes.dtype == np.float32 and mask.dtype == bool and value.dtype == np.float32
        assert target.sum() == pytest.approx(1.0) and not target[~mask].any()
        assert mask.sum() > 1  # a forced move is played without a search or a record
        assert value.shape == (2,) and value.tolist() in ([1, -1], [-1, 1], [0, 0])


@pytest.mark.slow
@pytest.mark.parametrize("fast", [pytest.param(True, marks=needs_fast), False])
def test_self_play_leaves_no_reference_cycle_holding_its_trees(tmp_path, fast) -> None:
    # A cycle (the positions holding a bound method of the loop) kept every call's trees
    # and positions alive until the cyclic collector ran, which in training was rarely:
    # the process grew by gigabytes. Without the collector, nothing of a call may remain.
    cfg = self_play_config(tmp_path, "mole_hill", 2)
    net = random_network(cfg)
    gc.collect()
    gc.disable()
    try:
        play_self_play_games(net, cfg, 2, np.random.default_rng(0), fast=fast)
        left = [o for o in gc.get_objects() if type(o) in (Forest, _SelfPlay)]
    finally:
        gc.enable()
    assert left == []


@needs_fast
@pytest.mark.slow
def test_training_gives_the_same_network_with_and_without_numba(tmp_path, monkeypatch):
    """The switch TABLETOP_ZOO_FAST=0 changes the speed of a training run, not its result."""
    pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import train_alphazero

    nets = []
    for switch in ("1", "0"):
        monkeypatch.setenv(registry.FAST_SWITCH, switch)
        out = str(tmp_path / f"net{switch}.npz")
        cfg = self_play_config(
            tmp_path, "mole_hill", 2, out=out, games_per_iteration=3, max_moves=20
        )
        result = train_alphazero(cfg, log=lambda _: None)
        assert result.games == 6
        nets.append(DenseNet.load(result.path))
    fast, python = nets
    for (w1, b1), (w2, b2) in zip(fast.trunk, python.trunk, strict=True):
        assert w1.tobytes() == w2.tobytes() and b1.tobytes() == b2.tobytes()
    for name in ("policy", "value"):
        pairs = zip(fast.heads[name], python.heads[name], strict=True)
        assert all(a.tobytes() == b.tobytes() for a, b in pairs)

    def without_time(meta):
        history = [{k: v for k, v in row.items() if k != "cpu_seconds"} for row in meta["history"]]
        return {**meta, "history": history}

    assert without_time(fast.meta) == without_time(python.meta)


def test_parallel_games_is_checked_and_capped_by_the_games_to_play(tmp_path) -> None:
    from tabletop_zoo.envs.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match="parallel_games must be >= 1"):
        self_play_config(tmp_path, "mole_hill", 2, parallel_games=0)
    cfg = self_play_config(tmp_path, "mole_hill", 2, parallel_games=64, max_moves=4)
    _, stats = play_self_play_games(random_network(cfg), cfg, 2, np.random.default_rng(0))
    assert stats.games == 2 and stats.evaluations <= 2 * stats.steps  # two games at once


@pytest.mark.slow
def test_several_leaves_per_step_spend_exactly_the_simulations(tmp_path) -> None:
    """With a virtual loss, a game adds up to ``leaves_per_game`` leaves per step, in fewer
    steps; every search still spends its simulations and leaves no virtual loss behind."""
    from tabletop_zoo.baselines.training.self_play import _SelfPlay

    steps = {}
    for leaves in (1, 4):
        cfg = self_play_config(tmp_path, "mole_hill", 2, num_simulations=8, leaves_per_game=leaves)
        run = _SelfPlay(random_network(cfg), cfg, 4, np.random.default_rng(0), compiled=False)
        records, stats = run.run()
        steps[leaves] = stats.steps
        for _, mask, target, _ in records:  # visit counts / simulations
            visits = target * cfg.num_simulations
            assert np.allclose(visits, np.round(visits)) and round(visits.sum()) == 8
            assert not visits[~mask].any()
        assert not run.trees.forest.edge_pending.any()
    assert steps[4] < steps[1] / 2


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_fast)])
def test_a_descent_onto_a_pending_leaf_is_a_collision_that_changes_nothing(compiled) -> None:

    forest, run = Forest(1, 2, 4, 4), kernels(compiled)
    slots, none = np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64)
    trees = forest.node_arrays(), forest.edge_arrays()
    counts = forest.node_count, forest.edge_count
    new = np.zeros(1, dtype=np.int64), np.zeros((1, 2)), np.array([0, 2]), np.array([3, 7])
    run.expand(*trees, counts, slots, none, *new, np.array([0.9, 0.1]))  # a root, two children

    def descend() -> tuple[int, int]:
        edges, actions = np.zeros((1, 4), dtype=np.int64), np.zeros((1, 4), dtype=np.int64)
        length, status = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        run.descend(*trees, slots, none, 1.5, edges, actions, length, status)
        return int(status[0]), int(actions[0, 0])

    assert descend() == (0, 3)  # the likely child, now pending
    assert forest.edge_pending[0, :2].tolist() == [1.0, 0.0]
    assert descend() == (0, 7)  # its virtual loss steers the next descent away
    before = [a.copy() for a in (*forest.node_arrays(), *forest.edge_arrays())]
    assert descend()[0] == 2  # both leaves pending: a collision
    after = (*forest.node_arrays(), *forest.edge_arrays())
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
