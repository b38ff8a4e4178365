"""Mutation score of modules against a pytest selection: how many small, seeded source
mutants the tests notice.

    python scripts/lab/mutation_score.py --module envs/mole_hill/rules.py \\
        --tests "tests/envs/test_mole_hill_loaders.py" --mutants 40 --seed 0

The mutants (:data:`COMPARE_SWAPS`, :data:`BINOP_SWAPS`, integers +-1, ``and``/``or``
swapped, ``not`` dropped, conditions negated, ``raise`` -> ``pass``; see
:func:`mutants_of`) are drawn with ``--seed``. Each is written over the module in a copy of
the repository made once (never in your files), and ``pytest -x`` runs ``--tests`` there
in a subprocess, stopped after ``--timeout`` seconds (a timeout counts as detected). The
table gives per module mutants, killed, timeouts, survived (listed by line) and the score;
``--out FILE.json`` writes the same. The tests must pass on the unmutated copy first.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from tabletop_zoo.baselines import cli
from tabletop_zoo.envs._files import write_text_atomic
from tabletop_zoo.envs.errors import InvalidOptionError

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache", ".mypy_cache", "runs"
)
#: package-dir of this repository (pyproject.toml): the folders of tabletop_zoo's packages
PACKAGE_DIRS = ("envs", "wrappers", "baselines")
COMPARE_SWAPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip
BINOP_SWAPS = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
    ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    """One mutation: the source text ``start:end`` of the module replaced by ``text``."""

    line: int
    what: str
    start: int
    end: int
    text: str

    def apply(self, source: str) -> str:
        """``source`` with this mutation."""
        return source[: self.start] + self.text + source[self.end :]


def _variants(node: ast.AST) -> list[tuple[str, str]]:
    """(description, replacement source) of each mutation of one expression or statement."""
    out: list[tuple[str, str]] = []

    def swapped(old: ast.AST, new: type, change) -> None:
        """Record ``change(copy of node, new())``: operator ``old`` replaced by a ``new``."""
        mutated = copy.deepcopy(node)
        change(mutated, new())
        out.append((f"{type(old).__name__} -> {new.__name__}", f"({ast.unparse(mutated)})"))

    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAPS:
                swapped(op, COMPARE_SWAPS[type(op)], lambda c, new, i=i: c.ops.__setitem__(i, new))
    elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
        swapped(node.op, BINOP_SWAPS[type(node.op)], lambda c, new: setattr(c, "op", new))
    elif isinstance(node, ast.BoolOp):
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        swapped(node.op, new, lambda c, new: setattr(c, "op", new))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(("not dropped", f"({ast.unparse(node.operand)})"))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out += [(f"{node.value} -> {node.value + d}", f"({node.value + d})") for d in (1, -1)]
    elif isinstance(node, ast.Raise):
        out.append(("raise -> pass", "pass"))
    return out


def mutants_of(source: str) -> list[Mutant]:
    """Every mutant of ``source`` (a module's text) that still compiles, in source order."""
    tree = ast.parse(source)
    # f-strings: their parts' positions are not plain source
    skip = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    starts = [0, *accumulate(len(line) for line in source.splitlines(keepends=True))]

    def span(node: ast.AST) -> tuple[int, int]:
        return (
            starts[node.lineno - 1] + node.col_offset,
            starts[node.end_lineno - 1] + node.end_col_offset,
        )

    found: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "end_lineno"):
            continue
        if isinstance(node, ast.If | ast.While):
            start, end = span(node.test)
            text = f"not ({source[start:end]})"
            found.append(Mutant(node.lineno, "condition negated", start, end, text))
        found += [Mutant(node.lineno, what, *span(node), text) for what, text in _variants(node)]
    valid = []
    for mutant in sorted(found, key=lambda m: (m.start, m.what)):
        try:
            compile(mutant.apply(source), "<mutant>", "exec")
        except SyntaxError:
            continue
        valid.append(mutant)
    return valid


def _sandbox(root: Path, folder: Path) -> tuple[Path, dict[str, str]]:
    """Copy ``root`` into ``folder``; the copy and the environment its pytest runs with."""
    clone = folder / "repo"
    shutil.copytree(root, clone, ignore=IGNORED, symlinks=True)
    paths = [str(clone)]
    if (clone / "envs" / "_package").is_dir():  # this repository: tabletop_zoo from the copy
        site = folder / "site" / "tabletop_zoo"
        site.mkdir(parents=True)
        for item in (clone / "envs" / "_package").iterdir():
            (site / item.name).symlink_to(item)
        for name in PACKAGE_DIRS:
            (site / name).symlink_to(clone / name)
        paths.insert(0, str(site.parent))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*paths, os.environ.get("PYTHONPATH", "")]).rstrip(":"),
        "PYTHONDONTWRITEBYTECODE": "1",  # a mutant of the same size and second: no stale .pyc
        "NUMBA_CACHE_DIR": str(folder / "numba"),
        "OMP_NUM_THREADS": "1",
    }
    return clone, env


