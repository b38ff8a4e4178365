"""The shape of the house (``docs/DESIGN.md``), checked on the source files.

* every package folder is listed in ``pyproject.toml`` (else it silently fails to install);
* engine rule modules import no gymnasium / pettingzoo / torch / pygame (nor numpy);
* import layers: envs imports neither wrappers nor baselines; wrappers imports only
  ``tabletop_zoo.baselines.agents``; the agents layer imports neither wrappers nor the
  evaluation/training layers; agents, evaluation and training import no flags (``cli.py``,
  the commands, argparse); no private method is called from another package;
* no code outside a game's own places names the game (iterate ``GAMES`` instead);
* baselines: its three layers are sub-packages; evaluation imports nothing of training;
  agents and evaluation import torch / SB3 only inside the functions that need them;
* sizes count code as ``ruff format`` writes it (``# fmt: skip`` kept only on data tables,
  at most 30): a rules engine (``envs/<game>/rules.py``, ``fast/kernels.py``) at most 750
  lines, a test file 600, any other module 400; the source and baselines/ keep to their
  budgets; no function over 80 lines outside the rules engines;
* no two package modules import each other in a circle, counting imports inside functions
  and ``__main__`` blocks;
* each game is a declared bundle: every module its ``GameSpec`` names imports and exposes
  what it must (the Nim toy, which declares no gui, help or compiled engine, included);
  a compiled twin lives in the game's ``fast/`` package.

The layer checks read the files with ``ast`` (each parsed once); the bundle checks import the
parts.
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import re
import subprocess
import sys
import tempfile
import tokenize
import tomllib
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES, GameSpec, fast_path_available
from tests.envs.nim_game import NIM_SPEC

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
#: pyproject's package-dir: folder -> package (e.g. envs/_package is the package tabletop_zoo)
PACKAGE_DIRS = {folder: package for package, folder in SETUPTOOLS["package-dir"].items()}
RL_MODULES = {"gymnasium", "pettingzoo", "torch", "pygame", "numpy", "stable_baselines3"}
#: File names of the pure engine modules in every game folder (plus shared pure modules).
ENGINE_MODULE_NAMES = {
    "rules.py",
    "serialization.py",
    "board.py",
    "layout.py",
    "actions.py",
    "constants.py",
    "reachability.py",
    "text.py",
}
SHARED_PURE_MODULES = ["envs/protocol.py", "envs/_json.py", "envs/errors.py", "envs/results.py"]


def _module_name(path: Path) -> str:
    """``tabletop_zoo.…`` name of a source file, by the innermost folder of package-dir."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    for cut in range(len(parts) - 1, 0, -1):
        package = PACKAGE_DIRS.get("/".join(parts[:cut]))
        if package is not None:
            rest = [p for p in parts[cut:] if p != "__init__"]
            return ".".join([package, *rest])
    raise ValueError(f"{path} is in no folder of package-dir")


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once for all the checks (read only)."""
    return ast.parse(path.read_text(), filename=str(path))


def _imports(path: Path, top_level_only: bool = False) -> list[str]:
    """Absolute names of the modules ``path`` imports (``from x import y`` gives x and x.y;
    a relative import only in a package)."""
    tree = _tree(path)
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = _module_name(path)
                if path.name != "__init__.py":
                    package = package.rsplit(".", 1)[0]
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]
    return names


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


# ---------------------------------------------------------------- packaging
def test_every_package_folder_is_listed_in_pyproject() -> None:
    tops = ("envs", "wrappers", "baselines")
    folders = {_module_name(init) for top in tops for init in (ROOT / top).rglob("__init__.py")}
    missing = sorted(folders - set(SETUPTOOLS["packages"]))
    assert not missing, f"add these packages to [tool.setuptools] packages: {missing}"


# ---------------------------------------------------------------- pure engines
def _engine_modules() -> list[Path]:
    game_folders = [ROOT / "envs" / spec.name for spec in GAMES.values()]
    found = [p for folder in game_folders for p in folder.glob("*.py")]
    return sorted(p for p in found if p.name in ENGINE_MODULE_NAMES) + [
        ROOT / p for p in SHARED_PURE_MODULES
    ]


@pytest.mark.parametrize("path", _engine_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_modules_import_no_rl_or_drawing_library(path: Path) -> None:
    seen: set[Path] = set()
    todo = [path]
    while todo:  # follow our own imports: a pure module imports only pure modules
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for name in _imports(current, top_level_only=True):
            top = name.split(".")[0]
            assert top not in RL_MODULES, f"{current.relative_to(ROOT)} imports {name}"
            if name.startswith("tabletop_zoo.envs."):
                rel = name.removeprefix("tabletop_zoo.envs.").replace(".", "/")
                for candidate in (ROOT / "envs" / f"{rel}.py", ROOT / "envs" / rel / "__init__.py"):
                    if candidate.exists():
                        todo.append(candidate)


# ---------------------------------------------------------------- import layers
#: Layer folder -> the modules above it, which it never imports: envs is the bottom layer;
#: agents is below evaluation, evaluation below training; the flags (baselines/cli.py, the
#: commands) are above these three, which take values checked where they are used.
KIT = ("tabletop_zoo.baselines.cli", "tabletop_zoo.baselines.commands", "argparse")
TRAINING, EVALUATION = "tabletop_zoo.baselines.training", "tabletop_zoo.baselines.evaluation"
ABOVE = {
    "envs": ("tabletop_zoo.wrappers", "tabletop_zoo.baselines"),
    "baselines/agents": (*KIT, "tabletop_zoo.wrappers", EVALUATION, TRAINING),
    "baselines/evaluation": (*KIT, TRAINING),
    "baselines/training": KIT,
}


@pytest.mark.parametrize("layer", list(ABOVE))
def test_a_layer_imports_no_higher_layer(layer: str) -> None:
    assert (ROOT / layer / "__init__.py").is_file() or layer == "envs", f"{layer}: a package"
    for path in _sources(layer):
        found = [name for name in _imports(path) if name.startswith(ABOVE[layer])]
        assert not found, f"{path.relative_to(ROOT)} imports {found}: a higher layer"


def test_wrappers_import_only_the_agents_layer_of_baselines() -> None:
    for path in _sources("wrappers"):
        for name in _imports(path):
            if name.startswith("tabletop_zoo.baselines"):
                assert name.startswith("tabletop_zoo.baselines.agents"), (
                    f"{path.relative_to(ROOT)} imports {name}: wrappers may import only "
                    "tabletop_zoo.baselines.agents"
                )


def test_agents_and_evaluation_import_torch_and_sb3_only_inside_functions() -> None:
    """Importing these layers stays light: torch and SB3 load only where a function needs them."""
    heavy = {"torch", "stable_baselines3", "sb3_contrib"}
    for path in _sources("baselines/agents", "baselines/evaluation"):
        found = [n for n in _imports(path, top_level_only=True) if n.split(".")[0] in heavy]
        assert not found, f"{path.relative_to(ROOT)} imports {found} at module level"


def _foreign_private_calls(paths: list[Path]) -> list[str]:
    """Calls ``obj._name(...)`` (``obj`` not ``self``, ``cls`` or ``super()``) in ``paths``
    of a ``_name`` that ``paths`` define, but not in the caller's package (folder)."""
    defined: dict[str, set[Path]] = {}
    calls = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defined.setdefault(node.name, set()).add(path.parent)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name, owner = node.func.attr, ast.unparse(node.func.value)
                if name.startswith("_") and not name.endswith("__"):
                    if owner not in ("self", "cls", "super()"):
                        calls.append((path, node.lineno, f"{owner}.{name}", name))
    return [
        f"{path.parent.name}/{path.name}:{line} calls {call}"
        for path, line, call, name in calls
        if name in defined and path.parent not in defined[name]
    ]


