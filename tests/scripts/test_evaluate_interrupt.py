"""Ctrl-C during ``scripts/evaluate.py`` keeps the games finished so far, to resume."""

from __future__ import annotations

import re
import signal
import sys
import time
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "evaluate.py"


@pytest.mark.slow
def test_ctrl_c_during_a_tournament_writes_the_finished_games(tmp_path, start_for_ctrl_c) -> None:
    out = tmp_path / "out"
    process = start_for_ctrl_c(
        sys.executable,
        SCRIPT,
        "--game",
        next(iter(GAMES)),
        "--agents",
        "random,random",
        "--games",
        "20000",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    try:
        bar = ""  # the progress bar (stderr): wait until a game has finished
        deadline = time.monotonic() + 240
        while not re.search(r"\| *[1-9]\d*/", bar) and time.monotonic() < deadline:
            char = process.stderr.read(1)
            if not char:  # the process ended: the assertions below say how
                break
            bar += char
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    (line,) = [text for text in re.split(r"[\r\n]", err) if text.startswith("evaluate.py")]
    assert line.startswith("evaluate.py: interrupted: ") and line.endswith(f"--out {out} --resume")
    games = int(line.split("interrupted: ")[1].split()[0])
    assert f"{games} games recorded in {out / 'games.jsonl'}; to play the rest: " in line
    assert not (out / "games.csv").exists()  # only complete results get tables
    rows = (out / "games.jsonl").read_text().splitlines()
    assert len(rows) == games + 1 and games >= 1  # a header and one line per game
