"""Every script run without its extra prints one line naming the extra."""

from __future__ import annotations

import sys

import pytest

from tabletop_zoo.envs.registry import GAMES

INSTALL = 'pip install -e ".[{}]"'


def _one_line(err: str, extra: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert f"needs the '{extra}' extra" in lines[0]
    assert INSTALL.format(extra) in lines[0]
    return lines[0]


@pytest.mark.parametrize("blocked", ["torch", "stable_baselines3", "sb3_contrib", "tqdm"])
def test_train_without_the_train_extra(script, monkeypatch, tmp_path, capsys, blocked) -> None:
    train = script("train")
    monkeypatch.setitem(sys.modules, blocked, None)
    assert train.main(["--runs-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    line = _one_line(captured.err, "train")
    assert line.startswith("train.py: error: scripts/train.py needs") and blocked in line
    assert captured.out == "" and not any(tmp_path.iterdir())


def test_evaluate_without_the_train_extra(script, monkeypatch, tmp_path, capsys):
    evaluate = script("evaluate")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert evaluate.main(["--games", "2", "--out", str(tmp_path / "o")]) == 1
    captured = capsys.readouterr()
    _one_line(captured.err, "train")
    assert captured.out == ""  # checked before any game was played
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv", [[], ["--no-progress"]])
def test_evaluate_without_tqdm_plays_without_a_bar(script, monkeypatch, tmp_path, capsys, argv):
    evaluate = script("evaluate")
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert evaluate.main(["--games", "2", "--out", str(tmp_path / "o"), *argv]) == 0
    assert "games:" not in capsys.readouterr().err


def test_evaluate_ppo_agent_without_torch(script, monkeypatch, tmp_path, capsys) -> None:
    evaluate = script("evaluate")
    model = tmp_path / "m.zip"
    model.write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    argv = ["--agents", f"random,ppo:{model}", "--no-progress", "--out", str(tmp_path / "o")]
    assert evaluate.main(argv) == 1
    _one_line(capsys.readouterr().err, "train")


def test_play_in_a_window_without_the_render_extra(script, monkeypatch, capsys) -> None:
    play = script("play")
    monkeypatch.setitem(sys.modules, "pygame", None)
    assert play.main(["--render", "human", "--watch"]) == 1
    line = _one_line(capsys.readouterr().err, "render")
    assert "--render human" in line


def test_benchmark_notes_name_the_bench_extra(script, monkeypatch, capsys) -> None:
    benchmark = script("benchmark")
    anchors = {s.benchmark_anchor for s in GAMES.values() if s.benchmark_anchor}
    for module in anchors:  # PettingZoo's games import pygame
        monkeypatch.setitem(sys.modules, module, None)
    report = benchmark.run(0.05, 0, only=[benchmark.REFERENCES[0].split()[0]])
    assert report["results"] == []
    assert INSTALL.format("bench") in report["notes"][0]
