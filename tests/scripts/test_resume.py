"""Matches keep every finished game: ``evaluate`` and ``rate`` killed (SIGKILL) at seeded
random points, then run again with ``--resume``, end with the same files and tables, byte
for byte, as an uninterrupted run; a killed worker process's games are played again; a
record of another run is refused in one line and a torn last line is dropped."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop_zoo.baselines.evaluation import game_log
from tabletop_zoo.baselines.evaluation.game_log import GameLog
from tabletop_zoo.baselines.evaluation.matches import Seating, play_seatings
from tabletop_zoo.envs.errors import InvalidOptionError

from .conftest import load_script

EVALUATE = ["--game", "mole_hill", "--agents", "random,random,random", "--games", "20"]
EVALUATE += ["--seed", "3", "--no-progress"]
RATE = ["--game", "mole_hill", "--agent", "greedy", "--against", "random", "--against"]
RATE += ["random", "--rounds", "10", "--seed", "4"]
FILES = {
    "evaluate": ["games.jsonl", "games.csv", "standings.csv", "pairings.csv"],
    "rate": ["games.jsonl", "games.csv"],
}


def _argv(command: str, out: Path) -> list[str]:
    extra = ["--csv", str(out / "games.csv")] if command == "rate" else []
    return [*(EVALUATE if command == "evaluate" else RATE), "--out", str(out), *extra]


def _run_here(command: str, argv: list[str]) -> str:
    """The command in this process; what it printed (without its timing lines)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert load_script(command).main(argv) == 0
    lines = buffer.getvalue().splitlines()
    return "\n".join(x for x in lines if not x.startswith(("wrote", "cpu time")))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """One uninterrupted run of each command: its folder and what it printed."""
    runs = {}
    for command in FILES:
        out = tmp_path_factory.mktemp(command)
        runs[command] = out, _run_here(command, _argv(command, out))
    return runs


def _start(command: str, argv: list[str]) -> subprocess.Popen:
    console = Path(sys.executable).parent / "tabletop-zoo"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    argv = [str(console), command, *argv]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def _wait_for(process: subprocess.Popen, record: Path, lines: int) -> None:
    """Until ``record`` has ``lines`` lines or the process ended (60 s at most)."""
    deadline = time.monotonic() + 60
    while _lines(record) < lines and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


def _same_files(command: str, ours: Path, reference: Path) -> None:
    for name in FILES[command]:
        assert (ours / name).read_bytes() == (reference / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(FILES))
def test_a_killed_run_resumed_ends_as_an_uninterrupted_one(command, uninterrupted, tmp_path):
    reference, printed = uninterrupted[command]
    games = _lines(reference / "games.jsonl") - 1
    for point in random.Random(command).sample(range(1, games - 1), 2):
        out = tmp_path / str(point)
        process = _start(command, _argv(command, out))
        _wait_for(process, out / "games.jsonl", 1 + point)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert _run_here(command, [*_argv(command, out), "--resume"]) == printed
        _same_files(command, out, reference)


