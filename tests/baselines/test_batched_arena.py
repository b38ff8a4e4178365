"""The batched arena: games of a match played in lockstep on the compiled engine give the
records the serial path gives (same seeds, same games), and it steps aside where it cannot
play (``TABLETOP_ZOO_FAST=0``, ``TABLETOP_ZOO_BATCH=0``, agent objects, model agents,
options the compiled engine does not keep)."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines.agents import RandomAgent
from tabletop_zoo.baselines.evaluation import arena, batched
from tabletop_zoo.baselines.evaluation.matches import Seating, play_seatings
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import FAST_SWITCH, fast_path_available, new_game

pytestmark = pytest.mark.skipif(not fast_path_available(), reason="needs the fast extra")

SPECS = ["random", "greedy", "mcts:4"]


@pytest.fixture
def lockstep_games(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the games the batched arena plays (one entry per finished game); small
    batches so that finished games hand their rows to the next ones."""
    played: list[int] = []
    play = batched.LockstepGames.play

    def counting(self, games, reset_agents):
        for key, outcome in play(self, games, reset_agents):
            played.append(key)
            yield key, outcome

    monkeypatch.setattr(batched.LockstepGames, "play", counting)
    monkeypatch.setattr(batched, "SLOTS", 3)
    monkeypatch.setattr(arena, "_LOCKSTEP", {})
    return played


def both_ways(monkeypatch: pytest.MonkeyPatch, *args, **kwargs):
    """The records of a match on the serial path, then on the (possibly) batched path."""
    monkeypatch.setenv(batched.BATCH_SWITCH, "0")
    serial = play_seatings(*args, **kwargs)
    monkeypatch.delenv(batched.BATCH_SWITCH)
    return serial, play_seatings(*args, **kwargs)


def schedule(num_players: int, lineups: list[tuple[int, ...]], opening: int) -> list[Seating]:
    return [
        Seating(lineup, 500 + 7 * k, random_opening=opening if k % 2 else 0)
        for k, lineup in enumerate(lineups * 2)
    ]


@pytest.mark.parametrize(
    ("game", "num_players"), [("mole_hill", 2), ("arktia", 2), ("arktia", 3), ("arktia", 4)]
)
def test_batched_records_equal_serial_records(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int], game: str, num_players: int
) -> None:
    """Random, greedy and mixed line-ups (MCTS too), with and without random openings."""
    n = num_players
    lineups = [(0,) * n, (1,) * n, tuple(k % 2 for k in range(n)), tuple(k % 3 for k in range(n))]
    seatings = schedule(n, lineups, opening=3)
    serial, fast = both_ways(monkeypatch, game, n, SPECS, seatings)
    assert sorted(lockstep_games) == list(range(len(seatings)))  # every game was batched
    assert fast == serial
    assert {r.random_opening for r in fast} == {0, 3}


def test_truncated_games_are_scored_as_the_position_stands(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int]
) -> None:
    """A turn limit the compiled engine keeps: games cut where the env cuts them."""
    seatings = schedule(3, [(0, 0, 0), (1, 0, 1)], opening=2)
    serial, fast = both_ways(
        monkeypatch, "arktia", 3, SPECS, seatings, env_options={"max_turns": 3}
    )
    assert len(lockstep_games) == len(seatings)
    assert fast == serial
    assert all(r.steps < 20 for r in fast)  # cut after 3 turns: no game ends that soon


def test_agent_objects_and_model_agents_play_serially_in_schedule_order(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int]
) -> None:
    agents = ["random", "greedy", RandomAgent(seed=3)]
    seatings = [Seating((0, 1), 1), Seating((2, 1), 2), Seating((1, 0), 3), Seating((0, 2), 4)]
    serial, fast = both_ways(monkeypatch, "mole_hill", 2, agents, seatings, names=["r", "g", "o"])
    assert fast == serial
    assert sorted(lockstep_games) == [0, 2]  # the tasks holding the object played serially
    assert arena._spec_on_rows("ref:mole_hill-2p-ppo", False) == (False, False)
    assert arena._spec_on_rows("mcts:50", False) == (True, True)
    assert arena._spec_on_rows("random", False) == (True, False)


