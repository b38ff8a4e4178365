"""Saves of the scripts: train_alphazero.py never overwrites a network unasked,
make_reference.py add checks a new model before it replaces the shipped one, when the
worker processes of evaluate.py or rate.py keep dying the games played stay recorded, and a
write that fails (a full disk) is one line that names the file, the earlier files kept."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines.agents.numpy_net import DenseNet

from . import failing_writes


def _dying(real):
    """``play_tasks`` playing one game, then failing as when worker processes keep dying."""
    from tabletop_zoo.baselines.evaluation.arena import IncompleteRunError

    def play_tasks(tasks, workers=1):
        yield next(real(tasks))
        raise IncompleteRunError("worker processes died twice (killed or out of memory)")

    return play_tasks


def _stopped(err: str, out, command: str) -> int:
    """The number of games recorded in ``out``, once the one error line says so."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "worker processes died twice" in lines[0], lines
    assert f"to play the rest: python scripts/{command} " in lines[0]
    assert lines[0].endswith(" --resume")
    games = len((out / "games.jsonl").read_text().splitlines()) - 1
    assert f"{games} games recorded in {out / 'games.jsonl'}" in lines[0]
    return games


def test_alphazero_training_refuses_an_existing_output(tmp_path, script, capsys) -> None:
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig

    out = tmp_path / "az.npz"
    out.write_bytes(b"a network trained for hours")
    with pytest.raises(ValueError, match="already exists.*--overwrite"):
        AlphaZeroConfig(game="mole_hill", out=str(out)).check()
    AlphaZeroConfig(game="mole_hill", out=str(out), overwrite=True).check()
    train_alphazero = script("train_alphazero")
    with pytest.raises(SystemExit) as exc:
        train_alphazero.main(["--game", "mole_hill", "--out", str(out), "--iterations", "1"])
    assert exc.value.code == 2 and "--overwrite" in capsys.readouterr().err
    assert out.read_bytes() == b"a network trained for hours"


@pytest.fixture
def reference_folder(script, tmp_path, monkeypatch):
    """make_reference.py with its folder and manifest in ``tmp_path``, holding one model."""
    make_reference = script("make_reference")
    folder = tmp_path / "reference"
    folder.mkdir()
    monkeypatch.setattr(make_reference, "MANIFEST_PATH", folder / "manifest.json")
    monkeypatch.setattr(make_reference, "REFERENCE_DIR", folder)
    from tabletop_zoo.baselines.agents.reference import reference_path

    shipped = reference_path("mole_hill-2p-alphazero")
    source = tmp_path / "az.npz"
    source.write_bytes(shipped.read_bytes())
    argv = ["add", "--name", "mole_hill-2p-alphazero", "--game", "mole_hill"]
    argv += ["--num-players", "2", "--command", "test", "--commit", "abc", "--az", str(source)]
    assert make_reference.main(argv) == 0
    return make_reference, folder, argv


def test_make_reference_add_checks_the_new_model_before_replacing(reference_folder, capsys) -> None:
    make_reference, folder, argv = reference_folder
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    make_reference.MAX_MODEL_BYTES = 100  # the module is loaded fresh for every test
    with pytest.raises(SystemExit, match="breaks the 5 MB / 25 MB limits"):
        make_reference.main(argv)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    make_reference.MAX_MODEL_BYTES = 5 * 1024 * 1024
    wrong = [a if a != "mole_hill-2p-alphazero" else "arktia-2p-alphazero" for a in argv]
    wrong[wrong.index("mole_hill")] = "arktia"
    with pytest.raises(SystemExit) as refused:  # refused with the flags, before any export
        make_reference.main(wrong)
    assert refused.value.code == 2
    assert "network is for mole_hill" in capsys.readouterr().err.splitlines()[-1]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_make_reference_add_refuses_a_model_that_does_not_play(reference_folder, capsys) -> None:
    make_reference, folder, argv = reference_folder
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    source = argv[argv.index("--az") + 1]
    net = DenseNet.load(source)
    weight, bias = net.heads["policy"]
    net.heads["policy"] = (weight[:, :5], bias[:5])  # too few actions for the game
    net.save(source)
    with pytest.raises(SystemExit) as refused:  # the network is checked with the flags
        make_reference.main(argv)
    assert refused.value.code == 2
    assert "not an AlphaZero network" in capsys.readouterr().err.splitlines()[-1]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


@pytest.mark.slow
def test_evaluate_and_rate_keep_the_games_played(script, tmp_path, monkeypatch, capsys):
    from tabletop_zoo.baselines.evaluation import matches
    from tabletop_zoo.baselines.evaluation.arena import play_tasks

    monkeypatch.setattr(matches, "play_tasks", _dying(play_tasks))
    evaluate = script("evaluate")
    out = tmp_path / "out"
    (out).mkdir()
    (out / "games.csv").write_text("an earlier complete run\n")
    argv = ["--agents", "random,random", "--games", "4", "--workers", "2", "--no-progress"]
    assert evaluate.main([*argv, "--out", str(out)]) == 1
    assert _stopped(capsys.readouterr().err, out, "evaluate.py") == 1
    assert (out / "games.csv").read_text() == "an earlier complete run\n"
    rate = script("rate")
    argv = ["--game", "mole_hill", "--agent", "random", "--against", "random", "--rounds", "2"]
    argv += ["--workers", "2", "--csv", str(tmp_path / "games.csv"), "--out", str(tmp_path)]
    argv.append("--no-progress")
    assert rate.main(argv) == 1
    assert _stopped(capsys.readouterr().err, tmp_path, "rate.py") == 1
    assert not (tmp_path / "games.csv").exists()


@pytest.fixture(scope="module")
def failed_writes(tmp_path_factory) -> dict[str, dict]:
    """The cases of ``failing_writes.py``, run in one child process (one start-up)."""
    import json
    import os
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("full")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    argv = [sys.executable, "-m", "tests.scripts.failing_writes", str(root)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return {"root": root, **json.loads(done.stdout)}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(failing_writes.CASES))
def test_a_failing_write_is_one_line_and_keeps_the_previous_files(command, failed_writes):
    """A write past the file-size limit: ``'<file>': File too large`` in one line, exit 1;
    the files of the run before it as they were (a run's ``games.jsonl`` is its own record,
    replaced when it starts playing), no temporary file left. ``train``: its first
    checkpoint stays, the run can be resumed."""
    case = failed_writes[command]
    (line,) = case["err"]
    assert line.startswith(f"tabletop-zoo {command}: error: '") and line.endswith(
        "': File too large"
    ), line
    assert case["code"] == 1 and not case["temporaries"]
    assert case["changed"] == (["games.jsonl"] if command == "rate" else []), case
    if command == "train":
        from tabletop_zoo.baselines.training.checkpoint import load_checkpoint

        config, _state = load_checkpoint(failed_writes["root"] / "train/runs/r", "train")
        assert config["timesteps"] == 64
