"""scripts/play.py driven through stdin, as a person would type."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

PLAY = [sys.executable, str(Path(__file__).resolve().parents[2] / "scripts" / "play.py")]
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}


def test_bad_move_help_and_quit_from_stdin() -> None:
    proc = subprocess.run(
        [*PLAY, "--game", "mole_hill", "--seed", "1", "--opponent", "random"],
        input="zz9\n?\nhelp\nrules\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "not a legal move: bad space 'zz9'" in out
    assert "legal moves (63): a1 b1" in out  # first mole turn: any of the 63 spaces
    assert "'stop' ends the game" in out
    assert "Mole Hill notation: the garden has columns a-i" in out  # help: this game's notation
    assert "Full rulings (M1-M10): tabletop-zoo rules mole_hill" in out  # rules: summary + pointer
    assert "stop this game? (y/n)" in out  # 'quit' asks; end of input answers for the player
    assert "stopped: game abandoned" in out
    assert "game over" not in out


@pytest.mark.slow
def test_full_game_typed_move_by_move() -> None:
    """Ask '?' every turn and type the first legal move until the game ends."""
    proc = subprocess.Popen(
        [*PLAY, "--seed", "3", "--opponent", "greedy", "--seat", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    watchdog = threading.Timer(90, proc.kill)
    watchdog.start()
    assert proc.stdin is not None and proc.stdout is not None
    typed = 0
    try:
        proc.stdin.write("e4-e5-e6\n")  # malformed first: the game must carry on
        proc.stdin.write("?\n")
        proc.stdin.flush()
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "legal moves (" in line:
                move = line.split("): ", 2)[-1].split()[0]
                proc.stdin.write(f"{move}\n?\n")
                proc.stdin.flush()
                typed += 1
            if line.startswith("game over"):
                proc.stdin.close()
                break
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        watchdog.cancel()
        proc.kill()
    out = "".join(lines) + rest
    assert "not a legal move" in out
    assert typed >= 10  # a Mole Hill game has two rounds of at least a few moves each
    assert out.count("player_1 (you) plays") == typed
    assert "player_0 (greedy) plays" in out
    assert "wins" in rest or "draw" in rest


def test_watch_two_agents(script, capsys) -> None:
    play = script("play")
    argv = ["--game", "mole_hill", "--watch", "--agents", "greedy,random", "--seed", "4"]
    assert play.main(argv) == 0
    out = capsys.readouterr().out
    assert "player_0 (greedy) plays" in out and "player_1 (random) plays" in out
    assert "game over; scores:" in out
    # the end of round 1 is announced once, with the scores, and round 2 goes on after it
    (line,) = [x for x in out.splitlines() if x.startswith("--- round")]
    assert re.fullmatch(r"--- round 1 is over; scores: player_0 \d+, player_1 0 ---", line)
    assert "player_1 (random) plays" in out.split(line)[1]


class _Boards:
    """Counts the boards the script shows."""

    def __init__(self, play) -> None:
        self.count = 0
        self.original = play.show_board

    def __call__(self, env) -> None:
        self.count += 1
        self.original(env)


@pytest.mark.parametrize("quiet", [False, True])
def test_quiet_shows_the_board_only_on_the_humans_turn(script, monkeypatch, capsys, quiet):
    play = script("play")
    boards = _Boards(play)
    monkeypatch.setattr(play, "show_board", boards)
    seen: list[str] = []
    human_turns = 0

    def reader() -> str | None:
        """The human (seat 0) asks '?' and types the first legal move listed."""
        nonlocal human_turns
        seen.append(capsys.readouterr().out)
        if "legal moves (" in seen[-1]:
            return seen[-1].rsplit("legal moves (", 1)[1].split("): ", 1)[1].split()[0]
        human_turns += 1
        return "?"

    specs = ["human", "random"]
    assert play.play("mole_hill", specs, seed=5, read=reader, quiet=quiet)
    out = "".join(seen) + capsys.readouterr().out
    moves = sum(" plays " in line for line in out.splitlines())
    if quiet:
        assert boards.count == human_turns + 1  # before each human turn, and at the end
    else:
        assert boards.count == moves + 1  # the start and after every move
    assert "game over" in out


def test_quiet_watch_prints_moves_and_the_final_board(script, monkeypatch, capsys) -> None:
    play = script("play")
    boards = _Boards(play)
    monkeypatch.setattr(play, "show_board", boards)
    assert play.main(["--watch", "--quiet", "--seed", "3"]) == 0
    assert boards.count == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponent", "wizard"], "allowed"),
        (["--seat", "2"], "--seat must be in 0..1"),
        (["--watch", "--agents", "human,greedy"], "--watch is for agents only"),
        (["--agents", "human"], "one per seat"),
        (["--seed", "-3"], "--seed: must be an integer in 0.."),
        (["--delay", "-1"], "--delay: must be a number in 0..3600"),
        (["--delay", "nan"], "--delay: must be"),
        (["--game", "arktia", "--num-players", "7"], "2 to 4 players"),
        (["--opponent", "ppo:no/such/model.zip"], "no saved MaskablePPO model"),
    ],
)
def test_bad_flags_are_usage_errors(script, capsys, argv, message) -> None:
    play = script("play")
    with pytest.raises(SystemExit) as exc:
        play.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_ctrl_c_at_the_prompt_is_a_clean_exit(script, capsys) -> None:
    play = script("play")

    def interrupt() -> str:
        raise KeyboardInterrupt

    original = play._read_stdin
    play._read_stdin = interrupt
    try:
        with pytest.raises(SystemExit) as exc:
            play.cli.run_main(lambda: play.main(["--seed", "1"]), prog="play.py")
    finally:
        play._read_stdin = original
    assert exc.value.code == 130
    assert capsys.readouterr().err == "play.py: interrupted: game abandoned\n"