def test_options_the_compiled_engine_does_not_keep_fall_back(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int]
) -> None:
    """Mole Hill's compiled engine has no turn limit: with one, every game is serial."""
    seatings = schedule(2, [(0, 1)], opening=0)
    serial, fast = both_ways(
        monkeypatch, "mole_hill", 2, SPECS, seatings, env_options={"max_turns": 5}
    )
    assert fast == serial and lockstep_games == []
    assert all(r.steps == 5 for r in fast)


@pytest.mark.parametrize("switch", [FAST_SWITCH, batched.BATCH_SWITCH])
def test_the_switches_keep_the_serial_path(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int], switch: str
) -> None:
    seatings = schedule(2, [(0, 1)], opening=1)
    fast = play_seatings("arktia", 2, SPECS, seatings)
    assert len(lockstep_games) == len(seatings)
    monkeypatch.setenv(switch, "0")
    assert play_seatings("arktia", 2, SPECS, seatings) == fast
    assert len(lockstep_games) == len(seatings)  # no game more went through the batch
    monkeypatch.setenv(batched.BATCH_SWITCH, "yes")
    monkeypatch.delenv(FAST_SWITCH, raising=False)
    with pytest.raises(InvalidOptionError, match="TABLETOP_ZOO_BATCH must be 0"):
        play_seatings("arktia", 2, SPECS, seatings)


@pytest.mark.slow
def test_worker_processes_play_batches_with_the_same_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seatings = schedule(2, [(0, 1), (1, 1)], opening=2)
    serial, fast = both_ways(monkeypatch, "mole_hill", 2, SPECS, seatings)
    assert play_seatings("mole_hill", 2, SPECS, seatings, workers=2) == fast == serial


def test_compiled_states_reach_the_search_agents_as_copies() -> None:
    from tabletop_zoo.envs.registry import fast_state

    state = new_game("arktia", 2).new_initial_state()
    compiled = fast_state(state)
    copy = fast_state(compiled)
    assert type(copy) is type(compiled) and copy is not compiled
    assert copy.row is not compiled.row and (copy.row == compiled.row).all()


def test_no_progress_bar_unless_stderr_is_a_terminal(capsys: pytest.CaptureFixture) -> None:
    play_seatings("mole_hill", 2, ["random", "random"], [Seating((0, 1), 1)])
    assert capsys.readouterr().err == ""


def test_a_few_random_games_are_not_worth_loading_the_compiled_engine(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int]
) -> None:
    """Random agents never load numba: fewer than ``MIN_BATCH`` of their games stay serial
    unless numba is loaded already (scripts/test_same_results.py checks the import)."""
    import sys

    seatings = schedule(2, [(0, 0)], opening=0)
    serial = play_seatings("mole_hill", 2, ["random"], seatings)
    assert len(lockstep_games) == len(seatings)  # numba is loaded in this process
    with monkeypatch.context() as patch:
        patch.delitem(sys.modules, "numba")  # as in a process that never loaded it
        assert play_seatings("mole_hill", 2, ["random"], seatings) == serial
        assert len(lockstep_games) == len(seatings)
        patch.setattr(arena, "MIN_BATCH", len(seatings))  # enough games: worth it
        assert play_seatings("mole_hill", 2, ["random"], seatings) == serial
        assert len(lockstep_games) == 2 * len(seatings)


def test_a_terminal_gets_a_progress_bar_with_an_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every match shows a tqdm bar on stderr when stderr is a terminal, with no flag."""
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    play_seatings("mole_hill", 2, ["random", "greedy"], schedule(2, [(0, 1)], opening=0))
    bar = terminal.getvalue()
    assert "games: 100%" in bar and "2/2" in bar and "<00:00" in bar  # elapsed<remaining


@pytest.mark.parametrize(
    ("game", "options"),
    [("mole_hill", {"random_flowers": True}), ("arktia", {"neutral_pieces": True})],
)
def test_game_options_reach_the_compiled_engine(
    monkeypatch: pytest.MonkeyPatch, lockstep_games: list[int], game: str, options: dict
) -> None:
    seatings = schedule(2, [(0, 1), (1, 2)], opening=1)
    serial, fast = both_ways(monkeypatch, game, 2, SPECS, seatings, env_options=options)
    assert len(lockstep_games) == len(seatings)
    assert fast == serial
