"""scripts/record.py: flags, the written animation and the one-line missing-extra message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES
from tests.wrappers.test_replay import page_data

iio = pytest.importorskip("imageio.v3")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_record_writes_a_gif_of_a_whole_game(script, name: str, tmp_path: Path, capsys) -> None:
    record = script("record")
    n = GAMES[name].players[-1]
    out = tmp_path / "game.gif"
    agents = ",".join(["greedy"] + ["random"] * (n - 1))
    assert record.main(["--game", name, "--agents", agents, "--out", str(out), "--seed", "2"]) == 0
    frames = iio.imread(out, index=None)
    assert frames.ndim == 4 and frames.shape[0] > 10
    assert f"wrote {out}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--agents", "greedy"], "one spec per seat, got 1: Mole Hill is played by 2 players"),
        (["--agents", "greedy,nobody"], "unknown agent spec 'nobody'"),
        (
            ["--agents", "greedy,random", "--out", "x.avi"],
            "--out: 'x.avi' must end in .gif or .mp4",
        ),
        (["--agents", "greedy,random", "--fps", "0"], "--fps: must be a number > 0"),
    ],
)
def test_record_rejects_bad_flags(script, flags, message, capsys) -> None:
    record = script("record")
    argv = ["--game", "mole_hill", "--out", "x.gif", *flags]
    if "--out" in flags:
        argv = ["--game", "mole_hill", *flags]
    with pytest.raises(SystemExit) as info:
        record.main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_record_without_imageio_prints_one_line(script, monkeypatch, tmp_path, capsys) -> None:
    record = script("record")
    monkeypatch.setitem(sys.modules, "imageio", None)
    out = tmp_path / "x.gif"
    code = record.main(["--game", "mole_hill", "--agents", "random,random", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "[record]" in err and "pip install" in err
    assert not out.exists()


@pytest.mark.slow
def test_record_writes_an_animation_and_a_replay_of_the_same_game(script, tmp_path, capsys):
    gif, html = tmp_path / "game.gif", tmp_path / "game.html"
    argv = ["--game", "arktia", "--agents", "random,random", "--seed", "3"]
    assert script("record").main([*argv, "--out", str(gif), "--html", str(html)]) == 0
    assert f"wrote {gif} (" in capsys.readouterr().out and gif.stat().st_size > 0
    assert page_data(html)["title"] == "Arktia"


@pytest.mark.slow
def test_record_from_a_run_plays_its_games_again(script, tmp_path, capsys, monkeypatch):
    """``--from``: each game of an evaluation (random opening, a searching agent) replays to
    its recorded result; a missing slot, an edited result or flags beside it: one line."""
    monkeypatch.chdir(tmp_path)
    run = ["--game", "mole_hill", "--agents", "mcts:8,greedy", "--games", "2", "--out", "t",
           "--random-opening", "2", "--no-progress"]  # fmt: skip
    assert script("evaluate").main(run) == 0
    lines = (tmp_path / "t" / "games.jsonl").read_text().splitlines()
    for slot in range(len(lines) - 1):
        out = tmp_path / f"{slot}.html"
        argv = ["--from", "t", "--slot", str(slot), "--html", str(out), "--analysis"]
        assert script("record").main(argv) == 0, capsys.readouterr().err
        moves = [f for f in page_data(out)["frames"] if f["move"] is not None]
        assert len(moves) == json.loads(lines[slot + 1])["steps"]
    with pytest.raises(SystemExit):
        script("record").main(["--from", "t", "--slot", "9", "--html", "x.html"])
    assert "has no game at slot 9 of match 0 (slots 0..1)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        script("record").main(["--from", "t", "--agents", "random,random", "--html", "x.html"])
    assert "--agents may only repeat the recorded ones (mcts:8,greedy)" in capsys.readouterr().err
    edited = json.loads(lines[1]) | {"scores": [99, 0]}
    (tmp_path / "t" / "games.jsonl").write_text("\n".join([lines[0], json.dumps(edited)]) + "\n")
    assert script("record").main(["--from", "t", "--html", "x.html"]) == 1
    assert "played differently from its record (scores" in capsys.readouterr().err
