"""Compiled kernels copy arrays with ``compiled.common.copy_into``, never with a slice copy.

``target[a:b] = source`` in a numba kernel compiles NumPy's broadcasting shape checks and
their error messages: about 4 CPU-seconds of every cold start the first time a process
compiles one (a loop copy compiles in a fraction of that and runs faster on short rows).
A slice filled with a number (``row[:n] = 0``) compiles cheaply and is allowed. The check
reads the source with ``ast``: every function of the package decorated with ``jit`` (ours)
or ``numba.njit``, or compiled by a call ``jit(function)`` (the kernels built on first use).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("envs", "baselines", "wrappers")


def _is_jit(node: ast.expr) -> bool:
    """Whether ``node`` names ``jit``/``njit``/``kernel`` (``jit``, ``numba.njit``, ...)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in {"jit", "njit", "kernel"}


def _is_compiled(function: ast.FunctionDef, compiled_by_call: set[str]) -> bool:
    """Whether ``function`` is decorated with ``jit``/``njit`` (called or not) or compiled
    by a call ``jit(function)`` in its module."""
    if function.name in compiled_by_call:
        return True
    for decorator in function.decorator_list:
        if _is_jit(decorator.func if isinstance(decorator, ast.Call) else decorator):
            return True
    return False


def _has_slice(subscript: ast.Subscript) -> bool:
    index = subscript.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(part, ast.Slice) for part in parts)


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool)


def compiled_functions(source: str) -> list[ast.FunctionDef]:
    """The functions of a module decorated with ``jit`` or ``njit``, or compiled by a call
    such as ``jit(kernel)`` (the kernels compiled on first use)."""
    tree = ast.parse(source)
    compiled_by_call = {
        node.args[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _is_jit(node.func)
        and node.args
        and isinstance(node.args[0], ast.Name)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and _is_compiled(node, compiled_by_call)
    ]


def slice_copies(source: str) -> list[int]:
    """Line numbers of slice assignments of a non-number value inside compiled functions."""
    lines = []
    for function in compiled_functions(source):
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Subscript) and _has_slice(target):
                    if not _is_number(value):
                        lines.append(node.lineno)
    return lines


def test_the_check_finds_a_slice_copy_and_allows_a_fill() -> None:
    source = (
        "@jit\n"
        "def kernel(row, other):\n"
        "    row[:3] = 0\n"
        "    row[1, :] = -1.0\n"
        "    row[2:5] = other\n"
        "    row[0, 1:] += other[0]\n"
        "    row[4] = other[0]\n"
        "@numba.njit(cache=True)\n"
        "def other_kernel(row):\n"
        "    row[:] = row[::-1]\n"
        "def python_code(row, other):\n"
        "    row[:2] = other\n"
        "def lazy_kernel(row, other):\n"
        "    row[1:] = other\n"
        "KERNEL = jit(lazy_kernel)\n"
    )
    assert slice_copies(source) == [5, 6, 10, 14]


@pytest.mark.slow
def test_no_compiled_kernel_copies_an_array_by_slice() -> None:
    found, kernels = [], 0
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text()
            kernels += len(compiled_functions(source))
            found += [f"{path.relative_to(ROOT)}:{line}" for line in slice_copies(source)]
    assert kernels > 50, "the check no longer recognises the compiled kernels' decorator"
    assert found == [], f"use compiled.common.copy_into instead of a slice copy at {found}"
