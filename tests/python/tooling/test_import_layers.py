"""The layers of the Python package (issue 38): ``python/ffi`` imports in one direction only.

Every module is parsed with ``ast`` and every import of a module of the package is an edge of the
import graph: at module level, inside functions and classes, and under ``if TYPE_CHECKING`` (a
cycle the type checker sees is still a cycle). The graph has no cycle; no module of the package
imports one of the compatibility modules, which exist only for the reference's module paths and
re-export what is defined elsewhere; an import inside a function is one of a short list, each
with the reason it waits; and the steps importing ``ffi`` takes besides defining names are all
in ``ffi._bootstrap``. Then, in fresh interpreters: ``import ffi`` works, and so does importing
any module of the package first (nothing depends on the order ``ffi/__init__.py`` imports in).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from support.paths import ROOT, TESTS_DIR

import ffi

SOURCE_DIR = os.path.join(ROOT, "python", "ffi")
# The package as written in the repository; the installed copy when the tests run without it.
PACKAGE_DIR = os.path.normpath(
    SOURCE_DIR if os.path.isdir(SOURCE_DIR) else os.path.dirname(ffi.__file__)
)
# Modules that are no Python source: the compiled extension.
EXTENSIONS = {"ffi._core"}

# The modules that exist only for the reference's module paths (``tvm_ffi.core``, ...): they
# re-export names defined elsewhere, and nothing in the package imports them.
FACADES = {
    "ffi.core": "tvm_ffi.core",
    "ffi._dtype": "tvm_ffi._dtype",
    "ffi._dunder": "tvm_ffi._dunder",
    "ffi._ffi_api": "tvm_ffi._ffi_api",
    "ffi.cpp.extension": "tvm_ffi.cpp.extension",
}

# Imports of the package's own modules inside functions, each with why it waits: (importing
# module, imported module) -> reason. Every other import of the package is at module level.
LAZY_IMPORTS = {
    ("ffi._type_schema", "ffi._type_convert"): (
        "cost: the converters (and the `numbers` module) stay off `import ffi` until a "
        "TypeSchema converts a value; they sit below the schema, so this is no cycle"
    ),
    ("ffi.core", "ffi.dataclasses._py_class_steps"): (
        "cost: `core._register_py_class` is the only name of ffi.core needing ffi.dataclasses, "
        "which takes milliseconds to import"
    ),
}


@dataclass(frozen=True)
class Import:
    """One import of a module of the package."""

    source: str  # the importing module
    target: str  # the imported module
    line: int
    local: bool  # inside a function (or lambda)


def _modules() -> dict[str, str]:
    """Every module of the package by name, with its file."""
    found = {}
    for root, _, files in os.walk(PACKAGE_DIR):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            parts = ["ffi", *os.path.relpath(path, PACKAGE_DIR)[: -len(".py")].split(os.sep)]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()
KNOWN = set(MODULES) | EXTENSIONS


def _is_package(module: str) -> bool:
    return MODULES.get(module, "").endswith("__init__.py")


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The modules of the package `node` (in `module`) imports: a name imported from a package
    is its submodule when there is one, else the package itself."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == "ffi" or alias.name.startswith("ffi."):
                yield alias.name
        return
    if node.level:
        base = module.split(".") if _is_package(module) else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        base_name = ".".join([*base, *([node.module] if node.module else [])])
    elif node.module == "ffi" or (node.module or "").startswith("ffi."):
        base_name = node.module or ""
    else:
        return
    targets = [f"{base_name}.{a.name}" for a in node.names]
    yield from dict.fromkeys(t if t in KNOWN else base_name for t in targets)


def _imports(module: str) -> Iterator[Import]:
    """Every import of a module of the package that `module` makes, wherever it is."""
    with open(MODULES[module], encoding="utf-8") as f:
        tree = ast.parse(f.read(), MODULES[module])

    def walk(node: ast.AST, local: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, child):
                    yield Import(module, target, child.lineno, local)
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from walk(child, inner)

    yield from walk(tree, False)


IMPORTS = [imp for module in sorted(MODULES) for imp in _imports(module)]


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as the modules along it (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_package_is_parsed():
    assert {"ffi", "ffi._bootstrap", "ffi._abi", "ffi._type_schema", "ffi.core"} <= set(MODULES)
    assert set(FACADES) <= set(MODULES)
    unknown = sorted({i.target for i in IMPORTS} - KNOWN)
    assert unknown == [], f"imports of modules that do not exist: {unknown}"


def test_the_import_graph_has_no_cycle():
    edges: dict[str, set[str]] = {}
    for imp in IMPORTS:
        if imp.target != imp.source:
            edges.setdefault(imp.source, set()).add(imp.target)
    cycle = _cycle(edges)
    if cycle:
        where = {(i.source, i.target): i for i in IMPORTS}
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            imp = where[a, b]
            steps.append(f"{a} imports {b} (line {imp.line}{', in a function' * imp.local})")
        pytest.fail("the package's imports form a cycle:\n  " + "\n  ".join(steps))


def test_no_module_imports_a_compatibility_module():
    offending = [
        f"{i.source} (line {i.line}) imports {i.target}"
        for i in IMPORTS
        if i.target in FACADES and i.source not in FACADES
    ]
    assert offending == [], "modules of the package import compatibility modules:\n" + "\n".join(
        offending
    )


@pytest.mark.parametrize("facade", sorted(FACADES))
def test_compatibility_modules_only_re_export(facade):
    """A compatibility module defines no class or function of its own (a module ``__getattr__``
    forwarding names defined elsewhere aside)."""
    with open(MODULES[facade], encoding="utf-8") as f:
        tree = ast.parse(f.read())
    definitions = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    defined = [
        f"{type(node).__name__} {node.name} (line {node.lineno})"
        for node in tree.body
        if isinstance(node, definitions) and node.name != "__getattr__"
    ]
    assert defined == [], f"{facade} (the reference's {FACADES[facade]}) defines: {defined}"


def test_imports_inside_functions_are_the_listed_ones():
    local = {(i.source, i.target): i for i in IMPORTS if i.local}
    unlisted = sorted(f"{s} (line {i.line}) imports {t}" for (s, t), i in local.items()
                      if (s, t) not in LAZY_IMPORTS)  # fmt: skip
    assert unlisted == [], (
        "imports of the package's modules inside functions (move them to the top of the module, "
        "or list them in LAZY_IMPORTS with the reason they wait):\n" + "\n".join(unlisted)
    )
    stale = sorted(f"{s} -> {t}" for s, t in LAZY_IMPORTS if (s, t) not in local)
    assert stale == [], f"LAZY_IMPORTS lists imports that are gone: {stale}"


# ---- import-time steps ------------------------------------------------------------------------

# What changes state outside a module when the module is imported: the extension's registration
# functions, and the public decorators that bind a class to a runtime type.
_STATEFUL_CALLS = {
    "_register_class",
    "_register_object",
    "_set_hooks",
    "_set_object_metaclass",
    "_set_value_class",
    "register_object",
    "c_class",
    "py_class",
    "share_with_reference_package",
}


def _called_name(call: ast.Call) -> str:
    func = call.func
    while isinstance(func, ast.Call):  # register_object("key")(cls)
        func = func.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _import_time_steps(module: str) -> list[str]:
    """What `module` does at import beyond defining its names: statements at module level (or in
    a class body) that assign an attribute of an object another module defined, and calls or
    class decorators that register with the extension."""
    with open(MODULES[module], encoding="utf-8") as f:
        tree = ast.parse(f.read())
    own = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    found = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # runs when called, not at import
            if isinstance(node, ast.ClassDef):
                for deco in node.decorator_list:
                    if isinstance(deco, ast.Call) and _called_name(deco) in _STATEFUL_CALLS:
                        found.append(f"line {deco.lineno}: @{_called_name(deco)} on {node.name}")
                visit(node.body)
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Attribute):
                        base = t.value
                        while isinstance(base, ast.Attribute):
                            base = base.value
                        if not (isinstance(base, ast.Name) and base.id in own):
                            found.append(f"line {node.lineno}: sets {ast.unparse(t)}")
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and _called_name(sub) in _STATEFUL_CALLS:
                    found.append(f"line {sub.lineno}: calls {_called_name(sub)}")
                if isinstance(sub, (ast.FunctionDef, ast.Lambda)):
                    break

    visit(tree.body)
    return found


def _loaded_by_import_ffi() -> list[str]:
    code = "import sys, ffi; print(' '.join(m for m in sys.modules if m.split('.')[0] == 'ffi'))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=TESTS_DIR
    )
    assert proc.returncode == 0, proc.stderr
    return sorted(proc.stdout.split())


def test_import_time_steps_are_all_in_the_bootstrap():
    """``import ffi`` loads these modules; of them only ``ffi._bootstrap`` registers classes,
    installs hooks or sets attributes of objects defined elsewhere, so the order of the others'
    imports cannot matter."""
    loaded = _loaded_by_import_ffi()
    assert "ffi._bootstrap" in loaded and "ffi.dataclasses" not in loaded
    steps = {
        m: s
        for m in loaded
        if m in MODULES and m != "ffi._bootstrap"
        for s in [_import_time_steps(m)]
        if s
    }
    assert steps == {}, "import-time steps outside ffi._bootstrap: " + repr(steps)
    assert _import_time_steps("ffi._bootstrap"), "the bootstrap is expected to do the steps"


# ---- fresh interpreters ------------------------------------------------------------------------

# Run after importing a module first: the steps of the bootstrap all took effect.
_CHECK = textwrap.dedent(
    """
    import copy, ffi
    from ffi._abi import TypeIndex
    assert type(ffi.convert([1, 2])) is ffi.Array and type(ffi.convert({"a": 1})) is ffi.Map
    assert type(ffi.Shape((1, 2))) is ffi.Shape
    assert ffi.access_path.AccessPath.root().depth == 0
    assert type(ffi.Error("ValueError", "x")).__name__ == "Error"
    assert ffi.Object.__tvm_ffi_type_info__.type_index == TypeIndex.OBJECT
    assert copy.deepcopy(ffi.Array([1])) == [1]
    assert ffi.core.KWARGS is not None and ffi.core.MISSING is ffi.dataclasses.MISSING
    print("ok")
    """
)


def _run_fresh(first: str) -> subprocess.CompletedProcess:
    code = f"import {first}\n{_CHECK}"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=TESTS_DIR
    )


def test_import_ffi_in_a_fresh_interpreter():
    proc = _run_fresh("ffi")
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


_FIRST = sorted(m for m in MODULES if m != "ffi")


@pytest.mark.parametrize("first", _FIRST)
def test_any_module_can_be_imported_first(first):
    proc = _run_fresh(first)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_the_abi_constants_come_from_the_extension():
    """The one ABI number Python keeps itself is the version the runtime loader checks before the
    extension exists; it agrees with the extension's. The others are the headers' (a sample)."""
    from ffi import _abi, _core, _runtime

    assert _runtime.ABI_VERSION == _abi.VERSION[:2]
    assert _abi.TypeIndex.ARRAY == _core.type_key_to_index("ffi.Array")
    assert _abi.TypeIndex.OBJECT == _core.type_key_to_index("ffi.Object")
    assert ffi.DLDeviceType.kDLCUDA == _core.DLDeviceType["kDLCUDA"]
    assert ffi.dtype("bfloat16").type_code == _abi.DL_DATA_TYPE_CODE["kDLBfloat"]
    assert _abi.SIZEOF["TVMFFIObject"] == 24 and _abi.SIZEOF["TVMFFIAny"] == 16
    with pytest.raises(TypeError):
        _core.TVMFFITypeIndex["kTVMFFIInt"] = 0  # type: ignore[index]
