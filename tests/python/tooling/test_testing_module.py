"""ffi.testing: the testing library (src/testing, built with the package) under the reference's
type keys and function names, the Python classes bound to them, and one testing library per
process when both packages are imported, in either order."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import ffi
import ffi.testing as t


def test_global_functions_are_module_attributes():
    assert t.add_one(41) == 42
    assert t.echo("x" * 40) == "x" * 40
    assert t.nop(1, "a", None) is None
    assert t.apply(lambda a, b: a * b, 6, 7) == 42
    obj = t.TestIntPair(1, 2)
    before = t.object_use_count(obj)
    extra = [obj, obj]
    assert t.object_use_count(obj) == before  # a Python reference is one C++ reference
    del extra
    assert t.TestIntPairSum(obj) == 3
    assert "echo" in dir(t) and "schema_id_int" in t._ffi_api.__all__


def test_raise_error_keeps_its_kind():
    with pytest.raises(ValueError, match="bad value"):
        t.test_raise_error("ValueError", "bad value")
    with pytest.raises(IndexError, match="out of range"):
        t.test_raise_error("IndexError", "out of range")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("int", 7),
        ("float", 2.5),
        ("bool", True),
        ("string", "s" * 30),
        ("bytes", b"\x00\x01"),
        ("opt_int", None),
        ("opt_str", "x"),
        ("arr_int", [1, 2, 3]),
        ("map_str_int", {"a": 1}),
        ("variant_int_str", "v"),
        ("variant_int_str", 3),
    ],
)
def test_schema_identities_round_trip(name, value):
    result = getattr(t, f"schema_id_{name}")(value)
    if isinstance(value, list):
        assert list(result) == value
    elif isinstance(value, dict):
        assert dict(result) == value
    else:
        assert result == value and type(result) is type(value)


def test_schema_identities_check_their_types():
    with pytest.raises(TypeError):
        t.schema_id_int("not an int")
    with pytest.raises(TypeError):
        t.schema_id_arr_int(["a"])
    assert t.schema_id_device(ffi.device("cpu", 0)) == ffi.device("cpu", 0)
    assert str(t.schema_id_dtype(ffi.dtype("float16"))) == "float16"
    assert dict(t.schema_arr_map_opt([1, None, 3], {"a": [0]}, "b")) == {"a": (0,), "b": (1, 3)}
    assert t.schema_no_args() == 1 and t.schema_no_args_no_return() is None
    assert t.schema_variant_mix([1, 2]) == [1, 2]


def test_functions_returning_tensors_in_containers():
    x = torch.arange(4, dtype=torch.float32)
    (y,) = t.make_array_with_tensor(x)
    assert isinstance(y, torch.Tensor) and y.data_ptr() == x.data_ptr()
    m = t.make_nested_map_with_tensor(x, x)
    assert m["scalar"] == 99 and m["map"]["t"].data_ptr() == x.data_ptr()
    d = t.make_dict_with_tensor(np.ones(3, dtype="float32"))
    assert d["value"] == 42 and d["tensor"].shape == (3,)
    assert t.optional_tensor_view_has_value(x) and not t.optional_tensor_view_has_value(None)


def test_c_symbols_become_functions():
    add_one = ffi.Function.__from_extern_c__(t.get_add_one_c_symbol())
    assert add_one(1) == 2
    mlir_add_one = ffi.Function.__from_mlir_packed_safe_call__(t.get_mlir_add_one_c_symbol())
    assert mlir_add_one(5) == 6
    with pytest.raises(TypeError):
        add_one("x")


def test_object_fields_defaults_and_methods():
    o = t.TestObjectBase(v_i64=3)
    assert (o.v_i64, o.v_f64, o.v_str) == (3, 10.0, "hello")
    assert o.add_i64(2) == 5
    o.v_str = "changed"
    assert o.v_str == "changed"
    with pytest.raises(AttributeError):
        o.v_f64 = 1.0  # read-only in C++
    d = t.TestObjectDerived(v_map={"k": 1}, v_array=[1, "a"], v_i64=1)
    assert isinstance(d, t.TestObjectBase) and d.v_map["k"] == 1 and list(d.v_array) == [1, "a"]
    pair = t.TestIntPair(3, 4)
    assert (pair.a, pair.b, pair.sum()) == (3, 4, 7)
    holder = t.TestObjectPtrHolder(value=o)
    assert holder.value.same_as(o) and holder.optional_value is None
    assert t.TestNonCopyable(5).value == 5


def test_create_object_and_unregistered_types():
    o = t.create_object("testing.TestObjectBase", v_i64=7, v_str="s")
    assert type(o) is t.TestObjectBase and (o.v_i64, o.v_f64, o.v_str) == (7, 10.0, "s")
    u = t.make_unregistered_object()
    assert u.__tvm_ffi_type_info__.type_key == "testing.TestUnregisteredObject"
    assert (u.v1, u.v2, u.get_v1_plus_one(), u.get_v2_plus_two()) == (41, 42, 42, 44)
    with pytest.raises(Exception, match="no_such_field"):
        t.create_object("testing.TestObjectBase", no_such_field=1)


def test_auto_generated_constructors():
    a = t._TestCxxAutoInit(1, c=3)
    assert (a.a, a.b, a.c, a.d) == (1, 42, 3, 99)
    with pytest.raises(TypeError):
        t._TestCxxAutoInit(1, 2, 3)  # c is keyword-only
    assert (t._TestCxxAutoInitAllInitOff().x, t._TestCxxAutoInitAllInitOff().z) == (7, 1234)
    k = t._TestCxxAutoInitKwOnlyDefaults(1, k_required=2)
    assert (k.p_default, k.k_default, k.hidden) == (11, 22, 33)
    child = t._TestCxxAutoInitChild(1, 2, child_kw_only=3)
    assert (child.parent_required, child.child_required, child.parent_default) == (1, 2, 5)
    assert t._TestCxxKwOnly(x=1, y=2, z=3).w == 100
    subset = t._TestCxxInitSubset(5)
    assert (subset.required_field, subset.optional_field, subset.note) == (5, -1, "default")
    with pytest.raises(TypeError):
        t._TestCxxNoAutoInit(1, 2)


def test_dataclass_fixtures():
    base = t._TestCxxClassBase(1, 2)
    assert (base.v_i64, base.v_i32) == (2, 4)  # its Python __init__ adds 1 and 2
    d1 = t._TestCxxClassDerived(1, 2, 3.0)
    d2 = t._TestCxxClassDerived(1, 2, 3.0)
    assert d1 == d2 and hash(d1) == hash(d2) and d1.v_f32 == 8.0
    assert d1 < t._TestCxxClassDerived(1, 2, 4.0)
    dd = t._TestCxxClassDerivedDerived(1, 2, 3.0, True)
    assert (dd.v_str, dd.v_bool) == ("default", True)
    frozen = t.TestFrozenCxx(1, "a")
    with pytest.raises(AttributeError):
        frozen.value = 2
    holder = t._TestCxxEnumHolder(t._TestCxxIntEnum.high, t._TestCxxStrEnum.mul)
    assert holder.priority.value == 20 and holder.opcode.value == "*"
    assert t.enum_variant_get("Beta")._str_index == "Beta"


def test_comparison_and_hash_traits():
    eq = ffi.get_global_func("ffi.RecursiveEq")
    hash_of = ffi.get_global_func("ffi.RecursiveHash")
    assert eq(t.TestCompare(1, "a", 1), t.TestCompare(1, "a", 2))  # ignored_field
    assert not eq(t.TestCompare(1, "a", 1), t.TestCompare(1, "b", 1))
    assert hash_of(t.TestHash(1, "a", 1)) == hash_of(t.TestHash(1, "a", 2))
    assert hash_of(t.TestCustomHash(1, "a")) == hash_of(t.TestCustomHash(1, "b"))
    assert eq(t.TestCustomCompare(1, "a"), t.TestCustomCompare(1, "b"))
    assert eq(t.TestEqWithoutHash(1, "a"), t.TestEqWithoutHash(1, "b"))
    with pytest.raises(Exception, match="hash"):
        hash_of(t.TestEqWithoutHash(1, "a"))


def test_run_with_gpu_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("FFI_TEST_LOCK_DIR", str(tmp_path / "locks"))
    assert t.run_with_gpu_lock(lambda a, *, b: a + b, 1, b=2) == 3
    assert (tmp_path / "locks" / "gpu.lock").exists()


def test_the_library_exports_functions_for_load_module():
    path = next(line.split()[-1] for line in open("/proc/self/maps") if "testing" in line)
    mod = ffi.load_module(path)
    assert mod.testing_dll_schema_id_int(5) == 5
    assert mod.testing_dll_test_add_with_docstring(2, 3) == 5
    assert "Add two integers" in mod.get_function_doc("testing_dll_test_add_with_docstring")


def _run(script, **env):
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


TESTING_LIBS = """
import os
def testing_libs():
    return {os.path.basename(line.split()[-1]) for line in open("/proc/self/maps")
            if "_testing.so" in line}