@pytest.mark.slow
def test_a_killed_worker_s_games_are_played_again(uninterrupted, tmp_path) -> None:
    reference, _printed = uninterrupted["evaluate"]
    process = _start("evaluate", [*_argv("evaluate", tmp_path), "--workers", "2"])
    _wait_for(process, tmp_path / "games.jsonl", 2)
    tasks = Path(f"/proc/{process.pid}/task").glob("*/children")
    children = [c for task in tasks for c in task.read_text().split()]
    workers = [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
    ended = _lines(tmp_path / "games.jsonl") == _lines(reference / "games.jsonl")
    assert workers and not ended, "the run ended before the kill"
    os.kill(int(workers[0]), signal.SIGKILL)
    _out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    _same_files("evaluate", tmp_path, reference)


def _log_of_two_games(folder: Path) -> list:
    schedule = [Seating((0, 1), 11), Seating((1, 0), 12)]
    log = GameLog(folder, {"command": "test", "seed": 1})
    records = play_seatings("mole_hill", 2, ["random", "random"], schedule, log=log)
    log.finish()  # the lines in schedule order
    return records


def test_a_torn_last_line_is_dropped(tmp_path) -> None:
    records = _log_of_two_games(tmp_path)
    path = tmp_path / "games.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole[: whole.rindex(b"\n", 0, -1) + 10])  # the second game torn
    log = GameLog(tmp_path, {"command": "test", "seed": 1}, resume=True)
    assert log.played() == {0: records[0]}
    schedule = [Seating((0, 1), 11), Seating((1, 0), 12)]
    assert play_seatings("mole_hill", 2, ["random", "random"], schedule, log=log) == records
    log.finish()
    assert path.read_bytes() == whole


def test_a_record_of_another_run_is_refused(tmp_path) -> None:
    _log_of_two_games(tmp_path)
    with pytest.raises(InvalidOptionError, match="another run .its command, seed differ") as exc:
        GameLog(tmp_path, {"command": "other", "seed": 2}, resume=True)
    assert "\n" not in str(exc.value)
    path = tmp_path / "games.jsonl"
    path.write_text(path.read_text().splitlines()[0] + '\n{"match": 0}\n')
    with pytest.raises(InvalidOptionError, match="line 2 is not a game"):
        GameLog(tmp_path, {"command": "test", "seed": 1}, resume=True)
    with pytest.raises(InvalidOptionError, match="no record of a run in"):
        GameLog(tmp_path / "nothing", {"command": "test"}, resume=True)


def test_the_moves_of_a_record_replay_to_each_recorded_result(tmp_path, capsys) -> None:
    """Every game keeps its moves; ``record --from RUN --check`` plays them again on a new
    env: an edited result, move, seed or a cut record is one line naming the game."""
    records = _log_of_two_games(tmp_path)
    assert [len(r.moves) for r in records] == [r.steps for r in records] and records[0].steps
    record = load_script("record")
    assert record.main(["--from", str(tmp_path), "--check"]) == 0
    assert capsys.readouterr().out.startswith(f"2 games of {tmp_path} played again")
    header, first, second = (tmp_path / "games.jsonl").read_text().splitlines()
    game, path = json.loads(second), tmp_path / "edited.jsonl"
    edits = [
        ({"scores": [99, 0]}, r"game 1 of match 0: its \d+ moves give \(\[.*recorded: .*99, 0"),
        ({"moves": game["moves"][:-1]}, "moves give an unfinished game"),
        ({"moves": game["moves"] + [5]}, "player_0 is done"),
        ({"moves": [999] + game["moves"][1:]}, "game 1 of match 0: illegal action 999 .out"),
        ({"moves": []}, "game 1 of match 0 has no moves"),
        ({"seed": "12"}, "line 3 is not a game"),
        ({"moves": 5}, "line 3 is not a game"),
    ]
    for edit, message in edits:
        path.write_text("\n".join([header, first, json.dumps(game | edit)]) + "\n")
        with pytest.raises(InvalidOptionError, match=message) as exc:
            game_log.replay(path)
        assert "\n" not in str(exc.value)
        with pytest.raises(SystemExit):
            record.main(["--from", str(path), "--check"])
        assert capsys.readouterr().err.splitlines()[-1].endswith(str(exc.value))


@pytest.mark.slow
def test_a_ladder_resumed_fits_the_same_ratings(tmp_path, monkeypatch) -> None:
    """The record cut after its second game (as a kill leaves it), then ``--resume``."""
    from tabletop_zoo.baselines.agents import reference

    make_reference = load_script("make_reference")
    manifest = tmp_path / "manifest.json"
    for module in (reference, make_reference):
        monkeypatch.setattr(module, "MANIFEST_PATH", manifest)
    monkeypatch.setattr(make_reference, "REFERENCE_DIR", tmp_path)
    argv = ["ladder", "--game", "mole_hill", "--num-players", "2", "--members", "random,greedy"]
    argv += ["--rounds", "3", "--out", str(tmp_path)]
    entries, records = [], []
    for resume in ([], ["--resume"]):
        assert make_reference.main([*argv, *resume]) == 0
        entry = json.loads(manifest.read_text())["ladders"]["mole_hill-2p"]
        entries.append({k: v for k, v in entry.items() if k not in ("command", "cpu_minutes")})
        records.append((tmp_path / "games.jsonl").read_text())
        manifest.unlink()
        (tmp_path / "games.jsonl").write_text("".join(records[0].splitlines(True)[:3]))
    assert entries[0] == entries[1] and records[0] == records[1]
