"""The standard global functions and types the runtime provides for the reference's Python package
(docs/coexistence.md), exercised through ours: content comparison and hashing (ffi.Recursive*),
deep copy (ffi.DeepCopy), the module functions (ffi.Module*), and the standard type keys."""

import ast
import json
import re
import shutil

import pytest

import ffi


def g(name):
    return ffi.get_global_func(name)


def test_recursive_eq_compares_contents_through_containers():
    eq = g("ffi.RecursiveEq")
    a = ffi.Array([1, "x" * 40, ffi.Map({"k": ffi.List([1.5, None])})])
    b = ffi.Array([1, "x" * 40, ffi.Map({"k": ffi.List([1.5, None])})])
    assert not a.same_as(b)
    assert eq(a, b)
    assert not eq(a, ffi.Array([1, "x" * 40, ffi.Map({"k": ffi.List([1.5, 0])})]))
    assert not eq(a, ffi.Array([1, "x" * 40]))
    # Short (inline) and long (object) strings compare by text; types are strict.
    assert eq("ab", "ab") and not eq("ab", "abc")
    assert eq(2, 2) and not eq(2, 2.0) and not eq(True, 1) and not eq(2, 3)
    # Different kinds are unequal, not an error; NaN equals NaN; None only None.
    assert not eq(1, "1") and not eq(ffi.Array([1]), ffi.List([1]))
    assert eq(float("nan"), float("nan")) and eq(-0.0, 0.0)
    assert eq(None, None) and not eq(None, 0)
    # Objects of one type without fields (functions) are equal, as in TVM-FFI.
    assert eq(ffi.convert(lambda: 1), ffi.convert(lambda: 2))


def test_recursive_order_is_lexicographic_and_refuses_unordered_kinds():
    lt, le, gt, ge = (g(f"ffi.Recursive{op}") for op in ("Lt", "Le", "Gt", "Ge"))
    assert lt(ffi.Array([1, 2]), ffi.Array([1, 3]))
    assert lt(ffi.Array([1, 2]), ffi.Array([1, 2, 0]))
    assert le(ffi.Array([1, 2]), ffi.Array([1, 2])) and not lt(ffi.Array([1, 2]), ffi.Array([1, 2]))
    assert gt("b", "a") and ge("a", "a")
    with pytest.raises(TypeError, match="Cannot order"):
        lt(ffi.Map({"a": 1}), ffi.Map({"a": 2}))
    with pytest.raises(TypeError, match="Cannot order"):
        lt(1, "a")
    with pytest.raises(TypeError, match="Cannot order"):
        lt(1, 1.5)  # types are strict
    with pytest.raises(TypeError, match="NaN"):
        lt(float("nan"), 1.0)
    assert lt(None, 42) and lt(None, "s") and not gt(None, 42)  # None orders first
    cyclic_a, cyclic_b = ffi.List(), ffi.List()
    cyclic_a.append(cyclic_a)
    cyclic_b.append(cyclic_b)
    assert g("ffi.RecursiveEq")(cyclic_a, cyclic_b)
    with pytest.raises(ValueError, match="cyclic reference"):
        lt(cyclic_a, cyclic_b)
    cyclic_a.clear()
    cyclic_b.clear()


def test_recursive_hash_agrees_with_eq():
    h = g("ffi.RecursiveHash")
    a = ffi.Map({"a": ffi.Array([1, 2]), "b": "long string " * 4})
    b = ffi.Map({"b": "long string " * 4, "a": ffi.Array([1, 2])})  # other insertion order
    assert g("ffi.RecursiveEq")(a, b)
    assert h(a) == h(b)
    assert h(2) != h(2.0) and h(1) != h(True)  # unequal values of strict types
    assert h(float("nan")) == h(-float("nan")) and h(-0.0) == h(0.0)
    assert h(ffi.convert(lambda: 1)) == h(ffi.convert(lambda: 2))
    assert h(ffi.Array([1, 2])) != h(ffi.Array([2, 1]))


def test_deep_copy_copies_containers_and_keeps_sharing():
    copy = g("ffi.DeepCopy")
    inner = ffi.List([1, 2])
    src = ffi.Array([inner, inner, ffi.Map({"k": inner}), "s"])
    out = copy(src)
    assert g("ffi.RecursiveEq")(src, out)
    assert not out.same_as(src)
    assert not out[0].same_as(inner)
    # One object reached twice is copied once: the copy shares it the same way.
    assert out[0].same_as(out[1]) and out[2]["k"].same_as(out[0])
    out[0].append(3)
    assert list(inner) == [1, 2]
    # Leaves and opaque objects are shared, not copied.
    f = g("ffi.RecursiveEq")
    assert copy(f).same_as(f)
    assert copy(5) == 5 and copy("text") == "text"


