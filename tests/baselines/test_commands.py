"""The ``tabletop-zoo`` console script (``tabletop_zoo.baselines.commands``): its list of
commands, each command's help, an unknown command, the names in messages, and the
``rules`` command's pages shipped in the package."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from tabletop_zoo.baselines import cli, commands
from tabletop_zoo.baselines.commands import COMMANDS, rules
from tabletop_zoo.envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]


def dispatch(capsys, *argv: str) -> tuple[int, str, str]:
    """``tabletop-zoo *argv`` in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        commands.main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_help_lists_every_command_with_one_line(capsys) -> None:
    code, out, _err = dispatch(capsys, "--help")
    assert code == 0 and out.startswith("usage: tabletop-zoo ")
    for name, command in COMMANDS.items():
        (line,) = [x for x in out.splitlines() if x.split()[:1] == [name]]
        assert line.split(None, 1)[1] == command.summary


def test_no_command_shows_the_list_and_exits_2(capsys) -> None:
    code, out, err = dispatch(capsys)
    assert code == 2 and out == "" and "train-alphazero" in err


def test_an_unknown_command_is_one_line_and_exit_2(capsys) -> None:
    code, out, err = dispatch(capsys, "trian", "--game", "x")
    lines = err.splitlines()
    assert code == 2 and out == "" and lines[0].startswith("usage: tabletop-zoo")
    assert lines[-1].startswith("tabletop-zoo: error: argument COMMAND: invalid choice: 'trian'")
    assert len([x for x in lines if "error" in x]) == 1


def test_nothing_outside_the_commands_imports_them() -> None:
    """The commands are the top layer: the library never imports them."""
    importers = []
    for folder in ("envs", "wrappers", "baselines"):
        for path in (ROOT / folder).rglob("*.py"):
            if "commands" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                if any(n.startswith("tabletop_zoo.baselines.commands") for n in names):
                    importers.append(str(path.relative_to(ROOT)))
    assert importers == []


def test_every_module_of_the_package_is_a_command() -> None:
    folder = Path(commands.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    assert modules == {command.module for command in COMMANDS.values()}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_shows_its_help_under_its_name(capsys, name) -> None:
    module = COMMANDS[name].module
    if module == "ppo_vector" and not all(
        importlib.util.find_spec(m) for m in ("torch", "numba")
    ):  # it checks its extras before its flags
        pytest.skip("ppo-vector needs the train and fast extras")
    argv = ["ladder", "--help"] if name == "make-reference" else ["--help"]
    code, out, _err = dispatch(capsys, name, *argv)
    assert code == 0 and out.startswith(f"usage: tabletop-zoo {name} "), out[:200]
    assert cli.program("x.py") == "x.py"  # reset after the command


def test_a_missing_extra_names_the_command_as_typed(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    code, out, err = dispatch(capsys, "train", "--runs-dir", str(tmp_path))
    assert code == 1 and out == ""
    assert err.startswith("tabletop-zoo train: error: tabletop-zoo train needs the 'train' extra")
    assert len(err.splitlines()) == 1 and not any(tmp_path.iterdir())


def test_the_argv_of_the_process_is_restored(capsys) -> None:
    before = list(sys.argv)
    dispatch(capsys, "rules", "--help")
    assert sys.argv == before


# ---------------------------------------------------------------- rules


def test_every_game_ships_its_rules_page() -> None:
    pages = rules.pages()
    for name, spec in GAMES.items():
        if spec.help_module() is None:
            continue
        text = rules.rules_page(pages[name])
        assert text == (ROOT / "docs" / "rules" / pages[name]).read_text()  # the same page
        assert f"tabletop-zoo rules {name}" in spec.help_module().RULES_SUMMARY
    assert rules.rules_page(pages[rules.DECISIONS]).find("# ") >= 0


def test_rules_lists_shows_a_page_and_a_summary(capsys) -> None:
    code, out, _err = dispatch(capsys, "rules")
    assert code == 0 and {line.split()[0] for line in out.splitlines()} == set(rules.pages())
    game = next(iter(GAMES))
    code, out, _err = dispatch(capsys, "rules", game)
    page = rules.rules_page(rules.pages()[game])
    assert code == 0 and out.startswith("# ") and out.strip() in page
    code, out, _err = dispatch(capsys, "rules", game, "--summary")
    assert code == 0 and out == GAMES[game].help_module().RULES_SUMMARY + "\n"