def test_no_private_method_is_called_from_another_package(tmp_path: Path) -> None:
    """Another package's methods are called by their public names (the compiled engines'
    unchecked calls are the ``*_trusted`` twins of ``FastEngine``)."""
    assert _foreign_private_calls(_sources("envs", "wrappers", "baselines", "scripts")) == []
    (tmp_path / "engine").mkdir()
    (tmp_path / "search").mkdir()
    (tmp_path / "engine" / "base.py").write_text("class E:\n    def _step(self): ...\n")
    (tmp_path / "search" / "loop.py").write_text("def go(e):\n    e._step()\n    e.step()\n")
    found = _foreign_private_calls(sorted(tmp_path.rglob("*.py")))
    assert found == ["search/loop.py:2 calls e._step"]


# ---------------------------------------------------------------- game names
def _game_name_pattern() -> re.Pattern[str]:
    words = set()
    for spec in GAMES.values():
        for word in (spec.name, spec.title):
            words |= {word, word.replace("_", " "), word.replace("_", ""), word.replace(" ", "")}
    return re.compile("|".join(sorted(map(re.escape, words))), re.IGNORECASE)


def _allowed(path: Path) -> bool:
    rel = path.relative_to(ROOT)
    if rel == Path("envs/registry.py"):
        return True
    for spec in GAMES.values():
        if rel.parts[:2] == ("envs", spec.name) or rel == Path("envs", f"{spec.name}_v0.py"):
            return True
    return False


