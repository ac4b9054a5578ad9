"""The package's type information: ``_core.pyi`` and ``py.typed`` ship with the installed package,
typed code using the public API passes ``mypy --strict``, wrong calls are reported, and the stub
matches the extension (``mypy.stubtest`` plus a check of nanobind's own signatures)."""

import ast
import os
import re
import subprocess
import sys
import textwrap

import pytest
from support.markers import needs_mypy
from support.paths import TESTS_DIR
from support.typecheck import assert_reported_as_tagged, mypy_config

import ffi
from ffi import _core

# Tools, headers and examples: not run again on other interpreters (run_all.sh interpreters).
pytestmark = pytest.mark.tooling

PACKAGE_DIR = os.path.dirname(os.path.abspath(ffi.__file__))
STUB = os.path.join(PACKAGE_DIR, "_core.pyi")


# Type-checked only, never run: every public name with the types users should see.
POSITIVE = '''
from __future__ import annotations

import os
from typing import Any, Callable

from typing_extensions import CapsuleType, assert_type

import ffi
import ffi.cpp


class Producer:
    """A minimal DLPack producer."""

    def __dlpack__(self, *, stream: int | None = None) -> Any:
        return None


def tensors(path: str | os.PathLike[str], x: Producer) -> None:
    mod = ffi.load_module(path)
    assert_type(mod, ffi.Module)
    assert_type(mod.path, str)
    add_one = mod["add_one"]
    assert_type(add_one, ffi.Function)
    result: Any = add_one(x, x)
    assert_type(add_one.__name__, "str | None")
    maybe = mod.get_function("missing", allow_missing=True)
    if maybe is not None:
        maybe(1, 2.0, "three", None)

    t = ffi.from_dlpack(x)
    t = ffi.from_dlpack(t, require_alignment=64, require_contiguous=True)
    t = ffi.from_dlpack(x, require_alignment=16, require_contiguous=False)
    assert_type(t, ffi.Tensor)
    assert_type(t.shape, ffi.Shape)
    assert_type(t.strides, "tuple[int, ...]")
    assert_type(t.dtype, ffi.dtype)
    assert_type(t.device, ffi.Device)
    assert_type(t.ndim, int)
    assert_type(t.byte_offset, int)
    assert_type(t.data_ptr(), int)
    assert_type(t.is_contiguous(), bool)
    assert_type(t.numel(), int)
    assert_type(t.__dlpack__(), CapsuleType)
    assert_type(t.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False), CapsuleType)
    assert_type(t.__dlpack_device__(), "tuple[int, int]")
    assert_type(t.type_key, str)
    assert_type(t.type_index, int)
    assert_type(t.same_as(t), bool)
    dims: tuple[int, ...] = t.shape
    print(result, dims)


def dtypes_and_devices() -> None:
    f32 = ffi.dtype("float32")
    assert_type(f32, ffi.dtype)
    assert_type(f32.type_code, int)
    assert_type(f32.bits, int)
    assert_type(f32.lanes, int)
    assert_type(f32.itemsize, int)
    assert_type(f32 == "float32", bool)
    assert_type(ffi.float32 == f32, bool)
    assert_type(ffi.dtype(ffi.bfloat16), ffi.dtype)
    lookup: dict[ffi.dtype, int] = {ffi.int8: 1}

    dev = ffi.device("cuda", 1)
    assert_type(dev, ffi.Device)
    assert_type(ffi.device("cuda:0"), ffi.Device)
    assert_type(ffi.Device(ffi.DLDeviceType.kDLCPU), ffi.Device)
    assert_type(ffi.Device(dev, index=None), ffi.Device)
    assert_type(dev.type, str)
    assert_type(dev.index, int)
    assert_type(dev.dlpack_device_type(), int)
    assert_type(ffi.get_raw_stream(dev), int)
    with ffi.use_raw_stream(dev, 0):
        pass
    print(lookup)


def functions() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    ffi.register_global_func("typing.add", add)
    ffi.register_global_func("typing.add", add, override=True)
    g = ffi.get_global_func("typing.add")
    assert_type(g, ffi.Function)
    assert_type(ffi.get_global_func("typing.none", allow_missing=True), "ffi.Function | None")
    total: Any = g(1, 2)
    assert_type(ffi.list_global_func_names(), "list[str]")
    assert_type(ffi.remove_global_func("typing.add"), bool)
    assert_type(ffi.convert(add), Any)
    as_callable: Callable[..., Any] = g
    assert isinstance(g, ffi.Object)
    print(total, as_callable)


def jit() -> None:
    mod = ffi.cpp.load_inline(
        "typing_kernels",
        cpp_sources="int add(int a, int b) { return a + b; }",
        functions=["add"],
        extra_cflags=["-O2"],
        verbose=False,
    )
    path: str = ffi.cpp.build_inline("typing_kernels", cpp_sources="", functions={"add": "doc"})
    other: str = ffi.cpp.build("typing_files", cpp_files=["a.cc"], build_directory=path)
    try:
        mod.add(1, 2)
    except ffi.cpp.BuildError as err:
        print(err, other)
'''

# Each line tagged `# E: <code>` must be reported with that error code, and nothing else.
NEGATIVE = """
import ffi
import ffi.cpp


def wrong(t: ffi.Tensor) -> None:
    ffi.from_dlpack(t, require_alignment="a")  # E: arg-type
    ffi.from_dlpack(3)  # E: arg-type
    ffi.from_dlpack(t, require_contiguous=True, copy=True)  # E: call-arg
    t.shape = t.shape  # E: misc
    t.ndim.upper()  # E: attr-defined
    t.numel(0)  # E: call-arg
    ffi.dtype("float32").bits.upper()  # E: attr-defined
    ffi.Device("cuda", "0")  # E: arg-type
    ffi.load_module(42)  # E: arg-type
    ffi.register_global_func("f", 3)  # E: call-overload
    f: ffi.Function = ffi.get_global_func("f", allow_missing=True)  # E: assignment
    ffi.cpp.load_inline("k", cpp_source="")  # E: call-arg
"""