"""


def test_one_testing_library_when_ffi_testing_comes_first():
    pytest.importorskip("tvm_ffi")
    out = _run(
        TESTING_LIBS
        + """
import ffi.testing
import tvm_ffi, tvm_ffi.testing   # its extension binds to ours by SONAME: nothing re-registers
assert testing_libs() == {"libffi_testing.so"}, testing_libs()
assert tvm_ffi.testing.TestIntPair(1, 2).sum() == 3
assert ffi.testing.TestIntPair(3, 4).sum() == 7
print(tvm_ffi.testing.create_object("testing.TestObjectBase", v_i64=3).v_i64)
"""
    )
    assert out.strip() == "3"


def test_one_testing_library_when_tvm_ffi_comes_first():
    pytest.importorskip("tvm_ffi")
    out = _run(
        TESTING_LIBS
        + """
import tvm_ffi
import ffi.testing               # the reference's testing library serves; ours is not loaded
assert testing_libs() == {"libtvm_ffi_testing.so"}, testing_libs()
print(ffi.testing.TestIntPair(3, 4).sum(), ffi.testing._TestCxxAutoInit(1, c=2).d)
"""
    )
    assert out.split() == ["7", "99"]


def test_a_missing_library_is_a_clear_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import ffi.testing"],
        capture_output=True,
        text=True,
        env={**os.environ, "FFI_TESTING_LIBRARY_PATH": str(tmp_path / "nothing.so")},
        timeout=120,
    )
    assert proc.returncode == 1
    assert "RuntimeError" in proc.stderr and "the testing library" in proc.stderr


def test_field_descriptors_are_properties():
    from ffi.core import FFIProperty

    o = t.TestObjectBase(v_i64=1)
    writable, read_only = t.TestObjectBase.__dict__["v_i64"], t.TestObjectBase.__dict__["v_f64"]
    assert isinstance(writable, FFIProperty) and isinstance(read_only, FFIProperty)
    assert writable.fget(o) == 1 and read_only.fget(o) == 10.0
    writable.fset(o, 5)
    assert o.v_i64 == 5
    assert read_only.fset is None
    frozen = t.TestFrozenCxx.__dict__["value"]
    assert frozen.fset is None and frozen.fget(t.TestFrozenCxx(3, "x")) == 3
    with pytest.raises(TypeError):
        writable.fset(o, "not an int")


def test_c_class_exposes_cxx_hooks_and_annotated_field_types():
    for cls, hooks in (
        (t.TestCustomHash, {"__ffi_hash__"}),
        (t.TestCustomCompare, {"__ffi_hash__", "__ffi_eq__", "__ffi_compare__"}),
        (t.TestEqWithoutHash, {"__ffi_eq__"}),
        (t.TestObjectBase, set()),
    ):
        own = {
            name for name in ("__ffi_hash__", "__ffi_eq__", "__ffi_compare__") if name in vars(cls)
        }
        assert own == hooks, cls
        assert all(callable(vars(cls)[name]) for name in hooks)
    # The hook is the C++ one: it hashes the key only.
    hash_hook = vars(t.TestCustomHash)["__ffi_hash__"]
    assert hash_hook(t.TestCustomHash(1, "a"), lambda v: v * 10) == 10
    # TypeInfo's fields carry the class's dataclass Field, typed from the annotation.
    info = t._TestCxxClassBase.__tvm_ffi_type_info__
    assert [(f.name, f.dataclass_field.type) for f in info.fields] == [
        ("v_i64", int),
        ("v_i32", int),
    ]


def test_field_converter_is_a_static_marker():
    from ffi.dataclasses import Field, c_class, field, py_class

    def to_list(value):
        return list(value)

    f = field(converter=to_list)
    assert isinstance(f, Field) and f.converter is to_list
    default = field().converter
    assert default(5) == 5
    for decorator in (py_class, c_class):
        assert decorator.__dataclass_transform__["kwargs"]["converter"] is default


def test_c_class_warns_about_reflected_fields_left_unannotated():
    # In a child process: binding the testing types to new classes would rebind them for every
    # later test in this one.
    code = """
import warnings
import ffi.testing as t
from ffi.dataclasses import c_class
warnings.simplefilter("error")  # the package's own classes annotate every field: no warning
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")

    @c_class("testing.TestCxxClassDerived")
    class Derived(t._TestCxxClassBase):
        v_f64: float  # v_f32 left out; the base's fields are the base's business

    @c_class("testing.TestCxxClassDerivedDerived")
    class Full(Derived):
        v_bool: bool
        v_str: str
(warning,) = caught
assert warning.category is UserWarning and warning.lineno == 9, (warning.lineno, warning)
assert "`Derived` does not annotate the following reflected field(s): v_f32." in str(
    warning.message
), warning.message
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
