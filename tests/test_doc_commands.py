"""Every shell command of README.md and docs/**/*.md runs, as written or with a smaller
budget that a marker in the page names; a page that gains a command no test runs fails.

Every ```` ```bash ```` (or ``sh``/``shell``) block is a list of commands, run in order as one
bash script (``set -e``, ``pipefail``) in a sandbox: a temporary folder with the repository's
code folders linked in and a copy of ``docs/``, one per page, so a later block of a page
finds what an earlier one wrote (``runs/...``) and nothing in the repository is touched. A
block whose commands, budgets included, repeat an earlier block's word for word (a results
page and the dated note it cites) runs once, as the earlier block, and a command a page
repeats word for word (with its budget) runs once in that page's sandbox.
``python`` is this test's interpreter and ``tabletop-zoo`` the console script of its venv
(``pip install -e .`` installs it); stdin is empty (a terminal game ends at once). The long
pages' commands start from a pre-imported fork of it (``tests/served.py``), or afresh with
``TABLETOP_ZOO_TEST_SERVED=0``, as CI runs them.

A marker in an HTML comment on the line before a block changes how it is run; directives
are separated by ``;``::

    <!-- test: train.py --timesteps 2000 --eval-every 0; slow -->

``SCRIPT.py ARGS``
    appends ARGS to every command running ``scripts/SCRIPT.py`` (argparse keeps the last
    value of a repeated flag): the smaller budget of a long command.
``tabletop-zoo COMMAND ARGS``
    the same for every command running ``tabletop-zoo COMMAND``.
``sub OLD => NEW``
    replaces the text OLD in every command (placeholders such as a seed ``S``).
``before COMMAND``
    runs COMMAND first (e.g. trains the model file that the block reads).
``runs-for SECONDS [TEXT]``
    a command (with TEXT: each command containing TEXT) still running after SECONDS (a
    window waiting for a person) passes and is stopped; one that fails sooner fails.
``slow``
    marks the block's test slow (it still runs in CI).
``needs MODULE``
    runs only where MODULE imports; tests/rllib/test_doc_commands_ray.py runs these blocks
    in CI's second venv (Ray).
``run-by PATH``
    the block is run by another test or script (PATH, which must exist): installs and the
    test suite itself by ``.ci/run``, the cluster recipe by a test of tests/rllib.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from tests import served

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = re.compile(r"^```(?:bash|sh|shell)[^\n]*\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!--\s*test:((?:(?!-->).)*)-->\s*\Z", re.S)
LINKED = ("scripts", "envs", "wrappers", "baselines", "tests", "pyproject.toml", "README.md")
#: the console script (``[project.scripts]``) that documented commands may run
CONSOLE_SCRIPT = "tabletop-zoo"
#: a block must finish within this many seconds (a hang fails its page, not all of CI)
TIME_LIMIT = 900
#: Pages whose commands have no markers yet, with the reason: their blocks are reported as
#: expected failures (``pytest -ra`` lists them) instead of running for hours or rewriting
#: shipped files (``make_reference.py ladder`` writes the installed manifest). Remove a page
#: here once its blocks carry markers.
PENDING_PAGES: dict[str, str] = {}


@dataclass
class Block:
    """One shell block of a page and what its marker says."""

    page: str
    line: int
    commands: list[str]
    appended: dict[str, str] = field(default_factory=dict)
    substitutions: list[tuple[str, str]] = field(default_factory=list)
    before: list[str] = field(default_factory=list)
    runs_for: float | None = None
    runs_for_text: str = ""
    slow: bool = False
    needs: list[str] = field(default_factory=list)
    run_by: str | None = None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"

    def script(self, ran: set[str] | None = None) -> str:
        """The bash script that runs the block with its marker's budget; a command in
        ``ran`` (the page's commands run so far, word for word with their budgets) is not
        run again, and each command run is added to it."""
        lines = ["set -eo pipefail", *self.before]
        for command in self.commands:
            for old, new in self.substitutions:
                command = command.replace(old, new)
            command = self._with_budget(command)
            if ran is not None:
                if command in ran:
                    lines.append(f": ran above: {shlex.quote(command)}")
                    continue
                ran.add(command)
            if self.runs_for is not None and self.runs_for_text in command:
                command = (
                    f"timeout {self.runs_for:g} bash -c {shlex.quote(command)} "
                    "|| [ $? -eq 124 ]  # still running: it waits for a person"
                )
            lines.append(command)
        return "\n".join(lines) + "\n"

    def _with_budget(self, command: str) -> str:
        code, hash_sign, comment = _split_comment(command)
        for script, args in self.appended.items():
            words = r"\s+".join(map(re.escape, script.split()))  # "tabletop-zoo rate" too
            if re.search(rf"(^|[\s/]){words}(\s|$)", code):
                code = f"{code.rstrip()} {args}"
        return code.rstrip() + (f"  {hash_sign}{comment}" if hash_sign else "")


def _split_comment(command: str) -> tuple[str, str, str]:
    """``(code, "#", comment)`` of a command line (a ``#`` outside quotes starts a comment)."""
    quote = None
    for i, ch in enumerate(command):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or command[i - 1].isspace()):
            return command[:i], "#", command[i + 1 :]
    return command, "", ""


def parse_marker(block: Block, text: str) -> None:
    """Apply the directives of a marker's text to ``block`` (raises on an unknown one)."""
    for directive in (d.strip() for d in text.split(";")):
        if not directive:
            continue
        word, _, rest = directive.partition(" ")
        rest = rest.strip()
        if word == "slow" and not rest:
            block.slow = True
        elif word == "runs-for":
            seconds, _, text = rest.partition(" ")
            block.runs_for, block.runs_for_text = float(seconds), text.strip()
        elif word == "before":
            block.before.append(rest)
        elif word == "sub" and "=>" in rest:
            old, _, new = rest.partition("=>")
            block.substitutions.append((old.strip(), new.strip()))
        elif word == "needs":
            block.needs.append(rest)
        elif word == "run-by":
            block.run_by = rest
        elif word.endswith(".py") and rest:
            block.appended[word] = rest
        elif word == CONSOLE_SCRIPT and len(rest.split(None, 1)) == 2:
            command, args = rest.split(None, 1)
            block.appended[f"{CONSOLE_SCRIPT} {command}"] = args
        else:
            raise ValueError(f"{block.name}: unknown test directive {directive!r}")


def commands_of(body: str) -> list[str]:
    """The commands of a block: lines joined at a trailing backslash, comments-only out."""
    commands, current = [], ""
    for line in body.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        if current.strip() and not current.strip().startswith("#"):
            commands.append(current.strip())
        current = ""
    return commands


def shell_blocks(pages: list[Path] = PAGES) -> list[Block]:
    """Every shell block of ``pages`` with its marker applied."""
    blocks = []
    for path in pages:
        text = path.read_text()
        for match in SHELL.finditer(text):
            before = text[: match.start()]
            block = Block(
                page=str(path.relative_to(ROOT)),
                line=before.count("\n") + 1,
                commands=commands_of(match.group(1)),
            )
            marker = MARKER.search(before)
            if marker:
                parse_marker(block, marker.group(1))
            blocks.append(block)
    return blocks


BLOCKS = shell_blocks()
_SANDBOXES: dict[str, Path] = {}


def sandbox(page: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's folder: the code linked in, docs/ copied (commands may write there)."""
    if page not in _SANDBOXES:
        folder = tmp_path_factory.mktemp("doc_commands")
        for name in LINKED:
            (folder / name).symlink_to(ROOT / name)
        shutil.copytree(ROOT / "docs", folder / "docs")
        _SANDBOXES[page] = folder
    return _SANDBOXES[page]


def run_environment() -> dict[str, str]:
    """The commands' environment: this venv's ``python`` first on PATH, no windows."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        # the venv the installed packages are in (a venv layered on another one has them
        # in the lower one): where numpy is, lib/pythonX.Y/site-packages/numpy
        "VENV": str(Path(np.__file__).resolve().parents[4]),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
        "MPLBACKEND": "Agg",
    }


def runner_environment() -> dict[str, str]:
    """:func:`run_environment` with ``python`` and ``tabletop-zoo`` served by this
    process's pre-imported interpreter (``tests/served.py``; started on first use)."""
    return served.shared(run_environment()).env


def run_block(
    block: Block, folder: Path, script: str | None = None, preloaded: bool = False
) -> subprocess.CompletedProcess:
    """Run ``block`` (or its ``script``) in ``folder`` with this interpreter as ``python``
    (``preloaded``: served pre-imported, for the long pages, whose commands' start-up is most of
    their time)."""
    return subprocess.run(
        ["bash", "-c", block.script() if script is None else script],
        cwd=folder,
        env=runner_environment() if preloaded else run_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
    )


def _can_import(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def test_every_page_with_commands_is_seen_and_markers_parse() -> None:
    pages = {block.page for block in BLOCKS}
    assert "README.md" in pages and "docs/baselines.md" in pages
    block = Block("page.md", 1, ["python scripts/train.py  # demo", "pip install x"])
    parse_marker(block, " train.py --timesteps 500; sub demo => quick; before mkdir d; slow")
    assert block.script().splitlines() == [
        "set -eo pipefail",
        "mkdir d",
        "python scripts/train.py --timesteps 500  # quick",
        "pip install x",
    ]
    with pytest.raises(ValueError, match="unknown test directive"):
        parse_marker(block, "sleep 5")
    block = Block("page.md", 1, ["tabletop-zoo rate --game g  # r", "tabletop-zoo rates x"])
    parse_marker(block, "tabletop-zoo rate --rounds 1; slow")
    assert block.script().splitlines()[1:] == [
        "tabletop-zoo rate --game g --rounds 1  # r",
        "tabletop-zoo rates x",
    ]


def test_the_console_script_is_installed_where_the_commands_run() -> None:
    """Documented ``tabletop-zoo`` lines run the console script of this venv."""
    uses = [b.name for b in BLOCKS if any(CONSOLE_SCRIPT in c.split() for c in b.commands)]
    assert uses, "no page runs tabletop-zoo: drop this check"
    path = Path(sys.executable).parent / CONSOLE_SCRIPT
    assert path.is_file(), f"no {path}: 'pip install -e .' in the clone installs it ({uses[0]})"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_every_command_is_run_by_a_test(block: Block) -> None:
    """A block either runs here, or names the test or script that runs it."""
    if block.page in PENDING_PAGES:
        pytest.xfail(f"{block.page}: {PENDING_PAGES[block.page]}")
    assert block.commands, f"{block.name}: an empty shell block"
    if block.run_by is not None:
        assert (ROOT / block.run_by).is_file(), f"{block.name}: run-by {block.run_by}: no file"
    for module in block.needs:
        runner = ROOT / "tests" / "rllib" / "test_doc_commands_ray.py"
        assert module == "ray" and runner.is_file(), (
            f"{block.name}: 'needs {module}': no test runs blocks that need it"
        )


def first_of_each_script(blocks: list[Block]) -> tuple[list[Block], dict[str, str]]:
    """The blocks to run: a block whose script (commands with their budgets) repeats an
    earlier block's word for word runs once, as the earlier one; ``{repeat: first}``."""
    first: dict[str, Block] = {}
    repeats: dict[str, str] = {}
    for block in blocks:
        script = block.script()
        if script in first:
            repeats[block.name] = first[script].name
        else:
            first[script] = block
    return list(first.values()), repeats


RUN_HERE, REPEATS = first_of_each_script(
    [b for b in BLOCKS if b.run_by is None and b.page not in PENDING_PAGES]
)


def test_a_command_the_page_repeats_runs_once() -> None:
    first = Block("a.md", 1, ["python scripts/rate.py --game g", "ls"])
    again = Block("a.md", 9, ["python scripts/rate.py --game g", "pwd"])
    ran: set[str] = set()
    first.script(ran)
    assert again.script(ran).splitlines()[1:] == [
        ": ran above: 'python scripts/rate.py --game g'",
        "pwd",
    ]


def test_a_repeated_block_runs_once_as_the_first() -> None:
    one = Block("a.md", 1, ["python scripts/rate.py --game g"])
    parse_marker(one, "rate.py --rounds 1; slow")
    same, other = Block("b.md", 9, list(one.commands)), Block("b.md", 20, ["ls"])
    parse_marker(same, "rate.py --rounds 1")
    runs, repeats = first_of_each_script([one, same, other])
    assert runs == [one, other] and repeats == {"b.md:9": "a.md:1"}


def by_page(blocks: list[Block]) -> list[list[Block]]:
    """``blocks`` as one list per page and kind (the quick blocks, the slow ones), in page
    order: a page's blocks run in order in one test, since later blocks read what earlier
    ones wrote in the page's sandbox (and one test stays in one process when pytest-xdist
    spreads the tests over several)."""
    groups: dict[tuple[str, bool], list[Block]] = {}
    for block in blocks:
        groups.setdefault((block.page, block.slow), []).append(block)
    return list(groups.values())


PAGE_RUNS = by_page(RUN_HERE)


@pytest.mark.parametrize(
    "blocks",
    [pytest.param(run, marks=[pytest.mark.slow] * run[0].slow) for run in PAGE_RUNS],
    ids=[run[0].page + " (slow)" * run[0].slow for run in PAGE_RUNS],
)
def test_doc_commands_run(blocks: list[Block], tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each block of the page in order; the first that fails ends the test and is named."""
    ran, commands = 0, set()  # a command the page repeats word for word runs once
    for block in blocks:
        if any(not _can_import(module) for module in block.needs):
            continue  # run by tests/rllib/test_doc_commands_ray.py where Ray is installed
        script = block.script(commands)
        done = run_block(block, sandbox(block.page, tmp_path_factory), script, block.slow)
        assert done.returncode == 0, (
            f"{block.name} failed (exit {done.returncode}):\n{script}\n"
            f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        )
        ran += 1
    if not ran:
        pytest.skip("every block here needs Ray: run by tests/rllib/test_doc_commands_ray.py")
