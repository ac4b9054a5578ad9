"""The reference's Python package (``tvm_ffi``) on our runtime standing in for its own
(docs/coexistence.md): a copy of the installed package whose ``lib/libtvm_ffi.so`` is our runtime
library, imported in a fresh interpreter, through a representative set of its public API:
containers, global functions and callbacks, tensors through DLPack (PyTorch and NumPy), objects
and reflection, errors, and kernel libraries built with either header set; and the reference's
own testing library (from the wheel's sources) built with our headers."""

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from support.build import (
    build_kernel,
    build_with_reference_headers,
)
from support.paths import TESTS_DIR

import ffi
import ffi.libinfo

REFERENCE_KERNELS = """
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
int64_t Dim0(tvm::ffi::TensorView t) { return t.size(0); }
tvm::ffi::Array<int64_t> Range(int64_t n) {
  tvm::ffi::Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}
void Fail(tvm::ffi::String msg) { TVM_FFI_THROW(IndexError) << msg; }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dim0, Dim0);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(range, Range);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
"""

SCRIPT = r"""
import copy, sys
import numpy as np
import torch
import tvm_ffi

ours_lib, ref_lib, our_runtime = sys.argv[1:4]
mapped = {l.split()[-1] for l in open("/proc/self/maps") if l.rstrip().endswith(".so")}
runtime = [p for p in mapped if p.endswith("/lib/libtvm_ffi.so")]
assert len(runtime) == 1, runtime
assert open(runtime[0], "rb").read() == open(our_runtime, "rb").read(), "not our runtime"

# Containers.
a = tvm_ffi.Array([1, 2.5, "s", None])
assert len(a) == 4 and a[0] == 1 and a[2] == "s" and a[-1] is None and list(a)[1] == 2.5
b = tvm_ffi.Array([1, 2.5, "s", None])
assert a == b and hash(a) == hash(b) and not a.same_as(b)
lst = tvm_ffi.List([1, 2])
lst.append(3)
lst[0] = 10
assert list(lst) == [10, 2, 3]
m = tvm_ffi.Map({"a": 1, "b": tvm_ffi.Array([1])})
assert m["a"] == 1 and "b" in m and len(m) == 2 and set(m.keys()) == {"a", "b"}
try:
    m["zz"]
    raise AssertionError("no KeyError")
except KeyError:
    pass
d = tvm_ffi.Dict({"x": 1})
d["y"] = 2
assert dict(d.items()) == {"x": 1, "y": 2}
deep = copy.deepcopy(tvm_ffi.Array([tvm_ffi.List([1])]))
assert list(deep[0]) == [1]
assert tvm_ffi.Shape((2, 3)) == (2, 3)

# Global functions and callbacks, both directions through C++.
@tvm_ffi.register_global_func("ours_rt.add")
def add(x, y):
    return x + y
assert tvm_ffi.get_global_func("ours_rt.add")(2, 3) == 5
assert "ours_rt.add" in tvm_ffi.registry.list_global_func_names()
f = tvm_ffi.convert(lambda x: x * 3)
assert f(4) == 12

# Errors keep their kinds through the runtime.
def bad(_):
    raise ValueError("bad input")
try:
    tvm_ffi.convert(bad)(1)
    raise AssertionError("no ValueError")
except ValueError as e:
    assert "bad input" in str(e)

# Tensors through DLPack, zero copy both ways.
t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
ft = tvm_ffi.from_dlpack(t)
assert tuple(ft.shape) == (2, 3) and str(ft.dtype) == "float32"
back = torch.from_dlpack(ft)
assert back.data_ptr() == t.data_ptr()
n = np.arange(4, dtype=np.int64)
assert np.from_dlpack(tvm_ffi.from_dlpack(n)).tolist() == [0, 1, 2, 3]

# Objects and reflection: type keys and a reflected runtime type.
keys = tvm_ffi.registry.get_registered_type_keys()
for key in ("ffi.Array", "ffi.Map", "ffi.Module", "ffi.EnumState", "ffi.reflection.AccessPath"):
    assert key in keys, key
assert isinstance(a, tvm_ffi.Object)

# Structural equality, hashing, mismatch paths and keys (the runtime's globals and types).
lhs = {"items": [1, 2, {"k": 3}], "meta": {"tag": "x"}}
rhs = {"meta": {"tag": "x"}, "items": [1, 2, {"k": 3}]}
assert tvm_ffi.structural_equal(lhs, rhs)
assert tvm_ffi.structural_hash(lhs) == tvm_ffi.structural_hash(rhs)
assert not tvm_ffi.structural_equal(lhs, {"items": [1, 2, {"k": 4}], "meta": {"tag": "x"}})
assert tvm_ffi.get_first_structural_mismatch(lhs, rhs) is None
pl, pr = tvm_ffi.get_first_structural_mismatch([1, 2, 3], [1, 2])
from tvm_ffi.access_path import AccessKind, AccessPath
assert pl == AccessPath.root().array_item(2) and pr == AccessPath.root().array_item_missing(2)
assert [s.kind for s in pr.to_steps()] == [AccessKind.ARRAY_ITEM_MISSING]
k1, k2 = tvm_ffi.StructuralKey({"a": [1, 2]}), tvm_ffi.StructuralKey({"a": [1, 2]})
assert k1 == k2 and hash(k1) == hash(k2) and len(tvm_ffi.Map({k1: 1, k2: 2})) == 1

# Structural walking, visiting and rewriting (the runtime's visitor and mutator engines).
from tvm_ffi import structural as S
root = tvm_ffi.convert([1, [2, 3], {"a": 4}, "s", None])
seen = []
assert S.structural_walk(root, (int, seen.append)) is None and seen == [1, 2, 3, 4]
stop_at_3 = lambda v, vis: tvm_ffi.VisitInterrupt(v) if v == 3 else None
found = S.structural_visit(root, (int, stop_at_3))
assert found.value == 3
expected = tvm_ffi.convert([10, [20, 30], {"a": 40}, "s", None])
assert str(S.structural_map(root, (int, lambda v: v * 10))) == str(expected)
assert S.structural_map(root, (str, lambda v: v)).same_as(root)
modes = []
def on_array(value, mutator, mode):
    modes.append(int(mode))
    return mutator.default_mutate(value)
S.structural_mutate(tvm_ffi.convert([[1]])._move(), (tvm_ffi.Array, on_array))
assert modes == [1, 0]
moved = tvm_ffi.List([1, 2])
address = moved.__chandle__()
out = S.structural_map(moved._move(), (int, lambda v: v + 1))
assert out.__chandle__() == address and list(out) == [2, 3]

# Kernel libraries built with our headers and with the reference's.
ours = tvm_ffi.load_module(ours_lib)
assert ours.add_int(2, 40) == 42
assert ours.sum_any(torch.ones(5)) == 5.0
assert ours.call_with(lambda x: x + 1, 1) == 2
assert isinstance(ours.echo(tvm_ffi.Array([1, 2])), tvm_ffi.Array)
assert ours.implements_function("echo") and not ours.implements_function("nope")
try:
    ours.fail("KeyError", "no such key")
    raise AssertionError("no KeyError")
except KeyError:
    pass
ref = tvm_ffi.load_module(ref_lib)
assert ref.dim0(t) == 2
assert list(ref.range(3)) == [0, 1, 2]
try:
    ref.fail("oops")
    raise AssertionError("no IndexError")
except IndexError as e:
    assert "oops" in str(e)
print("reference-on-ours-ok")
"""


