"""The test tree's own rule: helpers shared by tests live in support/, so no test file imports
another test file or conftest.py (at module level or inside a function)."""

import ast
import pathlib

import pytest
from support.paths import TESTS_DIR

pytestmark = pytest.mark.tooling


def _imported_modules(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_no_test_file_imports_another():
    offending = [
        f"{path.relative_to(TESTS_DIR)} imports {module}"
        for path in sorted(pathlib.Path(TESTS_DIR).rglob("*.py"))
        for module in _imported_modules(path)
        if module.split(".")[0] == "conftest" or module.split(".")[0].startswith("test_")
    ]
    assert offending == []
