"""A policy in a Python file of the user's (``py:FILE:FACTORY``) in every command that plays
agents: evaluate (in worker processes too), rate, record (with its probabilities shown by
``--analysis``, and ``--from`` a record only when the user names it again) and play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.wrappers.test_replay import page_data

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_policy.py"
POLICY = EXAMPLE.read_text()  # the example of docs/baselines.md, copied to the working folder
SPEC = "py:my_policy.py:policy"


@pytest.fixture(autouse=True)
def _policy_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_policy.py").write_text(POLICY)


def test_the_docs_show_the_example_file_as_it_is() -> None:
    assert f"```python\n{POLICY}```" in (EXAMPLE.parents[1] / "baselines.md").read_text()


def test_evaluate_plays_it(script, tmp_path, capsys) -> None:
    argv = ["--game", "mole_hill", "--agents", f"{SPEC},random", "--games", "4", "--no-progress"]
    assert script("evaluate").main([*argv, "--out", "one"]) == 0
    assert f"{SPEC}  random" in capsys.readouterr().out
    header = (tmp_path / "one" / "games.jsonl").read_text().split("\n")[0]
    config = json.loads(json.loads(header)["config"])
    assert list(config["models"]) == [SPEC]  # the file's digest: an edited file is another run


@pytest.mark.slow
def test_evaluate_plays_it_in_worker_processes(script, tmp_path) -> None:
    """The worker processes import the file by its absolute path: the same games."""
    argv = ["--game", "mole_hill", "--agents", f"{SPEC},random", "--games", "4", "--no-progress"]
    assert script("evaluate").main([*argv, "--out", "one"]) == 0
    assert script("evaluate").main([*argv, "--out", "two", "--workers", "2"]) == 0
    one, two = ((tmp_path / run / "games.csv").read_text() for run in ("one", "two"))
    assert one == two


def test_rate_against_a_field(script, capsys) -> None:
    argv = ["--game", "mole_hill", "--agent", SPEC, "--against", "random", "--rounds", "2"]
    assert script("rate").main(argv) == 0
    assert "1 x random" in capsys.readouterr().out


def test_record_shows_its_probabilities_and_plays_a_record_again_when_named(
    script, tmp_path, capsys
):
    argv = ["--game", "mole_hill", "--agents", f"{SPEC},random", "--html", "game.html"]
    assert script("record").main([*argv, "--analysis"]) == 0
    analyses = [f["analysis"] for f in page_data(tmp_path / "game.html")["frames"]]
    ours = [a for a in analyses if a is not None]
    assert ours and all(a["agent"] == SPEC and a["what"] == "policy" for a in ours)
    run = ["--game", "mole_hill", "--agents", f"{SPEC},random", "--games", "2", "--out", "t"]
    assert script("evaluate").main([*run, "--no-progress"]) == 0
    with pytest.raises(SystemExit):  # reading the record runs none of the file's code
        script("record").main(["--from", "t", "--html", "again.html"])
    assert f"the record names '{SPEC}', which runs code" in capsys.readouterr().err
    named = ["--from", "t", "--html", "again.html", "--agents", f"{SPEC},random"]
    assert script("record").main(named) == 0


def test_play_watches_it(script, capsys) -> None:
    argv = ["--game", "mole_hill", "--watch", "--agents", f"random,{SPEC}", "--seed", "2"]
    assert script("play").main([*argv, "--quiet"]) == 0
    assert f"player_1 ({SPEC}) plays" in capsys.readouterr().out