@pytest.fixture(scope="module")
def reference_copy(tmp_path_factory):
    """A copy of the installed reference package (and its metadata, which its loader reads)
    with our runtime library in place of its own."""
    try:
        dist = importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    if "ffi.GetKwargsObject" not in ffi.list_global_func_names():
        pytest.skip("this runtime lacks ffi.GetKwargsObject, which tvm_ffi needs at import")
    root = tmp_path_factory.mktemp("reference_on_ours")
    package = os.path.dirname(importlib.util.find_spec("tvm_ffi").origin)
    shutil.copytree(package, root / "tvm_ffi", ignore=shutil.ignore_patterns("__pycache__"))
    # The distribution's metadata too: the package's loader finds its library through it.
    metadata = dist.locate_file(next(f for f in dist.files if f.name == "METADATA")).parent
    shutil.copytree(str(metadata), root / metadata.name)
    ours = ffi.libinfo.get_runtime_library_path()
    shutil.copyfile(ours, root / "tvm_ffi" / "lib" / "libtvm_ffi.so")
    return root


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    out = tmp_path_factory.mktemp("kernels_both_headers")
    ours = build_kernel(os.path.join(TESTS_DIR, "kernels", "py_kernels.cc"), str(out))
    src = out / "ref_kernels.cc"
    src.write_text(REFERENCE_KERNELS)
    ref = build_with_reference_headers(str(src), str(out / "ref_kernels.so"))
    return ours, ref


