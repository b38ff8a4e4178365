"""``scripts/lab/leaderboard.py tutorials`` and evaluation.outside_results: the tutorials'
table written from their result.json files, and bad files refused in one line."""

from __future__ import annotations

import json

import pytest

from tabletop_zoo.baselines.evaluation.outside_results import read_result, result_row


def rate(wins: int, games: int, low: float, high: float) -> dict:
    return {
        "wins": wins,
        "draws": 0,
        "games": games,
        "rate": wins / games,
        "low": low,
        "high": high,
    }


def result(tutorial: str, library: str, after: dict) -> dict:
    return {
        "tutorial": tutorial,
        "library": library,
        "versions": {library: "2.0.1", "torch": "2.13.0+cpu"},
        "algorithm": "masked double DQN against random",
        "game": "mole_hill",
        "num_players": 2,
        "command": f"python docs/tutorials/{tutorial} --steps 1000",
        "seed": 0,
        "budget": {"env_steps": 120000},
        "cpu_seconds": {"training": 201.4, "total": 240.0},
        "env_share": 0.21,
        "metric": "win rate against uniformly random players, seats rotating",
        "chance": rate(93, 200, 0.40, 0.53),
        "before": rate(80, 200, 0.33, 0.47),
        "after": after,
        "policy": f"py:docs/tutorials/{tutorial}:policy",
        "model": "runs/tutorials/x/model.pt",
        "cpu": "Intel(R) Xeon(R) Processor @ 2.80GHz",
        "date": "2026-12-08",
    }


BEGIN = "<!-- results table: written by scripts/lab/leaderboard.py tutorials -->"
END = "<!-- end of the results table -->"
PAGE = f"# Tutorials\n\nintro\n\n{BEGIN}\n| old | table |\n{END}\n\nafter\n"


def test_the_table_has_a_row_per_result_file(script, tmp_path, capsys) -> None:
    files = []
    for name, after in (("zeta.py", rate(190, 200, 0.91, 0.97)), ("alpha.py", rate(1, 2, 0, 1))):
        path = tmp_path / name / "result.json"
        path.parent.mkdir()
        path.write_text(json.dumps(result(name, "tianshou", after)))
        files.append(str(path))
    page = tmp_path / "README.md"
    page.write_text(PAGE)
    assert script("leaderboard").main(["tutorials", *files, "--page", str(page)]) == 0
    assert "2 results" in capsys.readouterr().out
    lines = page.read_text().splitlines()
    table = lines[lines.index(BEGIN) + 1 :]
    assert table[0].startswith("| tutorial | versions |") and table[1].startswith("|---")
    assert table[2] == (
        "| [alpha.py](alpha.py) | tianshou 2.0.1, torch 2.13.0+cpu | Mole Hill, 2 players | masked "
        "double DQN against random | 120,000 env steps | 201 | 0.21 | 0.47 [0.40, 0.53] "
        "| 0.40 [0.33, 0.47] | 0.50 [0.00, 1.00] |"
    )
    assert table[3].startswith("| [zeta.py](zeta.py) |") and table[3].endswith(
        " 0.95 [0.91, 0.97] |"
    )
    assert table[4:6] == ["", END]
    assert lines[:4] == PAGE.splitlines()[:4] and lines[-1] == "after"
    assert result_row(result("x.py", "agilerl", rate(1, 2, 0, 1)), "tutorials/").startswith(
        "| [x.py](tutorials/x.py) | agilerl 2.0.1"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read a result"),
        ("{not json", "cannot read a result"),
        ("[1, 2]", "not a tutorial's result.json (no object)"),
        (json.dumps({**result("a.py", "skrl", rate(1, 2, 0, 1)), "env_share": None}), "kind"),
        (json.dumps({**result("a.py", "skrl", rate(1, 2, 0, 1)), "budget": 5}), "wrong kind"),
        (json.dumps(result("a.py", "skrl", {"rate": 0.5})), "wrong kind (KeyError('low'))"),
    ],
)
def test_a_bad_or_missing_file_is_one_line_and_the_page_is_kept(
    script, tmp_path, capsys, content, message
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(result("g.py", "skrl", rate(1, 2, 0, 1))))
    if content is not None:
        bad.write_text(content)
    page = tmp_path / "README.md"
    page.write_text(PAGE)
    with pytest.raises(SystemExit) as exit_info:
        script("leaderboard").main(["tutorials", str(good), str(bad), "--page", str(page)])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith("usage: ") is False and message in error, error
    assert page.read_text() == PAGE


def test_a_page_without_the_markers_is_refused(script, tmp_path, capsys) -> None:
    good, page = tmp_path / "good.json", tmp_path / "README.md"
    data = result("g.py", "skrl", rate(1, 2, 0, 1))
    good.write_text(json.dumps(data))
    assert read_result(good) == data
    page.write_text("# no markers\n")
    with pytest.raises(SystemExit):
        script("leaderboard").main(["tutorials", str(good), "--page", str(page)])
    assert "has no <!-- results table" in capsys.readouterr().err
    assert page.read_text() == "# no markers\n"
    del data["metric"]
    good.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="no metric"):
        read_result(good)