def _code_words(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of the names and non-docstring strings of a module."""
    tree = _tree(path)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                words.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            words.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            words.append((node.lineno, node.attr))
        elif isinstance(node, ast.alias):
            words.append((getattr(node, "lineno", 0), node.name))
        elif isinstance(node, ast.ImportFrom) and node.module:
            words.append((node.lineno, node.module))
    return words


def test_no_code_names_a_game_outside_its_places() -> None:
    pattern = _game_name_pattern()
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in _sources("envs", "wrappers", "baselines", "scripts")
        if not _allowed(path)
        for line, text in _code_words(path)
        if pattern.search(text)
    ]
    assert not found, "iterate GAMES instead of naming a game:\n" + "\n".join(found)


# ---------------------------------------------------------------- sizes
SOURCE = ("envs", "wrappers", "baselines", "scripts")
#: Line caps by kind of file, counted as formatted (:func:`_formatted_lines`).
RULES_ENGINE_LINES, TEST_FILE_LINES = 750, 600
MODULE_LINES = 400  # any other module: read in one sitting
#: Modules over ``MODULE_LINES`` today, held at their present size: to be split (only shrinks).
TO_BE_SPLIT = {"envs/arktia/fast/batch.py": 412}
#: Line budgets of the source as formatted: a new feature makes its room elsewhere.
SOURCE_BUDGETS = {("baselines",): 11_000, SOURCE: 25_000}
#: Formatter markers. Only ``# fmt: skip`` closing a data table is honoured, at most 30 of them.
FORMAT_MARKER = re.compile(r"fmt:\s*(skip|off|on)\b|yapf:\s*(disable|enable)\b")
MAX_FORMAT_SKIPS = 30
DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict)
DATA = (*DISPLAYS, ast.Constant, ast.Name, ast.Attribute, ast.Load, ast.UnaryOp, ast.USub)


def _is_rules_engine(path: Path) -> bool:
    """A game's rules engine: ``envs/<game>/rules.py`` or its compiled twin's kernels."""
    parts = path.relative_to(ROOT).parts
    return parts[0] == "envs" and (parts[-1] == "rules.py" or parts[-2:] == ("fast", "kernels.py"))


def _is_data_table(node: ast.AST) -> bool:
    """An assignment of a tuple, list, set or dict display of constants and (dotted) names,
    signed numbers allowed: data, no code."""
    value = getattr(node, "value", None)
    return (
        isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(value, DISPLAYS)
        and all(isinstance(n, DATA) for n in ast.walk(value))
    )


def _format_markers(path: Path) -> list[tuple[int, int, bool]]:
    """``(line, column, honoured)`` of each formatter marker in ``path``'s comments; honoured:
    a ``# fmt: skip`` closing a data table."""
    text = path.read_text()
    if "fmt:" not in text and "yapf:" not in text:
        return []
    tables = {node.end_lineno for node in ast.walk(_tree(path)) if _is_data_table(node)}
    return [
        (token.start[0], token.start[1], match[1] == "skip" and token.start[0] in tables)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT and (match := FORMAT_MARKER.search(token.string))
    ]


@functools.cache
def _formatted_lines() -> dict[Path, int]:
    """Lines of each source and test file as ``ruff format`` writes it, after removing every
    marker comment but the honoured ones: the code counted, not its line breaks (one ruff run)."""
    with tempfile.TemporaryDirectory() as folder:
        copies = {p: Path(folder, p.relative_to(ROOT)) for p in _sources(*SOURCE, "tests")}
        for path, copy in copies.items():
            lines = path.read_text().splitlines(keepends=True)
            for line, column, honoured in _format_markers(path):
                if not honoured:
                    lines[line - 1] = lines[line - 1][:column].rstrip() + "\n"
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text("".join(lines))
        ruff = [sys.executable, "-m", "ruff", "format", "-q", "--config", ROOT / "pyproject.toml"]
        subprocess.run([*ruff, folder], check=True)
        return {path: len(copy.read_text().splitlines()) for path, copy in copies.items()}


def _cap(path: Path) -> int:
    """A file's line cap: a test file's, a rules engine's, a module's to be split (its size
    today) or any other module's. Test files split by topic, mirroring the package."""
    where = str(path.relative_to(ROOT))
    if where.startswith("tests/"):
        return TEST_FILE_LINES
    return RULES_ENGINE_LINES if _is_rules_engine(path) else TO_BE_SPLIT.get(where, MODULE_LINES)


def test_modules_are_short_enough_to_read_in_one_sitting() -> None:
    counted = _formatted_lines()
    long = [f"{p.relative_to(ROOT)}: {n} > {_cap(p)}" for p, n in counted.items() if n > _cap(p)]
    assert not long, f"split these files (lines as formatted > cap): {long}"
    split = [where for where in TO_BE_SPLIT if counted.get(ROOT / where, 0) <= MODULE_LINES]
    assert not split, f"remove from TO_BE_SPLIT (now at most {MODULE_LINES} lines): {split}"


@pytest.mark.parametrize("folders", list(SOURCE_BUDGETS), ids="+".join)
def test_the_source_stays_within_its_line_budget(folders: tuple[str, ...]) -> None:
    counted = _formatted_lines().items()
    lines = sum(n for path, n in counted if path.relative_to(ROOT).parts[0] in folders)
    budget = SOURCE_BUDGETS[folders]
    assert lines <= budget, f"{'+'.join(folders)}: {lines} lines, over the budget of {budget:,}"


def test_a_data_table_is_an_assignment_of_data() -> None:
    tables = "T = {1: (-2, 'a'), x.y: [None]}\nT: dict = {}\n(A, B) = (0, 1)"
    assert all(_is_data_table(node) for node in ast.parse(tables).body)
    code = "T = [f(x)]\nT = (1 + 2,)\nT = (not x,)\nT = range(3)\nf((1, 2))"
    assert not any(_is_data_table(node) for node in ast.parse(code).body)


def test_format_markers_keep_only_data_tables_in_columns() -> None:
    """``# fmt: skip`` only closing a data table, at most 30 in the source; no ``fmt: off``."""
    markers = [(p.relative_to(ROOT), m) for p in _sources(*SOURCE) for m in _format_markers(p)]
    on_code = [f"{where}:{line}" for where, (line, _, honoured) in markers if not honoured]
    assert not on_code, f"unpack these (a marker only on a data table): {on_code}"
    assert len(markers) <= MAX_FORMAT_SKIPS, f"{len(markers)} markers, over {MAX_FORMAT_SKIPS}"


MAX_FUNCTION_LINES = 80


def test_no_function_outside_the_rules_engines_is_over_80_lines() -> None:
    """A function reads on one screen; the rules engines and their kernels are exempt.

    Exempt are exactly the files :func:`_is_rules_engine` names (``envs/<game>/rules.py`` and
    ``envs/<game>/fast/kernels.py``): a rule is written once, in the book's order.
    """
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length}"
        for path in _sources(*SOURCE)
        if not _is_rules_engine(path)
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert not long, f"split these functions (at most {MAX_FUNCTION_LINES} lines): {long}"