def _pytest(clone: Path, env: dict[str, str], tests: list[str], timeout: float) -> str:
    """Run the selection in ``clone``: ``"passed"``, ``"failed"`` or ``"timeout"``."""
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    process = subprocess.Popen(
        argv,
        cwd=clone,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        return "passed" if process.wait(timeout=timeout) == 0 else "failed"
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:  # a timeout or Ctrl-C (which then goes through): stop the run
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _module_path(root: Path, text: str) -> Path:
    """``text`` as a path relative to ``root``; ``InvalidOptionError`` if it is not a
    Python file of ``root`` that parses."""
    path = Path(text) if Path(text).is_absolute() else root / text
    if not path.is_file():
        raise InvalidOptionError(f"--module: no such file {text!r} under {str(root)!r}")
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        raise InvalidOptionError(f"--module: {text!r} is not inside {str(root)!r}") from None
    try:
        ast.parse(path.read_text())
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidOptionError(f"--module: {text!r} is not Python source ({exc})") from None
    return relative


def score(
    root: Path, modules: list[Path], tests: list[str], count: int, seed: int, timeout: float
) -> dict[str, dict]:
    """Per module (relative path): mutants run, killed, timeouts, survived and survivors."""
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="mutation_score_") as folder:
        clone, env = _sandbox(root, Path(folder))
        if modules and _pytest(clone, env, tests, timeout) != "passed":
            raise InvalidOptionError(
                f"the tests {shlex.join(tests)!r} do not pass on the unmutated code "
                f"(or take over --timeout {timeout:g} s)"
            )
        for module in modules:
            target = clone / module
            source = target.read_text()
            pool = mutants_of(source)
            chosen = sorted(
                random.Random(seed).sample(pool, min(count, len(pool))),
                key=lambda m: (m.start, m.what),
            )
            outcomes = []
            try:
                for mutant in chosen:
                    target.write_text(mutant.apply(source))
                    outcomes.append(_pytest(clone, env, tests, timeout))
            finally:
                target.write_text(source)  # the copy's module as it was
            results[str(module)] = {
                "available": len(pool),
                "mutants": len(chosen),
                "killed": outcomes.count("failed"),
                "timeouts": outcomes.count("timeout"),
                "survived": outcomes.count("passed"),
                "survivors": [
                    {"line": mutant.line, "mutation": mutant.what}
                    for mutant, outcome in zip(chosen, outcomes, strict=True)
                    if outcome == "passed"
                ],
            }
    return results


def table(results: dict[str, dict]) -> str:
    """The per-module table and the survivors, as printed."""
    lines = [f"{'module':40} {'mutants':>7} {'killed':>6} {'timeout':>7} {'survived':>8} score"]
    for module, t in results.items():
        detected = t["killed"] + t["timeouts"]
        pct = f"{100 * detected / t['mutants']:.0f}%" if t["mutants"] else "-"
        lines.append(
            f"{module:40} {t['mutants']:>7} {t['killed']:>6} {t['timeouts']:>7} "
            f"{t['survived']:>8} {pct} (of {t['available']} possible)"
        )
    for module, t in results.items():
        for s in t["survivors"]:
            lines.append(f"survived: {module}:{s['line']}: {s['mutation']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="Mutation score of modules against pytest tests.")
    p.add_argument(
        "--module",
        action="append",
        required=True,
        metavar="PATH",
        help="a Python file to mutate, relative to --root (repeatable)",
    )
    p.add_argument(
        "--tests",
        required=True,
        metavar="ARGS",
        help="pytest arguments, one string, e.g. 'tests/envs/test_x.py -k rule'",
    )
    p.add_argument(
        "--mutants",
        type=cli.integer(1, 100_000),
        default=40,
        help="mutants drawn per module (default 40)",
    )
    p.add_argument("--seed", type=cli.SEED, default=0, help="seed of the draw (default 0)")
    p.add_argument(
        "--timeout",
        type=cli.number(0, 86_400, low_open=True),
        default=120.0,
        help="seconds per pytest run (default 120)",
    )
    p.add_argument(
        "--root",
        default=str(ROOT),
        metavar="DIR",
        help="the repository to copy (default: this clone)",
    )
    p.add_argument(
        "--out",
        type=cli.output_file(".json"),
        metavar="FILE.json",
        help="also write the results as JSON",
    )
    args = p.parse_args(argv)
    with cli.usage_errors(p):  # shlex's "No closing quotation" too
        root = Path(args.root)
        if not root.is_dir():
            raise InvalidOptionError(f"--root: {args.root!r} is not a folder")
        tests = shlex.split(args.tests)
        if not tests:
            raise InvalidOptionError("--tests: give the pytest arguments (test files)")
        modules = [_module_path(root, text) for text in args.module]
    results = score(root, modules, tests, args.mutants, args.seed, args.timeout)
    print(table(results))
    if args.out:
        command = ["python", "scripts/lab/mutation_score.py", *(argv or sys.argv[1:])]
        data = {
            "command": shlex.join(command),
            "seed": args.seed,
            "tests": tests,
            "modules": results,
        }
        write_text_atomic(args.out, json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    cli.run_main(main)