def test_module_globals(mod, kernels_path):
    assert g("ffi.ModuleGetKind")(mod) == "library"
    assert g("ffi.ModuleGetPropertyMask")(mod) == 0b011  # binary serializable (claimed), runnable
    assert g("ffi.ModuleImplementsFunction")(mod, "echo", False)
    assert not g("ffi.ModuleImplementsFunction")(mod, "no_such_function", False)
    metadata = g("ffi.ModuleGetFunctionMetadata")(mod, "add_int", False)
    assert metadata is not None and isinstance(json.loads(metadata), dict)
    assert g("ffi.ModuleGetFunctionMetadata")(mod, "no_such_function", False) is None
    assert g("ffi.ModuleGetFunctionDoc")(mod, "no_such_function", False) is None
    assert list(g("ffi.ModuleGetWriteFormats")(mod)) == []
    assert g("ffi.ModuleInspectSource")(mod, "") == ""
    with pytest.raises(RuntimeError, match=r"Module\[library\] does not support WriteToFile"):
        g("ffi.ModuleWriteToFile")(mod, "/tmp/never-written.so", "so")
    with pytest.raises(RuntimeError, match="Cyclic dependency"):
        g("ffi.ModuleImportModule")(mod, mod)
    g("ffi.ModuleClearImports")(mod)
    assert list(g("ffi.ModuleGetImports")(mod)) == []
    before = mod._use_count()
    g("ffi.ModuleGlobalsAdd")(mod)
    assert mod._use_count() == before + 1
    g("ffi.ModuleGlobalsRemove")(mod)
    assert mod._use_count() == before
    loaded = g("ffi.ModuleLoadFromFile")(kernels_path)
    assert loaded["add_int"](2, 3) == 5


@pytest.mark.parametrize("suffix", ["dll", "dylib", "dso"])
def test_module_load_from_file_takes_any_shared_library_suffix(kernels_path, tmp_path, suffix):
    # Every platform's shared-library suffix goes to the one shared-library loader (.so).
    path = tmp_path / f"kernels.{suffix}"
    shutil.copy(kernels_path, path)
    assert g("ffi.ModuleLoadFromFile")(str(path))["add_int"](2, 3) == 5


def test_module_load_from_file_names_an_unknown_format():
    with pytest.raises(RuntimeError, match=r"no loader for format `xyz`"):
        g("ffi.ModuleLoadFromFile")("/tmp/some.xyz")


def test_standard_type_keys_are_registered():
    keys = set(ffi.get_registered_type_keys())
    for key in (
        "ffi.reflection.AccessStep",
        "ffi.reflection.AccessPath",
        "ffi.StructuralKey",
        "ffi.StructuralVisitor",
        "ffi.StructuralMutator",
        "ffi.Enum",
        "ffi.IntEnum",
        "ffi.StrEnum",
        "ffi.EnumState",
    ):
        assert key in keys, key


def test_enum_state_fields_are_reflected():
    entries, indexes, attrs = ffi.List([ffi.Array([])]), ffi.Dict({"a": ffi.List([])}), ffi.Dict()
    make = g("ffi.MakeObjectFromPackedArgs")
    state = make("ffi.EnumState", "entries", entries, "indexes", indexes, "attrs", attrs)
    assert state.type_key == "ffi.EnumState"
    assert state.entries.same_as(entries) and state.indexes.same_as(indexes)
    assert state.attrs.same_as(attrs)


def test_value_constructors():
    assert g("ffi.String")("héllo") == "héllo"
    assert g("ffi.Bytes")(b"\x00ab") == b"\x00ab"
    shape = g("ffi.Shape")(2, 3, 4)
    assert tuple(shape) == (2, 3, 4)
    assert tuple(g("ffi.Shape")()) == ()
    with pytest.raises(TypeError):
        g("ffi.Shape")(2, "x")


def test_container_find_first_non_cpu_device():
    torch = pytest.importorskip("torch")
    find = g("ffi.ContainerFindFirstNonCPUDevice")
    cpu = ffi.from_dlpack(torch.zeros(2))
    device = find(ffi.Array([1, ffi.Map({"t": cpu}), ffi.List([cpu])]))
    assert (device.dlpack_device_type(), device.index) == (1, 0)  # none off the CPU: the CPU
    assert (find(5).dlpack_device_type(), find(5).index) == (1, 0)


def test_contains_matches_strings_however_stored():
    # "ffi.Map" (7 bytes) is stored inline by the caller; the runtime's type key is an object.
    keys = g("ffi.GetRegisteredTypeKeys")()
    contains = g("ffi.ArrayContains")
    assert contains(keys, "ffi.Map") and contains(keys, "ffi.Array")
    assert not contains(keys, "ffi.Nope")
    assert g("ffi.ListContains")(ffi.List(["a" * 30, "b"]), "b")


