"""The baselines package keeps its three layers apart and its modules small."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BASELINES = Path(__file__).resolve().parents[2] / "baselines"
MODULES = sorted(BASELINES.rglob("*.py"))
MAX_LINES = 400


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BASELINES)))
def test_module_is_at_most_400_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES


def test_the_three_layers_are_sub_packages() -> None:
    for layer in ("agents", "evaluation", "training"):
        assert (BASELINES / layer / "__init__.py").is_file()


def test_evaluation_does_not_import_training() -> None:
    for path in sorted((BASELINES / "evaluation").glob("*.py")):
        for name in _imports(path):
            assert not name.startswith("tabletop_zoo.baselines.training"), (path.name, name)


def test_agents_and_evaluation_import_no_sb3_or_torch_at_module_level() -> None:
    """Importing the layers stays light: SB3/torch only inside the functions that need them."""
    for layer in ("agents", "evaluation"):
        for path in sorted((BASELINES / layer).glob("*.py")):
            tree = ast.parse(path.read_text())
            top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
            names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
            names |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
            heavy = {
                n for n in names if n.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib")
            }
            assert not heavy, (path.name, heavy)
