"""The shape of the house (``docs/DESIGN.md``), checked on the source files.

* every package folder is listed in ``pyproject.toml`` (else it silently fails to install);
* engine rule modules import no gymnasium / pettingzoo / torch / pygame (nor numpy);
* import layers: envs imports neither wrappers nor baselines; wrappers imports only
  ``tabletop_zoo.baselines.agents``; the agents layer imports neither wrappers nor the
  evaluation/training layers;
* no code outside a game's own places names the game (iterate ``GAMES`` instead);
* no module is over 750 lines; no function over 80 outside the rules engines and kernels;
* no two package modules import each other in a circle, counting imports inside functions;
* each game is a declared bundle: every module its ``GameSpec`` names imports and exposes
  what it must (the Nim toy, which declares no gui, help or compiled engine, included);
  a compiled twin lives in the game's ``fast/`` package.

The layer checks read the files with ``ast``; the bundle checks import the parts.
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES, GameSpec, fast_path_available
from tests.envs.nim_game import NIM_SPEC

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = {"envs": "tabletop_zoo.envs", "wrappers": "tabletop_zoo.wrappers"}
TOP_PACKAGES["baselines"] = "tabletop_zoo.baselines"
#: pyproject's package-dir: folder -> package (e.g. envs/_package is the package tabletop_zoo)
PACKAGE_DIRS = {
    folder: package
    for package, folder in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "setuptools"
    ]["package-dir"].items()
}
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


def _is_main_block(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":``"""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _imports(path: Path, top_level_only: bool = False, main_block: bool = True) -> list[str]:
    """Absolute names of the modules ``path`` imports (``from x import y`` gives x and x.y);
    ``main_block=False`` leaves out the imports of its ``if __name__ == "__main__":`` block."""
    tree = ast.parse(path.read_text(), filename=str(path))
    if not main_block:
        tree.body = [node for node in tree.body if not _is_main_block(node)]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    names = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
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
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools.get("package-dir", {})

    def folder_of(package: str) -> Path:
        """Where setuptools looks for ``package`` (longest package-dir prefix wins)."""
        for prefix in sorted(mapping, key=len, reverse=True):
            if package == prefix or package.startswith(prefix + "."):
                rest = package[len(prefix) :].lstrip(".").split(".") if package != prefix else []
                return ROOT.joinpath(mapping[prefix], *rest).resolve()
        return ROOT.joinpath(*package.split(".")).resolve()

    listed = {folder_of(package) for package in setuptools["packages"]}
    folders = {
        init.parent.resolve() for top in TOP_PACKAGES for init in (ROOT / top).rglob("__init__.py")
    }
    missing = sorted(str(f.relative_to(ROOT)) for f in folders - listed)
    assert not missing, f"add these folders to [tool.setuptools] packages: {missing}"


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
def test_envs_import_neither_wrappers_nor_baselines() -> None:
    for path in _sources("envs"):
        for name in _imports(path):
            assert not name.startswith(("tabletop_zoo.wrappers", "tabletop_zoo.baselines")), (
                f"{path.relative_to(ROOT)} imports {name}: envs is the bottom layer"
            )


def test_wrappers_import_only_the_agents_layer_of_baselines() -> None:
    for path in _sources("wrappers"):
        for name in _imports(path):
            if name.startswith("tabletop_zoo.baselines"):
                assert name.startswith("tabletop_zoo.baselines.agents"), (
                    f"{path.relative_to(ROOT)} imports {name}: wrappers may import only "
                    "tabletop_zoo.baselines.agents"
                )


def test_agents_layer_imports_no_higher_layer() -> None:
    higher = ("tabletop_zoo.wrappers", "tabletop_zoo.baselines.evaluation")
    higher += ("tabletop_zoo.baselines.training",)
    agents = ROOT / "baselines" / "agents"
    for path in sorted(agents.rglob("*.py")) if agents.exists() else []:
        for name in _imports(path):
            assert not name.startswith(higher), f"{path.relative_to(ROOT)} imports {name}"


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
    tree = ast.parse(path.read_text(), filename=str(path))
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
MAX_MODULE_LINES = 750
#: everything but the rules engines: a module to read in one sitting (about 400 lines)
MAX_OTHER_MODULE_LINES = 450
MAX_TEST_FILE_LINES = 600


def _is_rules_engine(path: Path) -> bool:
    """A game's rules engine: ``envs/<game>/rules.py`` or its compiled twin's kernels."""
    parts = path.relative_to(ROOT).parts
    return parts[0] == "envs" and (parts[-1] == "rules.py" or parts[-2:] == ("fast", "kernels.py"))


def test_no_module_is_over_750_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {lines}"
        for path in _sources("envs", "wrappers", "baselines", "scripts")
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, f"split these modules (at most {MAX_MODULE_LINES} lines): {long}"


