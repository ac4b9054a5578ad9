"""One process, both packages (docs/coexistence.md): ``ffi`` and the reference's ``tvm_ffi``
imported together, in either order, share the one runtime loaded first. Each order runs in a fresh
interpreter: kernels built with our headers and with the reference's are called through both
packages; tensors, containers and functions made through one are used through the other; Python
callbacks registered through one run inside kernels called through the other, from threads too;
errors keep their kinds."""

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest
from support.build import build_kernel, build_with_reference_headers
from support.paths import TESTS_DIR

# A kernel library written against the reference's headers (tvm/ffi/...), built with them.
REFERENCE_KERNELS = """
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>
int64_t Dim0(tvm::ffi::TensorView t) { return t.size(0); }
tvm::ffi::Any CallWith(tvm::ffi::Function f, tvm::ffi::Any arg) { return f(arg); }
void Fail(tvm::ffi::String msg) { TVM_FFI_THROW(ValueError) << msg; }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dim0, Dim0);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_with, CallWith);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
"""

# Run in a fresh interpreter as `python - ORDER OURS_LIB REFERENCE_LIB [--ffi-load-module]`.
SCRIPT = r"""
import sys, threading
order, ours_lib, ref_lib = sys.argv[1:4]
if order == "ffi-first":
    import ffi, tvm_ffi
else:
    import tvm_ffi, ffi
import torch

# One runtime serves the process: the one loaded first, mapped once.
info = ffi.runtime_info()
assert info["implementation"] == ("ffi" if order == "ffi-first" else "reference"), info
assert info["abi_version"].startswith("0.1."), info
mapped = {line.split()[-1] for line in open("/proc/self/maps")
          if line.rstrip().endswith(("/libtvm_ffi.so", "/libffi_runtime.so"))}
assert mapped == {info["path"]}, (mapped, info)
# ffi.LIB is that runtime, callable through ctypes in either order.
assert ffi.LIB is ffi._LIB, ffi.LIB
ffi.LIB.TVMFFIGetVersion  # a C ABI function it exports

# Globals and callbacks registered through one package, called through the other.
ffi.register_global_func("coexist.from_ffi", lambda x: x + 1)
tvm_ffi.register_global_func("coexist.from_ref", lambda x: x * 2)
assert tvm_ffi.get_global_func("coexist.from_ffi")(3) == 4
assert ffi.get_global_func("coexist.from_ref")(3) == 6

# Objects made through one package, handed back through the other.
ffi.register_global_func("coexist.make_ffi", lambda: (ffi.Array([1, 2, 3]), ffi.Map({"a": 1})))
tvm_ffi.register_global_func(
    "coexist.make_ref", lambda: (tvm_ffi.Array([4, 5]), tvm_ffi.Map({"b": 2})))
arr, mp = tvm_ffi.get_global_func("coexist.make_ffi")()
assert isinstance(arr, tvm_ffi.Array) and list(arr) == [1, 2, 3]
assert isinstance(mp, tvm_ffi.Map) and mp["a"] == 1
arr, mp = ffi.get_global_func("coexist.make_ref")()
assert isinstance(arr, ffi.Array) and list(arr) == [4, 5]
assert isinstance(mp, ffi.Map) and mp["b"] == 2

# Tensors cross both ways (DLPack), zero-copy.
t = torch.arange(6.0)
ffi.register_global_func("coexist.tensor_ffi", lambda: ffi.from_dlpack(t))
got = torch.from_dlpack(tvm_ffi.get_global_func("coexist.tensor_ffi")())
assert got.data_ptr() == t.data_ptr() and got.tolist() == t.tolist()
tvm_ffi.register_global_func("coexist.tensor_ref", lambda: tvm_ffi.from_dlpack(t))
got = torch.from_dlpack(ffi.get_global_func("coexist.tensor_ref")())
assert got.data_ptr() == t.data_ptr()

# Objects passed as arguments cross as themselves: the same FFI object, not a copy.
ffi.register_global_func("coexist.ident", lambda x: x)
ident_via_ffi = ffi.get_global_func("coexist.ident")
ident_via_ref = tvm_ffi.get_global_func("coexist.ident")
ref_list = tvm_ffi.List([1, 2])
back = ident_via_ffi(ref_list)
assert isinstance(back, ffi.List) and back.same_as(ref_list), back
back.append(3)
assert list(ref_list) == [1, 2, 3]
ffi_list = ffi.List([1])
out = ident_via_ref(ffi_list)
assert isinstance(out, tvm_ffi.List) and out.__chandle__() == ffi_list._handle
out.append(2)
assert list(ffi_list) == [1, 2]
ref_tensor, ffi_tensor = tvm_ffi.from_dlpack(t), ffi.from_dlpack(t)
assert ident_via_ffi(ref_tensor).same_as(ref_tensor)
# ffi.from_dlpack of a tvm_ffi Tensor is that same Tensor object (with requirements: imported).
assert ffi.from_dlpack(ref_tensor).same_as(ref_tensor)
assert ffi.from_dlpack(ref_tensor, require_contiguous=True).data_ptr() == t.data_ptr()
try:
    ffi.from_dlpack(tvm_ffi.Array([1]))
    raise AssertionError("from_dlpack took an Array")
except TypeError:
    pass
assert ident_via_ref(ffi_tensor).__chandle__() == ffi_tensor._handle
ref_func = tvm_ffi.get_global_func("coexist.from_ref")
assert ident_via_ffi(ref_func).same_as(ref_func)  # not a Python callback around it
assert ffi.get_global_func("ffi.ArraySize")(tvm_ffi.Array([1, 2])) == 2
assert tvm_ffi.get_global_func("ffi.ArraySize")(ffi.Array([1, 2, 3])) == 3

# Errors keep their kinds across the packages.
def raise_key(x):
    raise KeyError("missing " + str(x))
ffi.register_global_func("coexist.raise_ffi", raise_key)
tvm_ffi.register_global_func("coexist.raise_ref", raise_key)
for get in (tvm_ffi.get_global_func, ffi.get_global_func):
    for name in ("coexist.raise_ffi", "coexist.raise_ref"):
        try:
            get(name)(7)
            raise AssertionError("no KeyError")
        except KeyError as e:
            assert "missing 7" in str(e)

# Kernels built with either header set, called through either package.
def through_ffi(lib):
    if order == "ffi-first" or "--ffi-load-module" in sys.argv:
        return ffi.load_module(lib)
    # Each function of the module loaded through tvm_ffi, handed to ffi through the registry.
    mod = tvm_ffi.load_module(lib)
    class Funcs:
        pass
    funcs = Funcs()
    for name in ("sum_any", "call_with", "fail", "dim0"):
        if mod.implements_function(name):
            tvm_ffi.register_global_func("coexist.k." + name, getattr(mod, name), override=True)
            setattr(funcs, name, ffi.get_global_func("coexist.k." + name))
    return funcs
ours = {"ffi": through_ffi(ours_lib), "ref": tvm_ffi.load_module(ours_lib)}
theirs = {"ffi": through_ffi(ref_lib), "ref": tvm_ffi.load_module(ref_lib)}
cb_ffi = ffi.get_global_func("coexist.from_ffi")
cb_ref = tvm_ffi.get_global_func("coexist.from_ref")
for side in ("ffi", "ref"):
    assert ours[side].sum_any(t) == 15.0
    assert ours[side].sum_any(ref_tensor) == ours[side].sum_any(ffi_tensor) == 15.0
    assert theirs[side].dim0(t) == 6
    for mod in (ours[side], theirs[side]):
        assert mod.call_with(cb_ffi, 10) == 11
        assert mod.call_with(cb_ref, 10) == 20
        assert mod.call_with(lambda x: x - 1, 10) == 9
    try:
        ours[side].fail("IndexError", "out of range")
        raise AssertionError("no IndexError")
    except IndexError as e:
        assert "out of range" in str(e)
    try:
        theirs[side].fail("bad value")
        raise AssertionError("no ValueError")
    except ValueError as e:
        assert "bad value" in str(e)
    try:
        theirs[side].call_with(tvm_ffi.get_global_func("coexist.raise_ffi"), 1)
        raise AssertionError("no KeyError")
    except KeyError:
        pass

# Threads: callbacks of both packages from kernels called through both, concurrently.
errors = []
def work(k):
    try:
        for i in range(200):
            side = "ffi" if (i + k) % 2 else "ref"
            mod = ours[side] if i % 3 else theirs[side]
            assert mod.call_with(cb_ffi, i) == i + 1
            assert mod.call_with(cb_ref, i) == 2 * i
    except BaseException as e:  # reported below
        errors.append(e)
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
assert not errors, errors

# A type defined in Python with ffi.dataclasses.py_class, on whichever runtime serves: its objects
# convert their fields, cross into the other package and come back as the same class.
from ffi.dataclasses import field, py_class

@py_class("coexist.Point", eq=True)
class Point(ffi.Object):
    x: int
    tags: list = field(default_factory=list)

p = Point(1, tags=[2])
try:
    p.x = "no"
    raise AssertionError("a str was stored in an int field")
except TypeError:
    pass
assert str(tvm_ffi.convert(p)) == str(p) == "coexist.Point(x=1, tags=[2])"
tvm_ffi.register_global_func("coexist.first_item", lambda seq: seq[0])
back = ffi.get_global_func("coexist.first_item")(ffi.Array([p]))
assert type(back) is Point and back == p and back.same_as(p)

# An enum defined in Python: its members and state live in the serving runtime, so the other
# package's serializer and structural equality treat them as singletons too.
import tvm_ffi.serialization
from ffi.dataclasses import IntEnum

class Level(IntEnum, type_key="coexist.Level"):
    LOW = 1
    HIGH = 9

text = tvm_ffi.serialization.to_json_graph_str(Level.HIGH)
assert ffi.serialization.from_json_graph_str(text).same_as(Level.HIGH)
assert tvm_ffi.structural_equal(Level.LOW, Level(1)) and Level(9) == 9
print("coexist-ok")
"""


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    try:
        importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    out = tmp_path_factory.mktemp("coexist")
    ours = build_kernel(os.path.join(TESTS_DIR, "kernels", "py_kernels.cc"), str(out))
    src = out / "ref_kernels.cc"
    src.write_text(REFERENCE_KERNELS)
    return ours, build_with_reference_headers(str(src), str(out / "ref_kernels.so"))


