"""Every command (``tabletop-zoo COMMAND``) and lab script (``python scripts/lab/X.py``),
driven with bad input in a subprocess: one error line on stderr (after argparse's usage
lines, if any), a non-zero exit, no traceback and nothing written; every shim
``scripts/X.py`` runs its command; Ctrl-C gives one line and exit 130; every ``--help``
lists every agent spec form. The table names commands by their module
(``train_alphazero`` is ``tabletop-zoo train-alphazero``)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop_zoo.baselines.agents import AGENT_SPECS
from tabletop_zoo.baselines.agents.reference import REFERENCE_DIR
from tabletop_zoo.baselines.commands import COMMANDS
from tabletop_zoo.baselines.evaluation.game_log import GameLog
from tabletop_zoo.baselines.evaluation.matches import MatchRecord

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
#: the command of each command module, e.g. ``{"train_alphazero": "train-alphazero"}``
COMMAND_OF = {command.module: name for name, command in COMMANDS.items()}
#: scripts/ tools that are not commands of the package: they work on the clone itself
DEV_TOOLS = {"regen_golden"}
GAME = "mole_hill"  # the smallest game: fastest to set up

# {tmp}: a fresh folder (the working folder); {file}: a file in it; {dir}: a folder in it;
# {missing}: a path that does not exist; {empty}, {truncated}, {garbage}: bad network files;
# {network}: a good network of GAME; {badcsv}: a run folder whose eval.csv is garbage;
# {otherrun}: a folder holding the record of the games of another run (games.jsonl);
# {policies}, {broken}, {raising}: Python files of policy factories (POLICIES), bad ones;
# {pyrun}: the record of a game of a py: agent.
G = ["--game", GAME]
LB = ["entry", *G, "--cpu-seconds", "1", "--out", "x", "--agent"]  # leaderboard.py entry
CASES: list[tuple[str, list[str], str]] = [
    ("evaluate", ["--out", ""], "output folder name is empty"),
    ("evaluate", ["--out", "{file}/sub"], "is a file, not a folder"),
    ("evaluate", ["--games", "0"], "must be an integer >= 1"),
    ("evaluate", ["--seed", "-1"], "must be an integer in 0..4294967295"),
    ("evaluate", ["--workers", "two"], "must be an integer in 1..256"),
    ("evaluate", ["--workers", "9" * 30], "must be an integer in 1..256"),
    ("evaluate", [*G, "--num-players", "7"], "is played by"),
    ("evaluate", ["--agents", "random,wizard"], "unknown agent spec 'wizard'"),
    ("evaluate", ["--agents", "random"], "at least 2 agents"),
    ("evaluate", [*G, "--agents", "random,az:{empty}"], "the file is empty"),
    ("evaluate", [*G, "--agents", "random,ppo:{missing}"], "no saved MaskablePPO model"),
    ("evaluate", [*G, "--agents", "random,ppo:{garbage}"], "MaskablePPO model from '{garbage}'"),
    ("evaluate", [*G, "--filler", "human"], "'human' is not allowed here"),
    ("evaluate", ["--out", "{missing}", "--resume"], "--resume: no record of a run in"),
    ("evaluate", [*G, "--out", "{otherrun}", "--resume"], "is the record of another run"),
    ("evaluate", [*G, "--agents", "random,py:{missing}:policy"], "{missing}': no such file"),
    ("evaluate", [*G, "--agents", "random,py:{file}:policy"], "{file}': not a .py file"),
    ("evaluate", [*G, "--agents", "random,py:{policies}"], "'py:FILE:FACTORY' needs a Python"),
    ("evaluate", [*G, "--agents", "random,py:{broken}:policy"], "failed: SyntaxError: "),
    ("evaluate", [*G, "--agents", "random,py:{raising}:policy"], "failed: ZeroDivisionError: "),
    ("evaluate", [*G, "--agents", "random,py:{policies}:nothing"], "has no 'nothing'"),
    ("evaluate", [*G, "--agents", "random,py:{policies}:number"], "number is not callable"),
    ("evaluate", [*G, "--agents", "random,py:{policies}:raising"], "raised OSError: no weights"),
    ("evaluate", [*G, "--agents", "random,py:{policies}:three"], "three() returned 3, not a"),
    ("evaluate", [*G, "--agents", "random,py:{policies}:illegal", "--no-progress"], "chose 99"),
    ("evaluate", [*G, "--agents", "random,py:{policies}:text", "--no-progress"], "chose 'up': not"),
    ("record", ["--from", "{pyrun}", "--html", "x.html"], "which runs code from its file"),
    ("ppo_vector", ["--eval-opponents", "py:{policies}:first"], "'py:' is not allowed here"),
    ("ppo_vector", ["--seed", "-1"], "must be an integer in 0..4294967295"),
    ("ppo_vector", ["--num-envs", "0"], "must be an integer in 1..65536, got 0"),
    ("ppo_vector", ["--torch-threads", "9" * 30], "must be an integer in 1..256"),
    ("ppo_vector", ["--hidden", "9" * 30], "must be an integer in 1..65536"),
    ("ppo_vector", ["--learning-rate", "nan"], "must be a number > 0, got 'nan'"),
    ("ppo_vector", ["--save", "{dir}"], "is a folder, not a file"),
    ("ppo_vector", ["--eval-opponents", "random,ppo:{missing}"], "no saved MaskablePPO model"),
    ("rate", [*G, "--agent", "random", "--csv", ""], "output file name is empty"),
    ("rate", [*G, "--agent", "random", "--csv", "{tmp}/x.txt"], "must end in .csv"),
    ("rate", [*G, "--agent", "random", "--rounds", "0"], "must be an integer >= 1"),
    ("rate", [*G, "--agent", "az:{truncated}"], "not a network file of ours"),
    ("rate", [*G, "--agent", "ppo:{empty}"], "cannot load a MaskablePPO model from '{empty}'"),
    ("rate", [*G, "--agent", "random,greedy"], "--agent takes one agent spec"),
    ("rate", [*G, "--agent", "random", "--against", "mcts:0"], "positive integer N"),
    ("rate", [*G, "--agent", "random", "--num-players", "3"], "is played by"),
    ("rate", [*G, "--agent", "random", "--out", ""], "output folder name is empty"),
    ("rate", [*G, "--agent", "random", "--out", "{otherrun}", "--resume"], "of another run"),
    ("record", [*G, "--agents", "greedy,random", "--out", ""], "output file name is empty"),
    ("record", [*G, "--agents", "greedy,random", "--out", "x.avi"], "must end in .gif or .mp4"),
    ("record", [*G, "--agents", "greedy,random", "--out", "x.gif", "--fps", "nan"], "number"),
    ("record", [*G, "--agents", "greedy", "--out", "x.gif"], "is played by"),
    ("record", [*G, "--agents", "greedy,random"], "one of --out (an animation) or --html"),
    ("record", [*G, "--agents", "greedy,random", "--html", "x.gif"], "--html: 'x.gif' must end in"),
    ("record", [*G, "--agents", "greedy,random", "--html", "{dir}"], "is a folder, not a file"),
    ("record", [*G, "--agents", "random,random", "--out", "x.gif", "--analysis"], "add --html"),
    ("record", ["--from", "{missing}", "--html", "x.html"], "--from: '{missing}': no such file"),
    ("record", ["--from", "{file}", "--html", "x.html"], "not a games record of tabletop-zoo"),
    ("leaderboard", ["write", "{missing}"], "{missing}: not a result.json"),
    ("leaderboard", ["write", "{file}"], "not a result.json"),
    ("leaderboard", ["tutorials", "{file}"], "cannot read a result"),
    ("leaderboard", [*LB, "nobody", "--budget", "env_steps=1"], "unknown agent spec 'nobody'"),
    ("leaderboard", [*LB, "random", "--budget", "env_steps=x"], "budget must be numbers >= 0"),
    ("leaderboard", [*LB, "random", "--budget", "steps"], "--budget needs KEY=VALUE"),
    ("seeds", [], "give run folders or --values"),
    ("seeds", ["--values", "1,x"], "finite numbers"),
    ("seeds", ["{dir}"], "no eval.csv"),
    ("seeds", ["{badcsv}"], "must be numbers"),
    ("seeds", ["--values", "0.5", "--plot", ""], "output file name is empty"),
    ("benchmark", ["--seconds", "0"], "must be a number > 0"),
    ("benchmark", ["--seconds", "nan"], "must be a number > 0"),
    ("benchmark", ["--out", ""], "output file name is empty"),
    ("benchmark", ["--out", "{dir}"], "is a folder, not a file"),
    ("benchmark", ["--only", "no-such-row"], "matches no env"),
    ("train_alphazero", [*G, "--learning-rate", "0"], "must be a number > 0"),
    ("train_alphazero", [*G, "--seed", "-3"], "must be an integer in 0..4294967295"),
    ("train_alphazero", [*G, "--game-option", "bogus=1"], "unknown game option 'bogus'"),
    ("train_alphazero", [*G, "--parallel-games", "0"], "must be an integer >= 1"),
    ("train_alphazero", [*G, "--leaves-per-game", "0"], "must be an integer >= 1"),
    ("train_alphazero", [*G, "--game-option", "novalue"], "needs KEY=VALUE"),
    ("train_alphazero", [*G, "--out", ""], "output file name is empty"),
    ("train_alphazero", [*G, "--out", "{tmp}/net.txt"], "must end in .npz"),
    ("train_alphazero", [*G, "--hidden", "a,b"], "--hidden: must be an integer in 1..65536, got"),
    ("train_alphazero", [*G, "--hidden", "64," + "9" * 30], "--hidden: must be an integer in"),
    ("train_alphazero", [*G, "--num-players", "5"], "num_players must be one of"),
    ("train_alphazero", [*G, "--opponent", "{garbage}"], "not a network file of ours"),
    ("train_alphazero", [*G, "--opponent", "ref:nothing"], "unknown reference model"),
    ("train_alphazero", [*G, "--opponent-share", "0"], "must be a number > 0 and <= 1"),
    ("train_alphazero", [*G, "--opponent-share", "0.5"], "--opponent-share needs --opponent"),
    ("time_agent", [*G, "--agent", "wizard"], "unknown agent spec"),
    ("self_play_speed", [*G, "--hidden", "0"], "--hidden: must be an integer in 1..65536"),
    ("self_play_speed", [*G, "--games", "0"], "must be an integer >= 1"),
    ("time_agent", [*G, "--agent", "az:{garbage}"], "not a network file of ours"),
    ("time_agent", [*G, "--agent", "ppo:{truncated}"], "MaskablePPO model from '{truncated}'"),
    ("time_agent", [*G, "--agent", "random", "--games", "0"], "must be an integer >= 1"),
    ("time_agent", [*G, "--agent", "random", "--num-players", "5"], "is played by"),
    ("mutation_score", ["--module", "{missing}", "--tests", "x.py"], "--module: no such file"),
    ("mutation_score", ["--module", "{file}", "--tests", "'x.py"], "No closing quotation"),
    ("mutation_score", ["--module", "{file}", "--tests", "x", "--mutants", "0"], "in 1..100000"),
    ("openspiel_match", ["--simulations", "1"], "must be an integer in 2..1000000"),
    ("openspiel_match", [*G, "--num-players", "9"], "is played by"),
    ("openspiel_match", ["--seed", "-1"], "must be an integer in 0..2147483647"),
    ("mcts_choices", ["--repeats", "1"], "must be an integer in 2..100000"),
    ("mcts_choices", ["--game", "chess"], "invalid choice"),
    ("mcts_choices", ["--their-simulations", "1"], "must be an integer in 2..1000000"),
    (
        "make_reference",
        ["add", "--name", "../x", *G, "--num-players", "2", "--az", "{network}", "--command", "c"],
        "--name must look like",
    ),  # fmt: skip
    (
        "make_reference",
        [
            "add",
            "--name",
            f"{GAME}-2p-x",
            *G,
            "--num-players",
            "2",
            "--az",
            "{empty}",
            "--command",
            "c",
        ],
        "the file is empty",
    ),  # fmt: skip
    (
        "make_reference",
        [
            "add",
            "--name",
            f"{GAME}-2p-x",
            *G,
            "--num-players",
            "2",
            "--ppo",
            "{missing}",
            "--command",
            "c",
        ],
        "--ppo: no file",
    ),  # fmt: skip
    (
        "make_reference",
        ["ladder", *G, "--num-players", "2", "--members", "random,wizard"],
        "unknown agent spec",
    ),  # fmt: skip
    (
        "make_reference",
        ["ladder", *G, "--num-players", "2", "--members", "random"],
        "at least 2",
    ),  # fmt: skip
    (
        "make_reference",
        ["ladder", *G, "--num-players", "2", "--members", "random,greedy", "--plot", ""],
        "output file name is empty",
    ),  # fmt: skip
    (
        "make_reference",
        [
            "ladder",
            *G,
            "--num-players",
            "2",
            "--members",
            "random,greedy",
            "--out",
            "{otherrun}",
            "--resume",
        ],
        "is the record of another run",
    ),  # fmt: skip
    (
        "make_reference",
        ["ladder", *G, "--num-players", "2", "--members", "random,greedy", "--out", "{file}/x"],
        "is a file, not a folder",
    ),  # fmt: skip
    ("play", ["--seed", "-1"], "must be an integer in 0..4294967295"),
    ("play", [*G, "--opponent", "wizard"], "unknown agent spec"),
    ("play", ["--delay", "nan"], "must be a number in 0..3600"),
    ("play", [*G, "--seat", "5"], "--seat must be in"),
    ("train", ["--seed", "-1"], "must be an integer in 0..4294967295"),
    ("train", ["--learning-rate", "inf"], "must be a number > 0"),
    ("train", ["--torch-threads", "9" * 30], "must be an integer in 1..256"),
    ("train", ["--n-envs", "9" * 30], "must be an integer in 1..256"),
    ("train", ["--net-arch", "9" * 30], "must be an integer in 1..65536"),
    ("train", ["--runs-dir", ""], "output folder name is empty"),
    ("train", [*G, "--name", "../elsewhere", "--runs-dir", "{tmp}"], "one folder name inside"),
    ("train", [*G, "--pool", "wizard", "--runs-dir", "{tmp}"], "unknown agent spec"),
    ("train", [*G, "--pool", "py:{policies}:first", "--runs-dir", "{tmp}"], "'py:' is not"),
    ("soak", ["--steps", "0"], "must be an integer >= 1"),
    ("soak", ["--seed", "x"], "must be an integer in 0..4294967295"),
    ("soak", ["--env-option", "max_turns"], "--env-option needs KEY=VALUE"),
    ("soak", ["--env-option", "max_turns=0"], "max_turns"),
    ("soak", ["--num-players", "3"], "--num-players needs --game"),
    ("soak", [*G, "--env-option", "colour=red"], "unknown option"),
    ("regen_golden", ["--bogus"], "unrecognized arguments"),
    ("rules", ["chess"], "invalid choice: 'chess'"),
    ("rules", ["--summary"], "--summary needs a game"),
    ("az_curve", ["{missing}", *G], "no network file"),
    ("az_curve", ["{empty}", *G], "the file is empty"),
    ("az_curve", ["{network}", *G, "--plot", ""], "output file name is empty"),
    ("az_curve", ["{network}", *G, "--against", "wizard"], "unknown agent spec"),
    ("az_curve", ["{network}", *G, "--simulations", "0"], "must be an integer >= 1"),
    ("bridge_speed", ["no-such-library"], "invalid choice"),
    ("bridge_speed", ["openspiel", "--seconds", "0"], "must be a number > 0"),
    ("train", ["--resume", "{dir}"], "not a resumable run of train (no "),
    ("train", ["--checkpoint-every", "nan"], "must be a number >= 0, got 'nan'"),
    ("train_alphazero", ["--resume", "{missing}"], "not a resumable run of train-alphazero"),
    ("train_alphazero", ["--resume", "{missing}", *G], "leave out --game"),
    ("ppo_vector", ["--resume", "{garbage}"], "not a resumable run of ppo-vector"),
    ("ppo_vector", ["--checkpoint-every", "-1"], "must be a number >= 0, got '-1'"),
    ("train_rllib", ["--iterations", "0"], "must be an integer >= 1"),
    ("train_rllib", ["--hidden", "abc"], "--hidden: must be an integer in 1..65536"),
    ("train_rllib", ["--out", ""], "output folder name is empty"),
    ("train_rllib", [*G, "--opponent", "wizard"], "unknown agent spec"),
]


POLICIES = """
number = 3
def first(): return lambda observation, mask: int(mask.nonzero()[0][0])
def raising(): raise OSError("no weights at model.pt")
def three(): return 3
def illegal(): return lambda observation, mask: 99
def text(): return lambda observation, mask: "up"
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """The placeholders of CASES, made once."""
    folder = tmp_path_factory.mktemp("inputs")
    network = REFERENCE_DIR / f"{GAME}-2p-alphazero.npz"  # a good network of GAME
    (folder / "empty.npz").write_bytes(b"")
    (folder / "truncated.npz").write_bytes(network.read_bytes()[:200])
    (folder / "garbage.npz").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    (folder / "a_file.txt").write_text("x")
    (folder / "a_dir").mkdir()
    (folder / "run").mkdir()
    (folder / "run" / "eval.csv").write_text("timesteps,opponent,win_rate\nmany,random,high\n")
    (folder / "otherrun").mkdir()  # the record of the games of another run
    header = GameLog(folder / "otherrun", {"command": "another"}).header
    (folder / "otherrun" / "games.jsonl").write_text(header + "\n")
    (folder / "broken.py").write_text("def policy(:\n")
    (folder / "raising.py").write_text("1 / 0\n")
    (folder / "policies.py").write_text(POLICIES)
    pyrun = GameLog(folder / "pyrun", {"command": "evaluate"})  # a record naming a py: agent
    seats = (f"py:{folder / 'policies.py'}:first", "random")
    pyrun.add(0, MatchRecord(GAME, 2, (0, 1), seats, (1.0, -1.0), (5, 3), 40, 7))
    pyrun.finish()
    return {
        "file": str(folder / "a_file.txt"),
        "dir": str(folder / "a_dir"),
        "missing": str(folder / "missing.npz"),
        "empty": str(folder / "empty.npz"),
        "truncated": str(folder / "truncated.npz"),
        "garbage": str(folder / "garbage.npz"),
        "network": str(network),
        "badcsv": str(folder / "run"),
        "otherrun": str(folder / "otherrun"),
        **{name: str(folder / f"{name}.py") for name in ("broken", "raising", "policies")},
        "pyrun": str(folder / "pyrun"),
    }