# ---------------------------------------------------------------- import circles
def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports, at the top, inside a function or in its
    ``if __name__ == "__main__":`` block (an entry point that imports its importers is a circle
    to read, though it runs as ``__main__``).

    A package's ``__init__`` is left out: it only re-exports its modules, and an edge to it
    would make every module that reads a name of its package part of a circle.
    """
    modules = {
        _module_name(path): path
        for path in _sources("envs", "wrappers", "baselines")
        if path.name != "__init__.py"
    }
    return {
        module: {name for name in _imports(path) if name in modules and name != module}
        for module, path in modules.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []
    for start in sorted(graph):
        if start in order:
            continue
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == order[module]:
                    component = stack[stack.index(module) :]
                    del stack[stack.index(module) :]
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif target not in order:
                order[target] = low[target] = len(order)
                stack.append(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in stack:
                low[module] = min(low[module], order[target])
    return circles


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_import_circles_even_through_function_level_imports() -> None:
    circles = _circles(_import_graph())
    assert not circles, "these modules import each other (in a circle): " + "; ".join(
        " <-> ".join(circle) for circle in circles
    )


# ---------------------------------------------------------------- each game a bundle
BUNDLE_SPECS = [*GAMES.values(), NIM_SPEC]


def _import_part(path: str) -> object:
    """The object a spec names: ``"module:attribute"`` or a plain module."""
    module, _, name = path.partition(":")
    imported = importlib.import_module(module)
    return getattr(imported, name) if name else imported


@pytest.mark.parametrize("spec", BUNDLE_SPECS, ids=lambda s: s.name)
def test_every_part_a_spec_names_imports_and_exposes_its_names(spec: GameSpec) -> None:
    face = _import_part(spec.env_module)
    assert callable(face.env) and callable(face.raw_env)
    game_class = _import_part(spec.engine)
    state = game_class(num_players=spec.default_players).new_initial_state()
    for method in ("legal_actions", "apply_action", "is_terminal", "returns", "to_json"):
        assert callable(getattr(state, method)), f"{spec.name} state lacks {method}"
    encoder = spec.make_observation_encoder(state.game)
    assert encoder.encode(state, 0).shape == tuple(encoder.shape)
    assert len(encoder.plane_names()) == encoder.shape[-1]
    gui = spec.gui_module()
    if gui is not None:
        for name in ("seat_label", "status", "Picker"):
            assert hasattr(gui, name), f"{spec.gui} lacks {name}"
    svg = spec.svg_module()
    if svg is not None:
        for name in ("board_svg", "action_cell"):
            assert callable(getattr(svg, name, None)), f"{spec.svg} lacks {name}"
    texts = spec.help_module()
    if texts is not None:
        for name in ("NOTATION_HELP", "RULES_SUMMARY"):
            assert isinstance(getattr(texts, name), str), f"{spec.help} lacks {name}"
        rounds = getattr(texts, "ROUND_NAMES", ())  # optional
        assert all(isinstance(name, str) for name in rounds), f"{spec.help}: ROUND_NAMES"
        page = getattr(texts, "RULES_PAGE", None)  # optional: `tabletop-zoo rules GAME`
        assert page is None or (ROOT / "docs" / "rules" / page).is_file(), f"{spec.help}: {page}"


@pytest.mark.parametrize("spec", BUNDLE_SPECS, ids=lambda s: s.name)
def test_the_parts_of_a_registered_game_live_in_its_own_folder(spec: GameSpec) -> None:
    if spec is NIM_SPEC:  # the toy lives in one test file and declares what it lacks
        assert (spec.gui, spec.help, spec.fast_engine, spec.svg) == (None, None, None, None)
        return
    package = f"tabletop_zoo.envs.{spec.name}"
    assert spec.env_module == f"tabletop_zoo.envs.{spec.name}_v0"
    for part in (spec.engine, spec.observation_encoder, spec.gui, spec.help, spec.svg):
        module = None if part is None else part.partition(":")[0]
        assert module in (None, package) or module.startswith(package + "."), part
    if spec.fast_engine is not None:
        assert spec.fast_engine.partition(":")[0] == f"{package}.fast.engine"
        assert (ROOT / "envs" / spec.name / "fast" / "__init__.py").exists()


@pytest.mark.skipif(not fast_path_available(), reason="the compiled engines need numba")
@pytest.mark.parametrize(
    "spec", [s for s in GAMES.values() if s.fast_engine is not None], ids=lambda s: s.name
)
def test_every_compiled_engine_follows_the_fast_engine_protocol(spec: GameSpec) -> None:
    from tabletop_zoo.envs.compiled.protocol import FastEngine
    from tabletop_zoo.envs.registry import fast_engine

    engine = fast_engine(spec.name, spec.default_players)
    assert isinstance(engine, FastEngine)  # every method and attribute of the protocol
    states = engine.new_states(2, seed=0)
    assert states.shape == (2, engine.state_width)
    assert engine.observe(states, 0).shape == (2, *engine.observation_shape)
    assert engine.legal_mask(states).shape == (2, engine.num_actions)


#: Reads multiprocessing's parent sentinel to end a worker with its parent; starts nothing.
PARENT_WATCH = "baselines/agents/threads.py"


def test_only_the_match_model_plays_games_in_processes_or_ray() -> None:
    """One match model: every match is a schedule of seatings played by
    ``matches.play_seatings`` into records (tournaments, seated matches, the ladder and the
    scripts are views of records). Only its players fan games out: no other module uses
    ``play_task`` / ``play_tasks``, imports a process pool or ``multiprocessing``, or declares
    Ray tasks."""
    found = []
    for path in _sources(*SOURCE):
        where = str(path.relative_to(ROOT))
        if where == "baselines/evaluation/arena.py":
            continue
        names = _imports(path)
        attributes = {
            node.attr for node in ast.walk(_tree(path)) if isinstance(node, ast.Attribute)
        }
        found += [
            f"{where}: imports {name}"
            for name in names
            if (name.split(".")[0] == "multiprocessing" and where != PARENT_WATCH)
            or name == "concurrent.futures"
        ]
        if "remote" in attributes:
            found.append(f"{where}: declares or calls a Ray task")
        if where != "baselines/evaluation/matches.py":
            used = attributes | {name.rsplit(".", 1)[-1] for name in names}
            found += [
                f"{where}: uses {name}" for name in sorted(used & {"play_task", "play_tasks"})
            ]
    assert not found, "only the match model plays games:\n" + "\n".join(found)


def test_test_file_names_are_unique() -> None:
    """pytest's default import mode imports every test file by its bare name (the test
    folders have no ``__init__.py``): two files of one name stop the whole run."""
    names = [path.name for path in (ROOT / "tests").rglob("test_*.py")]
    assert sorted(names) == sorted(set(names)), "two test files share a name"


def test_ci_runs_the_readmes_two_test_commands_and_the_default_run_leaves_out_slow() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    long_tests = "python -m pytest -q -m slow -n 2 --dist worksteal"
    for command in ("python -m pytest -q", long_tests):
        assert f"`{command}`" in readme
    assert "python -m pytest -q" in ci, "CI does not run the default test command"
    # the long tests as the README says, with only pytest's cache off and the slowest listed
    ran = [
        re.sub(r" -p no:cacheprovider| --durations=\d+", "", line)
        for line in ci
        if line.startswith("python -m pytest -q") and "-m slow" in line
    ]
    assert ran == [long_tests], ran
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "-m 'not slow'" in options["ini_options"]["addopts"]
