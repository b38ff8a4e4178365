"""The top-level package: ``import tabletop_zoo`` registers every id, has ``__version__``,
stays light, and both editable and built (wheel) installs contain every sub-package.

Each check runs in a fresh interpreter (subprocess), because this test process has long
imported ``tabletop_zoo.envs`` (which registers the ids) by the time a test runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

from tabletop_zoo.envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, cwd: Path, env_path: str | None = None) -> str:
    """Run ``code`` in a fresh interpreter and return its stdout (fails on a non-zero exit)."""
    env = None
    if env_path is not None:
        import os

        env = {**os.environ, "PYTHONPATH": env_path}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def pyproject() -> dict:
    """The parsed ``pyproject.toml``."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_import_alone_registers_every_id_and_gives_the_version(tmp_path: Path) -> None:
    out = run_python(
        """
        import json, sys
        import tabletop_zoo
        import gymnasium, pettingzoo
        print(json.dumps({
            "version": tabletop_zoo.__version__,
            "gymnasium": sorted(i for i in gymnasium.registry if i.startswith("tabletop_zoo/")),
            "pettingzoo": sorted(
                i for i in pettingzoo.aec_registry if i.startswith("tabletop_zoo/")
            ),
            "heavy": sorted(m for m in ("torch", "pygame", "numba", "matplotlib")
                            if m in sys.modules),
        }))
        """,
        cwd=tmp_path,  # not the repo: the installed package, not the folders
    )
    found = json.loads(out)
    assert found["version"] == pyproject()["project"]["version"]
    assert found["gymnasium"] == sorted(spec.gymnasium_id for spec in GAMES.values())
    assert found["pettingzoo"] == sorted(spec.pettingzoo_id for spec in GAMES.values())
    assert found["heavy"] == []


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_make_works_after_import_tabletop_zoo_only(name: str, tmp_path: Path) -> None:
    spec = GAMES[name]
    out = run_python(
        f"""
        import tabletop_zoo, gymnasium, pettingzoo
        single = gymnasium.make({spec.gymnasium_id!r})
        obs, info = single.reset(seed=0)
        aec = pettingzoo.make("aec", {spec.pettingzoo_id!r})
        aec.reset(seed=0)
        print(obs.shape, aec.agent_selection, len(aec.possible_agents))
        """,
        cwd=tmp_path,
    )
    assert out.split()[-2:] == ["player_0", str(spec.default_players)]


def test_sub_packages_and_env_modules_are_attributes_imported_on_first_use(
    tmp_path: Path,
) -> None:
    modules = [spec.env_module for spec in GAMES.values()]
    out = run_python(
        f"""
        import json, sys
        import tabletop_zoo
        light = sorted(m for m in ("torch", "numba", "matplotlib") if m in sys.modules)
        found = []
        for name in {modules!r}:
            module = tabletop_zoo
            for part in name.split(".")[1:]:
                module = getattr(module, part)  # tabletop_zoo.envs.<game>_v0
            found.append(module.__name__)
        found.append(tabletop_zoo.wrappers.single_agent.__name__)
        found.append(tabletop_zoo.baselines.evaluation.__name__)
        missing = []
        for package in (tabletop_zoo, tabletop_zoo.envs, tabletop_zoo.wrappers):
            try:
                package.no_such_module
            except AttributeError as exc:
                missing.append(str(exc))
        print(json.dumps({{"light": light, "found": found, "missing": missing}}))
        """,
        cwd=tmp_path,
    )
    result = json.loads(out)
    assert result["light"] == []
    assert result["found"] == [
        *modules,
        "tabletop_zoo.wrappers.single_agent",
        "tabletop_zoo.baselines.evaluation",
    ]
    assert result["missing"] == [
        f"module {name!r} has no attribute 'no_such_module'"
        for name in ("tabletop_zoo", "tabletop_zoo.envs", "tabletop_zoo.wrappers")
    ]


def test_gymnasium_module_colon_id_form_imports_the_package(tmp_path: Path) -> None:
    spec = next(iter(GAMES.values()))
    out = run_python(
        f"""
        import gymnasium  # nothing of ours imported before make
        env = gymnasium.make("tabletop_zoo:{spec.gymnasium_id}")
        env.reset(seed=1)
        print(env.spec.id)
        """,
        cwd=tmp_path,
    )
    assert out.strip() == spec.gymnasium_id


