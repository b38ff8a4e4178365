"""scripts/rate.py and scripts/make_reference.py on tiny budgets."""

from __future__ import annotations

import inspect
import json
import re

import pytest

from tabletop_zoo.baselines.agents import reference
from tabletop_zoo.baselines.evaluation import ladder as ladder_module


@pytest.fixture(autouse=True)
def _in_a_fresh_folder(tmp_path, monkeypatch) -> None:
    """The records of the games (``results/rate``, ``results/ladder``) go to ``tmp_path``."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.slow
def test_rate_prints_a_rating_on_the_shipped_ladder(script, capsys, monkeypatch) -> None:
    shipped = reference.load_manifest

    def quicker(path=None):  # the AlphaZero members search 16 simulations, not 10,000
        manifest = shipped(path)
        for entry in manifest["models"].values():
            if entry["kind"] == "alphazero":
                entry["simulations"] = 16
        return manifest

    monkeypatch.setattr(reference, "load_manifest", quicker)
    rate = script("rate")
    ladder = reference.ladder_entry("mole_hill", 2)
    assert rate.main(["--game", "mole_hill", "--agent", "random", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    match = re.search(r"rating of random: (-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]", out)
    assert match is not None, out
    value, low, high = map(float, match.groups())
    assert low < value < high
    assert "Elo on the ladder" in out and "cpu time" in out
    for member in ladder["members"]:
        assert member in out  # every mix of the ladder was played


def test_rate_against_a_fixed_field(script, capsys) -> None:
    rate = script("rate")
    argv = ["--game", "arktia", "--num-players", "3", "--agent", "greedy"]
    assert rate.main([*argv, "--against", "random", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    (line,) = [row for row in out.splitlines() if row.startswith("2 x random")]
    assert line.split()[3] == "3"  # one seating per seat of the greedy agent


def test_rate_shows_its_progress_and_sizes_its_columns_by_the_names(script, tmp_path, capsys):
    """A progress bar on stderr (none with ``--no-progress``); the table's columns as wide
    as its longest name (a model path longer than the 44 columns the label used to have)."""
    network = tmp_path / "a_network_whose_file_name_is_longer_than_the_column.npz"
    network.write_bytes(reference.reference_path("mole_hill-2p-alphazero").read_bytes())
    rate = script("rate")
    argv = ["--game", "mole_hill", "--agent", "greedy", "--against", "random", "--against"]
    assert rate.main([*argv, f"az:{network}:1", "--rounds", "1"]) == 0
    out, err = capsys.readouterr()
    assert "games: 100%" in err
    table = out.splitlines()[:3]
    assert table[0].startswith("opponents (every other seat) ") and "games" in table[0]
    assert table[2].startswith(f"1 x az:{network}:1  ")
    assert len({len(line) for line in table}) == 1  # the right-aligned columns end together
    assert rate.main([*argv, f"az:{network}:1", "--rounds", "1", "--no-progress", "--resume"]) == 0
    again, err = capsys.readouterr()
    timeless = [line for line in out.splitlines() if not line.startswith("cpu time:")]
    assert err == "" and timeless == [
        line for line in again.splitlines() if not line.startswith("cpu time:")
    ]  # the games recorded: the same table (the CPU time is this run's), no bar


def test_rate_writes_its_games_to_csv(script, tmp_path, capsys) -> None:
    rate = script("rate")
    path = tmp_path / "games.csv"
    argv = ["--game", "mole_hill", "--agent", "greedy", "--against", "random", "--rounds", "2"]
    assert rate.main([*argv, "--csv", str(path)]) == 0
    rows = path.read_text().splitlines()
    assert rows[0].startswith("game,seats") and len(rows) == 1 + 4  # 2 rounds x 2 seats
    assert str(path) in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "results"]
    assert len((tmp_path / "results" / "rate" / "games.jsonl").read_text().splitlines()) == 5


def test_rate_refuses_a_bad_spec_and_a_missing_ladder(script, tmp_path, monkeypatch, capsys):
    rate = script("rate")
    with pytest.raises(SystemExit):
        rate.main(["--game", "mole_hill", "--agent", "wizard", "--rounds", "1"])
    assert "allowed" in capsys.readouterr().err
    monkeypatch.setattr(reference, "MANIFEST_PATH", tmp_path / "empty.json")
    with pytest.raises(SystemExit):
        rate.main(["--game", "mole_hill", "--agent", "random"])
    assert "no rating ladder for 'mole_hill-2p'" in capsys.readouterr().err


def test_make_reference_fits_a_ladder(script, tmp_path, monkeypatch, capsys) -> None:
    make_reference = script("make_reference")
    monkeypatch.setattr(reference, "MANIFEST_PATH", tmp_path / "manifest.json")
    monkeypatch.setattr(make_reference, "MANIFEST_PATH", tmp_path / "manifest.json")
    monkeypatch.setattr(make_reference, "REFERENCE_DIR", tmp_path)
    argv = ["ladder", "--game", "mole_hill", "--num-players", "2", "--members", "random,greedy"]
    plot = tmp_path / "ladder.png"
    assert make_reference.main([*argv, "--rounds", "2", "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    ladder = json.loads((tmp_path / "manifest.json").read_text())["ladders"]["mole_hill-2p"]
    assert ladder["games"] == 4 and set(ladder["members"]) == {"random", "greedy"}
    assert all({"mu", "sigma", "elo"} <= set(v) for v in ladder["members"].values())
    assert ladder["random_opening"] == 0


def test_a_ladder_keeps_its_random_opening_for_rate(script, tmp_path, monkeypatch) -> None:
    """Both games start from one position: a ladder whose members are deterministic is fit
    with random openings, records K, and rate.py plays its games with the same K."""
    make_reference, rate = script("make_reference"), script("rate")
    for module in (reference, make_reference):
        monkeypatch.setattr(module, "MANIFEST_PATH", tmp_path / "manifest.json")
    argv = ["ladder", "--game", "mole_hill", "--num-players", "2", "--members", "random,greedy"]
    assert make_reference.main([*argv, "--rounds", "1", "--random-opening", "3"]) == 0
    ladder = json.loads((tmp_path / "manifest.json").read_text())["ladders"]["mole_hill-2p"]
    assert ladder["random_opening"] == 3
    used: list[int] = []
    real = ladder_module.play_lineups

    def spy(*args, **kwargs):
        used.append(inspect.signature(real).bind(*args, **kwargs).arguments["random_opening"])
        return real(*args, **kwargs)

    monkeypatch.setattr(ladder_module, "play_lineups", spy)
    assert rate.main(["--game", "mole_hill", "--agent", "random", "--rounds", "1"]) == 0
    argv = ["--game", "mole_hill", "--agent", "random", "--rounds", "1", "--random-opening", "0"]
    assert rate.main(argv) == 0
    assert used == [3, 0]  # the ladder's own K, unless the flag says otherwise


def test_rate_random_opening_flag(script, capsys) -> None:
    rate = script("rate")
    argv = ["--game", "mole_hill", "--agent", "greedy", "--against", "random", "--rounds", "1"]
    assert rate.main([*argv, "--random-opening", "2"]) == 0
    assert "1 x random" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        rate.main([*argv, "--random-opening", "-1"])
    assert "--random-opening: must be an integer >= 0" in capsys.readouterr().err