def _run(order, libs, *flags):
    return subprocess.run(
        [sys.executable, "-", order, *libs, *flags],
        input=textwrap.dedent(SCRIPT),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _our_runtime_serves_the_reference_package():
    """Whether our runtime has every global the reference package looks up at import."""
    import ffi

    return "ffi.GetKwargsObject" in ffi.list_global_func_names()


def test_reference_first_then_ffi(libs):
    out = _run("tvm_ffi-first", libs)
    assert out.returncode == 0, out.stderr
    assert "coexist-ok" in out.stdout


def test_ffi_load_module_on_the_reference_runtime(libs):
    out = _run("tvm_ffi-first", libs, "--ffi-load-module")
    assert out.returncode == 0, out.stderr


def test_ffi_first_then_reference(libs):
    if not _our_runtime_serves_the_reference_package():
        pytest.skip("this runtime lacks ffi.GetKwargsObject, which tvm_ffi needs at import")
    out = _run("ffi-first", libs)
    assert out.returncode == 0, out.stderr
    assert "coexist-ok" in out.stdout


def test_ffi_first_maps_one_runtime_when_reference_loader_runs():
    """The reference's loader, asked for its own library after ffi loaded ours, returns ours
    (the import hook), so no second runtime is mapped even before tvm_ffi imports."""
    try:
        importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    code = textwrap.dedent(
        """
        import ffi
        from tvm_ffi import libinfo
        lib = libinfo.load_lib_ctypes("apache-tvm-ffi", "tvm_ffi", "RTLD_GLOBAL")
        assert lib is ffi._LIB, lib
        mapped = {l.split()[-1] for l in open("/proc/self/maps")
                  if l.rstrip().endswith(("/libtvm_ffi.so", "/libffi_runtime.so"))}
        assert mapped == {ffi.runtime_info()["path"]}, mapped
        assert ffi.runtime_info()["implementation"] == "ffi"
        print("one-runtime")
        """
    )
    # Importing tvm_ffi.libinfo runs tvm_ffi/__init__ first, which loads the runtime through the
    # patched loader; without GetKwargsObject it then stops, so import the submodule by path.
    code = code.replace(
        "from tvm_ffi import libinfo",
        "import importlib.util, sys, types\n"
        "spec = importlib.util.find_spec('tvm_ffi')\n"
        "pkg = types.ModuleType('tvm_ffi'); pkg.__path__ = spec.submodule_search_locations\n"
        "sys.modules['tvm_ffi'] = pkg\n"
        "import tvm_ffi.libinfo as libinfo",
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "one-runtime" in out.stdout


def test_runtime_info_names_our_library():
    import ffi
    import ffi.libinfo

    info = ffi.runtime_info()
    assert set(info) == {"path", "implementation", "abi_version"}
    assert os.path.samefile(info["path"], ffi.libinfo.get_runtime_library_path())
    assert info["implementation"] == "ffi"
    major, minor, _ = info["abi_version"].split(".")
    assert (int(major), int(minor)) == (0, 1)
    # ffi.LIB (the reference's tvm_ffi.LIB): the same library, its C functions callable.
    import ctypes

    version = (ctypes.c_uint32 * 3)()
    ffi.LIB.TVMFFIGetVersion(version)
    assert ".".join(map(str, version)) == info["abi_version"]


def test_a_runtime_of_another_abi_is_refused_at_import(tmp_path):
    """A TVM-FFI runtime already loaded whose ABI version differs is refused with ImportError."""
    src = tmp_path / "old_runtime.c"
    src.write_text(
        textwrap.dedent(
            """
            typedef struct { unsigned major, minor, patch; } V;
            void TVMFFIGetVersion(V* v) { v->major = 0; v->minor = 0; v->patch = 9; }
            """
        )
    )
    lib = tmp_path / "libtvm_ffi.so"
    cmd = ["gcc", "-shared", "-fPIC", "-Wl,-soname,libtvm_ffi.so", str(src), "-o", str(lib)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    code = f"import ctypes; ctypes.CDLL({str(lib)!r}, ctypes.RTLD_GLOBAL); import ffi"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "ImportError" in out.stderr and "has ABI version 0.0.9" in out.stderr


REFUSED_IMPORTS = """
import sys

first, importer = sys.argv[1], sys.argv[2]
__import__(first)
import numpy as np
import torch

import ffi
import tvm_ffi

package = {"ffi": ffi, "tvm_ffi": tvm_ffi}[importer]
misaligned_torch = torch.ones(9)[1:]
misaligned_numpy = np.ones(9, np.float32)[1:]
strided_torch = torch.ones(4, 4).t()
for producer, settings in [
    (misaligned_torch, {"require_alignment": 64}),
    (misaligned_numpy, {"require_alignment": 64}),
    (strided_torch, {"require_contiguous": True}),
]:
    before = sys.getrefcount(producer)
    for _ in range(200):
        try:
            package.from_dlpack(producer, **settings)
        except Exception:
            pass
        else:
            sys.exit(f"{settings} was not refused")
    after = sys.getrefcount(producer)
    if after != before:
        sys.exit(f"{type(producer).__name__} {settings}: {after - before} references leaked")
print("refusals-ok")
"""


@pytest.mark.parametrize(
    "first, importer",
    [("ffi", "tvm_ffi"), ("ffi", "ffi"), ("tvm_ffi", "ffi"), ("tvm_ffi", "tvm_ffi")],
    ids=["tvm_ffi-on-ours", "ffi-on-ours", "ffi-on-reference", "tvm_ffi-on-reference"],
)
def test_refused_imports_free_the_producer_once_on_either_runtime(first, importer):
    """Both runtimes follow one contract for a refused DLPack import: the tensor is not taken
    (the caller frees it). Each package relies on it: a runtime that freed it too crashed the
    reference package, and ours leaked every producer a refused ffi import saw on theirs."""
    if first == "ffi" and importer == "tvm_ffi" and not _our_runtime_serves_the_reference_package():
        pytest.skip("this runtime lacks ffi.GetKwargsObject, which tvm_ffi needs at import")
    out = subprocess.run(
        [sys.executable, "-c", REFUSED_IMPORTS, first, importer],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "refusals-ok" in out.stdout


PY_CLASS_ON_EITHER_RUNTIME = """
import sys
from typing import Any, Optional

__import__(sys.argv[1])
import ffi
from ffi import dataclasses as dc


@dc.py_class("coexist.Node")
class Node(ffi.Object):
    value: int
    label: str = "x"
    payload: Any = None
    parent: Optional["Node"] = None
    items: list = dc.field(default_factory=list)


a = Node(1)
assert (a.value, a.label, a.payload, a.parent, list(a.items)) == (1, "x", None, None, [])
b = Node(2, "b", payload=[1, "two"], parent=a, items=[3])
b.payload = {"k": 1.5}
b.label = "bb"
assert b.parent.same_as(a) and b.payload["k"] == 1.5 and b.label == "bb"
try:
    b.value = "not an int"
except TypeError:
    pass
else:
    sys.exit("a str was stored in an int field")
try:

    @ffi.register_object("coexist.NoSuchType")
    class Missing(ffi.Object):
        pass

except ValueError:  # whichever runtime (the reference's raises RuntimeError for the lookup)
    pass
else:
    sys.exit("an unknown type key was registered")
print("py-class-ok")
"""


@pytest.mark.parametrize("first", ["ffi", "tvm_ffi"])
def test_py_class_fields_on_either_runtime(first):
    """A field taking any value (no Python converter) is set through the same C callback as a
    typed one: the reference's runtime, serving the process when tvm_ffi came first, calls it
    for every field (it crashed on a NULL one). An unknown key is a ValueError on both."""
    out = subprocess.run(
        [sys.executable, "-c", PY_CLASS_ON_EITHER_RUNTIME, first],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "py-class-ok" in out.stdout