def test_reference_package_on_our_runtime(reference_copy, kernels):
    env = dict(os.environ, PYTHONPATH=str(reference_copy))
    runtime = str(reference_copy / "tvm_ffi" / "lib" / "libtvm_ffi.so")
    out = subprocess.run(
        [sys.executable, "-", *kernels, ffi.libinfo.get_runtime_library_path()],
        input=textwrap.dedent(SCRIPT),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "reference-on-ours-ok" in out.stdout
    assert os.path.exists(runtime)


# The reference's own testing library (its source ships in the wheel), built with OUR headers and
# loaded by the reference's package on our runtime: its test objects, Arc / ObjectPtr / String
# fields, Python classes extending them (which the runtime copies and frees by the field records),
# packed forwarding and errors.
TESTING_SCRIPT = r"""
import copy, gc, sys
import tvm_ffi
import tvm_ffi.testing as t
from tvm_ffi.dataclasses import py_class

testing_lib = sys.argv[1]
use_count = tvm_ffi.get_global_func("testing.object_use_count")

# Packed functions: echo, and apply forwarding all arguments but the first (PackedArgs::Slice).
assert tvm_ffi.get_global_func("testing.echo")("x" * 20) == "x" * 20
assert tvm_ffi.get_global_func("testing.apply")(lambda a, b: a * b, 6, 7) == 42
# An error made from Strings and a C backtrace arrives with its kind and message.
try:
    tvm_ffi.get_global_func("testing.test_raise_error")("IndexError", "out of range")
    raise AssertionError("no error")
except IndexError as e:
    assert "out of range" in str(e)

# Reflected objects: defaults, fields, methods.
base = t.TestObjectBase(v_i64=3, v_f64=1.5, v_str="a string longer than seven bytes")
assert (base.v_i64, base.v_f64, base.v_str) == (3, 1.5, "a string longer than seven bytes")
assert base.add_i64(4) == 7

# A Python class extending a C++ type with String fields: made, copied and freed by the runtime
# from the field records.
@py_class("probe.Add")
class Add(t.TestObjectBase):
    lhs: int
    op_name: str

a = Add(v_i64=1, v_f64=2.0, v_str="base", lhs=3, op_name="add")
b = copy.copy(a)
assert (b.v_str, b.lhs, b.op_name) == ("base", 3, "add")
del a, b
gc.collect()

# Arc and ObjectPtr fields of a C++ type, and a Python class extending it.
target = t.TestObjectDerived(v_map={"k": 1}, v_array=[1, "two"], v_i64=7, v_f64=2.0, v_str="t")
holder = t.TestObjectPtrHolder(value=target, optional_value=None)
assert holder.value.same_as(target) and holder.optional_value is None
assert use_count(target) == 2

@py_class("probe.Child")
class Child(t.TestObjectPtrHolder):
    extra: int

child = Child(value=target, optional_value=target, extra=3)
assert use_count(target) == 4
child_copy = copy.copy(child)
assert use_count(target) == 6 and child_copy.extra == 3
del child_copy, child, holder
gc.collect()
assert use_count(target) == 1

# The documentation a typed export declares.
mod = tvm_ffi.load_module(testing_lib)
assert "Add two integers" in mod.get_function_doc("testing_dll_test_add_with_docstring")
print("testing-library-ok")
"""


def test_reference_testing_library_built_with_our_headers(reference_copy, tmp_path):
    package = os.path.dirname(importlib.util.find_spec("tvm_ffi").origin)
    source = os.path.join(package, "src", "ffi", "testing", "testing.cc")
    if not os.path.exists(source):
        pytest.skip("the installed apache-tvm-ffi ships no testing.cc")
    root = tmp_path / "copy"
    shutil.copytree(reference_copy, root)
    # The reference's own source: its warnings are not ours to fail on.
    lib = build_kernel(
        source, str(root / "tvm_ffi" / "lib"), name="libtvm_ffi_testing", strict=False
    )
    out = subprocess.run(
        [sys.executable, "-", str(lib)],
        input=TESTING_SCRIPT,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(root)),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "testing-library-ok" in out.stdout
