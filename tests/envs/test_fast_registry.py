"""The compiled engines as found through the registry: golden playthroughs replayed on
them byte for byte, and an import of ``tabletop_zoo.envs`` that stays free of numba."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_zoo.envs.playthrough import playthrough
from tabletop_zoo.envs.registry import GAMES, fast_path_available, get_spec, new_game

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
GOLDEN = [
    (spec.name, players, seed)
    for spec in GAMES.values()
    if spec.fast_engine is not None
    for players, seed in spec.golden_seeds
]


def test_importing_the_envs_loads_neither_numba_nor_torch() -> None:
    code = (
        "import sys, tabletop_zoo.envs, tabletop_zoo.envs.registry as r\n"
        "assert r.fast_path_available() in (True, False)\n"
        "bad = [m for m in ('numba', 'llvmlite', 'torch') if sys.modules.get(m) is not None]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_game_has_a_compiled_engine_entry() -> None:
    assert GOLDEN, "no game names a compiled engine"
    for spec in GAMES.values():
        assert spec.fast_engine is None or spec.fast_engine.count(":") == 1


@pytest.mark.skipif(not fast_path_available(), reason="the 'fast' extra (numba) is missing")
@pytest.mark.parametrize(("game", "players", "seed"), GOLDEN)
def test_golden_playthrough_replayed_on_the_compiled_engine(
    game: str, players: int, seed: int
) -> None:
    """The seeded random game of the golden file, played by the compiled engine (legal
    lists, moves, scores, returns) and printed through the Python state of each row."""
    spec = get_spec(game)
    engine = spec.fast_engine_class()(new_game(game, players))
    name = spec.golden_name(players, seed)
    got = playthrough(engine.new_initial_state(), seed, title=name)
    assert got == (GOLDEN_DIR / f"{name}.txt").read_text()


CONFIGS = [(spec.name, n) for spec in GAMES.values() if spec.fast_engine for n in spec.players]


@pytest.mark.slow
@pytest.mark.skipif(not fast_path_available(), reason="the 'fast' extra (numba) is missing")
@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_batched_planes_equal_the_games_encoder(game: str, players: int) -> None:
    """``observe`` of a batch == the game's observation encoder on each Python state."""
    import numpy as np

    from tabletop_zoo.envs.registry import fast_engine

    spec = get_spec(game)
    engine = fast_engine(game, players)
    encoder = spec.make_observation_encoder(engine.game)
    assert tuple(engine.observation_shape) == tuple(encoder.shape)
    states = engine.new_states(12, seed=1)
    engine.seed(1)
    rng = np.random.default_rng(1)
    for _ in range(40):
        seats = rng.integers(players, size=len(states))
        planes = engine.observe(states, seats)
        for i, row in enumerate(states):
            assert np.array_equal(planes[i], encoder.encode(engine.to_state(row), int(seats[i])))
        engine.step(states, engine.random_actions(states))


@pytest.mark.slow
@pytest.mark.skipif(not fast_path_available(), reason="the 'fast' extra (numba) is missing")
def test_warm_up_runs_every_compiled_entry_point() -> None:
    from tabletop_zoo.envs.compiled.warm_up import warm_up

    assert warm_up() >= 0.0


def test_without_numba_the_path_is_searched_once_per_process(monkeypatch) -> None:
    # Agents ask fast_path_available() on every call; where numba is not installed each
    # find_spec searched all of sys.path (about 5% of the quick start's learning time).
    import importlib.util

    from tabletop_zoo.envs import registry

    lookups = []

    def not_installed(name, *args):
        lookups.append(name)
        return None

    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", not_installed)
    registry._numba_installed.cache_clear()
    try:
        assert [fast_path_available() for _ in range(3)] == [False, False, False]
        assert lookups == ["numba"]
    finally:
        registry._numba_installed.cache_clear()