def build_wheel(tmp_path: Path) -> Path:
    """Build the wheel (what ``pip install .`` installs) from a copy of the clone's package
    files, so no ``build/`` folder lands in the clone. pip builds it in an isolated
    environment with the ``build-system`` requirements from the configured index."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for folder in ("envs", "wrappers", "baselines"):  # envs/_package/rules: the pages, copied
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = wheels.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once for the tests of this module that need it."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.mark.slow
def test_built_wheel_imports_every_sub_package(wheel: Path, tmp_path: Path) -> None:
    """A non-editable build (``pip install .`` installs this wheel) has every package, the
    rules pages, the LICENSE and the console script."""
    info = f"tabletop_zoo-{pyproject()['project']['version']}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    pages = {f"tabletop_zoo/rules/{p.name}" for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert pages and pages <= names
    assert f"{info}/licenses/LICENSE" in names
    assert "tabletop-zoo = tabletop_zoo.baselines.commands:main" in entry_points
    unpacked = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    in_wheel = {
        str(p.parent.relative_to(unpacked)).replace("/", ".") for p in unpacked.rglob("__init__.py")
    }
    assert in_wheel == set(pyproject()["tool"]["setuptools"]["packages"])
    out = run_python(
        """
        import importlib, tabletop_zoo
        for name in ("tabletop_zoo.envs", "tabletop_zoo.wrappers", "tabletop_zoo.baselines"):
            print(importlib.import_module(name).__file__)
        print(tabletop_zoo.__file__)
        """,
        cwd=tmp_path,
        env_path=str(unpacked),  # first on sys.path: wins over the editable install
    )
    files = out.split()
    assert len(files) == 4
    assert all(f.startswith(str(unpacked)) for f in files), files


@pytest.mark.slow
def test_the_wheel_alone_runs_the_commands_and_the_readme_examples(
    wheel: Path, tmp_path: Path
) -> None:
    """The wheel installed into a fresh venv outside the clone, with only its own
    dependencies (from pip's configured index; no torch) and openskill, which ``rate``
    needs: ``tabletop-zoo --help``, games against a shipped model, a rules page and the
    README's Python examples run there."""
    from tests.test_docs import claims, python_blocks, slow_blocks

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python, command = venv / "bin" / "python", venv / "bin" / "tabletop-zoo"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel), "openskill"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    work = tmp_path / "work"  # no clone here: everything comes from the installed wheel
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def run(*argv: str) -> str:
        ran = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert ran.returncode == 0, f"{argv}: {ran.stderr[-3000:]}"
        return ran.stdout

    code = "import importlib.util, tabletop_zoo; print(tabletop_zoo.__file__)\n"
    code += "print(importlib.util.find_spec('torch') is None)"
    package_file, no_torch = run(str(python), "-c", code).split()
    assert package_file.startswith(str(venv)) and no_torch == "True"
    listed = run(str(command), "--help")
    from tabletop_zoo.baselines.commands import COMMANDS

    for name, entry in COMMANDS.items():
        assert f"  {name}" in listed and entry.summary in listed, name
    # a shipped model read from the wheel (the ladder itself is tested in the dev venv: on the
    # Python path here its AlphaZero member alone would take a minute)
    rated = run(
        str(command), "rate", "--game", "mole_hill", "--agent", "random",
        "--against", "ref:mole_hill-2p-ppo", "--rounds", "1",
    )  # fmt: skip
    assert "1 x ref:mole_hill-2p-ppo" in rated and "1st share" in rated
    page = run(str(command), "rules", "mole_hill")
    assert page.startswith("# ") and "M1" in page
    no_extra = subprocess.run(
        [str(command), "train"], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )  # no torch here: one line saying how to install the extra from a clone
    assert no_extra.returncode == 1 and no_extra.stderr.count("\n") == 1, no_extra.stderr
    assert no_extra.stderr.startswith("tabletop-zoo train: error: tabletop-zoo train needs")
    assert 'pip install ".[train]" in a clone of the tabletop-zoo repository' in no_extra.stderr
    slow = slow_blocks()
    examples = [b for b in python_blocks() if b[0] == "README.md" and b[:2] not in slow]
    assert len(examples) >= 2
    for _name, index, code in examples:
        script = work / f"readme_{index}.py"
        script.write_text(code)
        printed = run(str(python), str(script)).splitlines()
        for stated in claims(code).values():
            assert stated in printed, (index, stated, printed)
