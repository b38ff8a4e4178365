"""scripts/lab/leaderboard.py end to end on tiny budgets, in one process: ``entry`` evaluates
and rates an agent of ours (win rates, then ``rate --out``), a tutorial's ``result.json`` (its
schema, with a real ``rate`` folder beside it) joins, ``write`` makes the page; the ratings
are the ones ``rate`` printed. Ladders of two cheap members (a manifest made here) keep it
cheap; bad inputs are one line."""

from __future__ import annotations

import json
import re

import pytest

from tabletop_zoo.baselines.agents import reference
from tabletop_zoo.baselines.evaluation.game_log import GameLog
from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tests.scripts.conftest import load_script

CASES = [("mole_hill", 2), ("arktia", 3)]  # the leaderboard's two tables


@pytest.fixture
def ladders(tmp_path, monkeypatch):
    """Ladders of random and greedy, with published ratings made up for the test."""
    members = {"random": {"mu": 10.0, "sigma": 4.0}, "greedy": {"mu": 25.0, "sigma": 4.0}}
    ladder = {"random_opening": 0, "members": members}
    manifest = {"models": {}, "ladders": {f"{g}-{n}p": ladder for g, n in CASES}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(reference, "MANIFEST_PATH", tmp_path / "manifest.json")


def _tutorial_result(folder) -> str:
    """A tutorial's ``result.json`` in ``folder`` (the schema of docs/tutorials/README.md;
    ``greedy`` left out, as a cheap run may); its path."""
    rate = {"wins": 150, "draws": 10, "games": 200, "rate": 0.75, "low": 0.69, "high": 0.80}
    result = {
        "tutorial": "skrl_ppo.py",
        "library": "skrl",
        "versions": {"skrl": "2.1.1"},
        "algorithm": "IPPO",
        "game": "mole_hill",
        "num_players": 2,
        "command": "python docs/tutorials/skrl_ppo.py --steps 100000",
        "seed": 0,
        "budget": {"env_steps": 100000},
        "cpu_seconds": {"training": 140.3, "total": 171.0},
        "env_share": 0.31,
        "metric": "win rate",
        **{"chance": rate, "before": rate, "after": rate},
        "policy": "py:docs/tutorials/skrl_ppo.py:policy",
        **{"model": "model.pt", "cpu": "x", "date": "2026-12-08"},
    }
    folder.mkdir(exist_ok=True)
    (folder / "result.json").write_text(json.dumps(result))
    return str(folder / "result.json")


def test_entries_and_a_tutorial_make_the_page(ladders, tmp_path, capsys) -> None:
    board = load_script("leaderboard")
    results = []
    for game, players in CASES:
        out = tmp_path / f"{game}-{players}"
        argv = ["entry", "--agent", "greedy", "--game", game, "--num-players", str(players)]
        argv += ["--algorithm", "one-ply greedy", "--budget", "env_steps=0", "--cpu-seconds", "0"]
        assert board.main([*argv, "--games", "4", "--rounds", "1", "--out", str(out)]) == 0
        results.append(str(out / "result.json"))
    rate = ["--game", "mole_hill", "--agent", "random", "--rounds", "1", "--seed", "1"]
    assert load_script("rate").main([*rate, "--out", str(tmp_path / "skrl" / "rating")]) == 0
    results.append(_tutorial_result(tmp_path / "skrl"))
    printed = re.findall(r"rating of (\S+): (\S+ \[\S+, \S+\])", capsys.readouterr().out)
    page = tmp_path / "leaderboard.md"
    assert board.main(["write", *results, "--out", str(page)]) == 0
    text = page.read_text()
    assert "## Mole Hill, 2 players" in text and "## Arktia, 3 players" in text
    rows = [
        line.split(" | ") for line in text.splitlines() if line.startswith("| ") and "`" in line
    ]
    assert len(rows) == 3 and sorted(r[6] for r in rows) == sorted(r for _a, r in printed)
    assert [
        "| skrl 2.1.1",
        "IPPO",
        "140",
        "100,000 env steps",
        "0.75 [0.69, 0.80] (150/200)",
        "-",
    ] in [r[:6] for r in rows]
    assert all(re.fullmatch(r"\d\.\d\d \[\d\.\d\d, \d\.\d\d\] \(\d+/\d+\)", r[4]) for r in rows)
    section = text.partition("## Mole Hill")[2].splitlines()
    mole_hill = [float(line.split(" | ")[6].split()[0]) for line in section if "`" in line]
    assert mole_hill == sorted(mole_hill, reverse=True)


def test_bad_result_files_are_one_line(ladders, tmp_path, capsys) -> None:
    board = load_script("leaderboard")
    for name, config in [
        ("against", {"command": "rate", "against": True}),
        ("other", {"command": "rate", "specs": ["x", "random"], "game": "mole_hill"}),
    ]:
        log = GameLog(tmp_path / name / "rating", config | {"num_players": 2})
        log.add(0, MatchRecord("mole_hill", 2, (0, 1), ("x", "y"), (1.0, -1.0), (5, 3), 9, 1))
        log.finish()
        _tutorial_result(tmp_path / name)
    (tmp_path / "torn.json").write_text('{"library": ')
    (tmp_path / "short.json").write_text('{"library": "x"}')
    (tmp_path / "games" / "rating").mkdir(parents=True)
    (tmp_path / "games" / "rating" / "games.jsonl").write_text("garbage\n")
    _tutorial_result(tmp_path / "games")
    for path, message in [
        ("missing.json", "missing.json: not a result.json"),
        ("torn.json", "torn.json: not a result.json"),
        ("short.json", "not a result.json .no algorithm, game"),
        ("against/result.json", "is no rating on a ladder"),
        ("other/result.json", "was rated on another ladder"),
        ("games/result.json", "not a games record of tabletop-zoo"),
    ]:
        with pytest.raises(SystemExit):
            board.main(["write", str(tmp_path / path), "--out", str(tmp_path / "page.md")])
        err = capsys.readouterr().err.strip().splitlines()
        assert re.search(message, err[-1]) and not (tmp_path / "page.md").exists()