def script_path(name: str) -> Path:
    """``scripts/<name>.py``, or ``scripts/<folder>/<name>.py`` (lab scripts)."""
    (path,) = SCRIPTS.rglob(f"{name}.py")
    return path


def console_script() -> Path:
    """The ``tabletop-zoo`` console script of this test's venv (``pip install -e .``)."""
    path = Path(sys.executable).parent / "tabletop-zoo"
    assert path.is_file(), f"no {path}: 'pip install -e .' in the clone installs it"
    return path


def command_line(name: str) -> list[str]:
    """How the table runs ``name``: ``tabletop-zoo COMMAND`` for a command's module, else
    ``python scripts/.../<name>.py``."""
    if name in COMMAND_OF:
        return [str(console_script()), COMMAND_OF[name]]
    return [sys.executable, str(script_path(name))]


def program_name(name: str) -> str:
    """How ``name`` names itself in its error lines."""
    return f"tabletop-zoo {COMMAND_OF[name]}" if name in COMMAND_OF else f"{name}.py"


def run_script(name: str, argv: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    """``name`` (see :func:`command_line`) with ``argv`` in ``cwd``, output captured."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    return subprocess.run(
        [*command_line(name), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


def error_lines(stderr: str) -> list[str]:
    """The lines of ``stderr`` after argparse's usage block (if there is one)."""
    lines = stderr.splitlines()
    if lines and lines[0].startswith("usage:"):
        lines = lines[1:]
        while lines and lines[0].startswith(" "):
            lines = lines[1:]
    return lines


def _case_id(case: tuple[str, list[str], str]) -> str:
    name, argv, _message = case
    return f"{name}:{' '.join(a for a in argv if a != GAME)}"[:60]


def _table_params() -> list:
    """The cases as parameters: each command's first case runs in the default test run, the
    others with the long tests (``-m slow``; each case is a process that imports the
    package, about a CPU-second)."""
    seen: set[str] = set()
    params = []
    for case in CASES:
        marks = [pytest.mark.slow] if case[0] in seen else []
        seen.add(case[0])
        params.append(pytest.param(case, id=_case_id(case), marks=marks))
    return params


@pytest.mark.slow
@pytest.mark.parametrize("case", _table_params())
def test_bad_input_is_one_line_and_a_nonzero_exit(case, files, tmp_path) -> None:
    name, argv, message = case
    values = {**files, "tmp": str(tmp_path)}
    argv = [a.format(**values) for a in argv]
    message = message.format(**values)  # the file a message names
    result = run_script(name, argv, cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (1, 2), (result.returncode, result.stderr)
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"{program_name(name)}: error: ") or lines[0].startswith(
        f"{program_name(name)} "  # make_reference's subcommands: "... make-reference add"
    ), lines[0]
    assert ": error: " in lines[0] and message in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_every_command_and_script_is_in_the_table() -> None:
    tools = {p.stem for p in SCRIPTS.rglob("*.py") if p.parent != SCRIPTS}  # scripts/lab/
    every = set(COMMAND_OF) | tools | DEV_TOOLS
    assert {name for name, _argv, _message in CASES} == every


def shims() -> list[str]:
    """The scripts of ``scripts/`` that run a command (all but the dev tools)."""
    return sorted(p.stem for p in SCRIPTS.glob("*.py") if p.stem not in DEV_TOOLS)


def test_every_script_of_scripts_is_a_shim_of_a_command() -> None:
    assert set(shims()) == set(COMMAND_OF) - {"rules"}  # rules: no script before the move
    for name in shims():
        text = script_path(name).read_text()
        assert f'run_script("{name}")' in text and len(text.splitlines()) < 10, name


@pytest.mark.slow
@pytest.mark.parametrize("name", shims())
def test_a_shim_runs_its_command_under_the_script_name(name, tmp_path) -> None:
    """``python scripts/X.py`` in a clone: the command's parser, named ``X.py`` as before."""
    result = subprocess.run(
        [sys.executable, str(script_path(name)), "--no-such-flag"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    (line,) = error_lines(result.stderr)
    assert line.startswith(f"{name}.py: error: "), line
    assert result.stderr.startswith(f"usage: {name}.py "), result.stderr


@pytest.mark.slow
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path, start_for_ctrl_c) -> None:
    process = start_for_ctrl_c(
        sys.executable, script_path("soak"), "--steps", "100000000", *G, cwd=tmp_path
    )
    try:
        assert process.stdout.readline().startswith("game")  # the header: it is playing now
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    expected = "soak.py: interrupted: the rows printed above are complete\n"
    assert (process.returncode, err) == (130, expected)  # both shown when it fails


@pytest.mark.slow
def test_ctrl_c_during_a_rating_keeps_the_finished_games(tmp_path, start_for_ctrl_c) -> None:
    csv_path = tmp_path / "games.csv"
    process = start_for_ctrl_c(
        sys.executable,
        script_path("rate"),
        *G,
        "--agent",
        "random",
        "--against",
        "random",
        "--rounds",
        "100000",
        "--no-progress",
        "--csv",
        str(csv_path),
        "--out",
        "out",
        cwd=tmp_path,
    )
    try:
        record, deadline = tmp_path / "out" / "games.jsonl", time.monotonic() + 240
        while not record.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)  # until a game is recorded (when depends on the machine's load)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    (line,) = err.splitlines()
    assert line.startswith("rate.py: interrupted: ") and line.endswith("--out out --resume")
    games = int(line.split("interrupted: ")[1].split()[0])
    assert f"{games} games recorded in out/games.jsonl; to play the rest: " in line
    assert not csv_path.exists()  # written when every game is played
    rows = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    assert len(rows) == games + 1  # the header and one line per game


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("evaluate", []),
        ("rate", []),
        ("record", []),
        ("play", []),
        ("train", []),
        ("time_agent", []),
        ("make_reference", ["ladder"]),
        ("az_curve", []),
        ("train_rllib", []),
    ],
)
def test_help_lists_every_agent_spec_form(capsys, name, argv) -> None:
    if name in COMMAND_OF:  # the command's module, which the console script and shim run
        path = Path(importlib.import_module(f"tabletop_zoo.baselines.commands.{name}").__file__)
    else:
        path = script_path(name)
    spec = importlib.util.spec_from_file_location(f"_help_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as exc:
        module.main([*argv, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for form in AGENT_SPECS:
        if form != "human":
            assert form in text, (name, form)