def test_py_class_field_accessors_cover_the_native_layouts():
    getter = g("ffi.MakeFieldGetter")
    # int, float, bool, pointer, dtype, device, Any (-1), object: one C getter each.
    addresses = {getter(index) for index in (1, 3, 2, 4, 5, 6, -1, 64)}
    assert len(addresses) == 8 and 0 not in addresses
    assert getter(75) == getter(64)  # every object type shares the pointer layout
    with pytest.raises(TypeError, match="No native field layout"):
        getter(13)
    with pytest.raises(TypeError, match="No native field layout"):
        g("ffi.MakeFieldSetter")(13, 0, 0)
    assert isinstance(g("ffi.MakeFieldSetter")(1, 0, 0), ffi.Function)
    with pytest.raises(ValueError, match="smaller than its header"):
        g("ffi._PyClassRegisterTypeAttrColumns")(64, 8)


def test_repr_print_forms():
    r = g("ffi.ReprPrint")
    assert [r(v) for v in (None, True, 42, -1, 0.0, 3.14, 1e10)] == [
        "None",
        "True",
        "42",
        "-1",
        "0",
        "3.14",
        "1e+10",
    ]
    # Floats as the reference prints them: %g, six significant digits.
    assert [r(v) for v in (100.0, 1234567.0, 3.14159265, 1e-5, -2.5)] == [
        "100",
        "1.23457e+06",
        "3.14159",
        "1e-05",
        "-2.5",
    ]
    assert r("hi") == '"hi"'
    assert r(ffi.Array([1, "a"])) == '(1, "a")' and r(ffi.Array([7])) == "(7,)"
    assert r(ffi.List([ffi.List([]), None])) == "[[], None]"
    assert r(ffi.Map({"k": ffi.Array([])})) == '{"k": ()}'
    assert r(ffi.Shape((5, 6))) == "Shape(5, 6)"
    cycle = ffi.List([1])
    cycle.append(cycle)
    assert r(cycle) == "[1, ...]"
    np = pytest.importorskip("numpy")
    assert r(ffi.from_dlpack(np.zeros((3, 4), dtype="float32"))) == "float32[3, 4]@cpu:0"
    # Strings and bytes print as Python literals that read back.
    for text in ['a"b', "a\\b", "\\", "a\nb", "a\x00b", "\x1b", "é"]:
        assert ast.literal_eval(r(text)) == text
    assert ast.literal_eval(r(b'q"\\\x00\xff')) == b'q"\\\x00\xff'
    assert ast.literal_eval(r(ffi.Map({"k": "a\nb"}))) == {"k": "a\nb"}
    cycle.pop()


def test_repr_print_with_addresses(monkeypatch):
    r = g("ffi.ReprPrint")
    monkeypatch.setenv("TVM_FFI_REPR_WITH_ADDR", "1")
    addr = r"0x[0-9a-f]+"
    assert re.fullmatch(rf"\(1, 2\)@{addr}", r(ffi.Array([1, 2])))
    assert re.fullmatch(rf"\[\]@{addr}", r(ffi.List([])))
    shared = ffi.Map({})
    m = re.fullmatch(rf"\[{{}}@({addr}), {{}}@({addr})\]@{addr}", r(ffi.List([shared, shared])))
    assert m and m.group(1) == m.group(2)
    cycle = ffi.List([1])
    cycle.append(cycle)
    m = re.fullmatch(rf"\[1, \.\.\.@({addr})\]@({addr})", r(cycle))
    assert m and m.group(1) == m.group(2)
    cycle.pop()
    monkeypatch.setenv("TVM_FFI_REPR_WITH_ADDR", "0")
    assert r(ffi.Array([1, 2])) == "(1, 2)"


def test_cycles_end_in_eq_hash_and_deep_copy():
    a, b = ffi.List([1]), ffi.List([1])
    a.append(a)
    b.append(b)
    assert g("ffi.RecursiveEq")(a, a) and g("ffi.RecursiveEq")(a, b)
    assert g("ffi.RecursiveHash")(a) == g("ffi.RecursiveHash")(b)
    d = ffi.Dict({"self": None})
    d["self"] = d
    assert g("ffi.RecursiveEq")(d, d)
    copy = g("ffi.DeepCopy")(a)
    assert not copy.same_as(a) and copy[1].same_as(copy)  # the cycle is rebuilt in the copy
    m = ffi.List([])
    m.append(ffi.Map({"back": m}))
    out = g("ffi.DeepCopy")(m)
    assert out[0]["back"].same_as(out)