def test_modules_other_than_the_rules_engines_are_at_most_450_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {lines}"
        for path in _sources("envs", "wrappers", "baselines", "scripts")
        if not _is_rules_engine(path)
        and (lines := len(path.read_text().splitlines())) > MAX_OTHER_MODULE_LINES
    ]
    assert not long, f"split these modules (at most {MAX_OTHER_MODULE_LINES} lines): {long}"


def test_test_files_are_at_most_600_lines() -> None:
    """Test files split by topic, mirroring the package, before they grow past this."""
    long = [
        f"{path.relative_to(ROOT)}: {lines}"
        for path in _sources("tests")
        if (lines := len(path.read_text().splitlines())) > MAX_TEST_FILE_LINES
    ]
    assert not long, f"split these test files (at most {MAX_TEST_FILE_LINES} lines): {long}"


#: Line budgets of the source (every line of every ``*.py``, as ``wc -l`` counts them): a new
#: feature pays for itself by making room elsewhere.
#: The budgets of this turn's features (outside policies, the parallel face, the leaderboard
#: and datasets): they become counts of the code as formatted once that count lands.
SOURCE_BUDGETS = {("baselines",): 11_000, ("envs", "wrappers", "baselines", "scripts"): 25_000}


@pytest.mark.parametrize("folders", list(SOURCE_BUDGETS), ids="+".join)
def test_the_source_stays_within_its_line_budget(folders: tuple[str, ...]) -> None:
    lines = sum(len(path.read_text().splitlines()) for path in _sources(*folders))
    budget = SOURCE_BUDGETS[folders]
    assert lines <= budget, f"{'+'.join(folders)}: {lines} lines, over the budget of {budget:,}"


MAX_FUNCTION_LINES = 80


def test_no_function_outside_the_rules_engines_is_over_80_lines() -> None:
    """A function reads on one screen; the rules engines and their kernels are exempt.

    Exempt are exactly the files :func:`_is_rules_engine` names (``envs/<game>/rules.py`` and
    ``envs/<game>/fast/kernels.py``): a rule is written once, in the book's order.
    """
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length}"
        for path in _sources("envs", "wrappers", "baselines", "scripts")
        if not _is_rules_engine(path)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert not long, f"split these functions (at most {MAX_FUNCTION_LINES} lines): {long}"


# ---------------------------------------------------------------- import circles
def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports, at the top or inside a function.

    A package's ``__init__`` is left out: it only re-exports its modules, and an edge to it
    would make every module that reads a name of its package part of a circle. So is a
    module's ``if __name__ == "__main__":`` block: it runs as ``__main__``, a module apart.
    """
    modules = {
        _module_name(path): path
        for path in _sources("envs", "wrappers", "baselines")
        if path.name != "__init__.py"
    }
    return {
        module: {
            name for name in _imports(path, main_block=False) if name in modules and name != module
        }
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


@pytest.mark.slow
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
    from tabletop_zoo.envs.fast_protocol import FastEngine
    from tabletop_zoo.envs.registry import fast_engine

    engine = fast_engine(spec.name, spec.default_players)
    assert isinstance(engine, FastEngine)  # every method and attribute of the protocol
    states = engine.new_states(2, seed=0)
    assert states.shape == (2, engine.state_width)
    assert engine.observe(states, 0).shape == (2, *engine.observation_shape)
    assert engine.legal_mask(states).shape == (2, engine.num_actions)


def test_only_the_match_model_plays_game_tasks() -> None:
    """One match model: every match is a schedule of seatings played by
    ``matches.play_seatings`` into records; nothing else hands game tasks to the process
    pool or Ray (tournaments, seated matches, the ladder and the scripts are views of
    records)."""
    players = {"play_task", "play_tasks"}
    allowed = {"baselines/evaluation/matches.py", "baselines/evaluation/arena.py"}
    for path in _sources("baselines", "wrappers", "scripts"):
        where = str(path.relative_to(ROOT))
        if where in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and "evaluation" in node.module:
                used = players & {alias.name for alias in node.names}
                assert not used, f"{where} imports {sorted(used)}: play matches with play_seatings"


@pytest.mark.slow
def test_only_the_arena_starts_processes_or_ray_tasks() -> None:
    """The match model's players are the only code that fans games out: no other module
    imports a process pool or ``multiprocessing``, declares Ray tasks, or calls
    ``play_task`` / ``play_tasks`` through a module attribute."""
    allowed = {"baselines/evaluation/arena.py"}
    found = []
    for path in _sources("envs", "wrappers", "baselines", "scripts"):
        where = str(path.relative_to(ROOT))
        if where in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [
                f"{where}: imports {name}"
                for name in names
                if name.split(".")[0] == "multiprocessing" or name == "concurrent.futures"
            ]
            if isinstance(node, ast.Attribute) and node.attr in ("play_task", "play_tasks"):
                if where != "baselines/evaluation/matches.py":
                    found.append(f"{where}: calls {node.attr}")
            if isinstance(node, ast.Attribute) and node.attr == "remote":
                found.append(f"{where}: declares or calls a Ray task")
    assert not found, "only the match model plays games elsewhere:\n" + "\n".join(found)


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