# Typed usage that needs annotations in ffi/module.py, ffi/registry.py and ffi/cpp/_build.py
# (see the reason below).
API_GAPS = """
from typing import Any

from typing_extensions import assert_type

import ffi
import ffi.cpp


def gaps(path: str) -> None:
    mod = ffi.load_module(path)
    result: Any = mod.add_one(1, 2)
    assert_type(mod.add_one, ffi.Function)

    @ffi.register_global_func("typing.mul")
    def mul(a: int, b: int) -> int:
        return a * b

    product: int = mul(2, 3)

    @ffi.register_error
    class MyError(RuntimeError):
        pass

    assert_type(ffi.cpp.load_inline("k", cpp_sources="", functions=["f"]), ffi.Module)
    print(result, product)
"""


def _mypy(tmp_path, cache, source: str) -> subprocess.CompletedProcess:
    sample = tmp_path / "sample.py"
    sample.write_text(textwrap.dedent(source).lstrip())
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--show-error-codes"]
    cmd += ["--cache-dir", str(cache), "--config-file", mypy_config(tmp_path)]
    # Run away from the repository so that the installed package is what mypy sees.
    return subprocess.run(
        [*cmd, "sample.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )


def test_typing_files_installed():
    assert os.path.isfile(os.path.join(PACKAGE_DIR, "py.typed")), "reinstall: py.typed missing"
    assert os.path.isfile(STUB), "reinstall: _core.pyi missing"


@needs_mypy
def test_public_api_passes_mypy_strict(tmp_path, mypy_cache):
    proc = _mypy(tmp_path, mypy_cache, POSITIVE)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_mypy
def test_wrong_calls_are_reported(tmp_path, mypy_cache):
    proc = _mypy(tmp_path, mypy_cache, NEGATIVE)
    assert_reported_as_tagged(proc, NEGATIVE)


@needs_mypy
def test_api_decorators_and_module_attributes_typed(tmp_path, mypy_cache):
    proc = _mypy(tmp_path, mypy_cache, API_GAPS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_mypy
def test_stubtest(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "ffi._core",
            "--allowlist",
            os.path.join(TESTS_DIR, "stubtest_allowlist.txt"),
            "--ignore-unused-allowlist",
            "--mypy-config-file",
            mypy_config(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _stub_names(tree: ast.Module) -> tuple:
    """Names `_core.pyi` defines at module level, and those that exist for typing only
    (Protocol classes and TypeVars, never present at runtime)."""
    names, typing_only = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            protocol = any(isinstance(b, ast.Name) and b.id == "Protocol" for b in node.bases)
            (typing_only if protocol else names).add(node.name)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            value = node.value
            is_typevar = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "TypeVar"
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
            (typing_only if is_typevar else names).update(targets)
    return names, typing_only


def test_stub_names_are_exactly_the_extensions():
    # stubtest passes a private module-level name missing from either side, and the allowlist
    # above silences it for the nanobind functions when only the stub has them: compare the
    # sets of names themselves, both ways.
    with open(STUB) as f:
        names, typing_only = _stub_names(ast.parse(f.read()))
    runtime = {n for n in vars(_core) if not (n.startswith("__") and n.endswith("__"))}
    assert sorted(runtime - names) == [], "in the extension, missing from _core.pyi"
    assert sorted(names - runtime) == [], "in _core.pyi, missing from the extension"
    assert sorted(typing_only & runtime) == [], "typing-only stub names shadow runtime names"
    assert len(names) >= 25


def _parameters(func: ast.FunctionDef) -> list:
    a = func.args
    params = [("", "positional-only") for p in a.posonlyargs]  # their names do not matter
    params += [(p.arg, "positional-or-keyword") for p in a.args]
    params += [(p.arg, "keyword-only") for p in a.kwonlyargs]
    return params


def _defaults(func: ast.FunctionDef) -> set:
    a = func.args
    positional = a.posonlyargs + a.args
    with_default = positional[len(positional) - len(a.defaults) :]
    with_default += [p for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return {p.arg for p in with_default}


def test_stub_matches_nanobind_signatures():
    # stubtest cannot read nanobind functions (it reports "is not a function", allowlisted), so
    # compare parameter names, kinds and defaults with the signatures nanobind records.
    with open(STUB) as f:
        stub = ast.parse(f.read())
    stub_funcs: dict = {}
    for node in stub.body:
        if isinstance(node, ast.FunctionDef):
            stub_funcs.setdefault(node.name, []).append(node)
    checked = 0
    for name, obj in vars(_core).items():
        signatures = getattr(obj, "__nb_signature__", None)
        if signatures is None:
            continue
        assert name in stub_funcs, f"{name} is missing from _core.pyi"
        (text, _doc, _defaults_values) = signatures[0]
        runtime = ast.parse(re.sub(r"\\\d+", "...", text) + ": ...").body[0]
        assert isinstance(runtime, ast.FunctionDef)
        overloads = stub_funcs[name]
        for func in overloads:
            assert _parameters(func) == _parameters(runtime), (name, text)
        assert set().union(*map(_defaults, overloads)) == _defaults(runtime), (name, text)
        checked += 1
    assert checked >= 10
