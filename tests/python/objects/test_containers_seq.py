"""Sequence containers from Python: a kernel library built with the reference implementation's
headers (tests/cpp/loader/containers_seq_reference.cc) takes and returns Array, List, Tuple and
Variant values through our package and runtime, and the runtime's ffi.Array*/ffi.List* functions
build and read them. Arrays come back as ffi.Array (an ffi.Object) and pass back in unchanged;
Python lists converting on call are tested in test_containers.py."""

import os
import subprocess
import sys

import pytest
from support.build import (
    build_kernel,
    build_with_reference_headers,
    reference_include_dir,
)
from support.paths import TESTS_DIR

SOURCE = os.path.join(TESTS_DIR, "..", "cpp", "loader", "containers_seq_reference.cc")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    lib = str(tmp_path_factory.mktemp("containers_seq") / "containers_seq_reference.so")
    build_with_reference_headers(SOURCE, lib)
    import ffi

    return ffi.load_module(lib)


def _g(name):
    import ffi

    return ffi.get_global_func(name)


def _items(array):
    return [_g("ffi.ArrayGetItem")(array, i) for i in range(_g("ffi.ArraySize")(array))]


def test_arrays_round_trip(ref):
    import ffi

    squares = ref.iota(5)
    assert isinstance(squares, ffi.Object)
    assert _items(squares) == [0, 1, 4, 9, 16]
    assert ref.sum_ints(squares) == 30
    assert ref.sum_ints(_g("ffi.Array")(1, 2, 3)) == 6
    rows = ref.triangle(3)
    assert [_items(r) for r in _items(rows)] == [[0], [10, 11], [20, 21, 22]]
    assert _items(ref.nested_stats(rows)) == [1, 2, 3, 0 + 10 + 11 + 20 + 21 + 22]


def test_mismatch_names_the_element(ref):
    with pytest.raises(TypeError, match=r"index 1"):
        ref.sum_ints(_g("ffi.Array")(1, "x"))
    with pytest.raises(TypeError):
        ref.sum_ints(3)


def test_tuple_variant_optional(ref):
    swapped = ref.swap_pair(_g("ffi.Array")(42, "answer"))
    assert _items(swapped) == ["answer", 42]
    assert ref.describe_variant(5) == "int:5"
    assert ref.describe_variant("hey") == "str:hey"
    assert ref.describe_variant(_g("ffi.Array")(1, 2)) == "array:2"
    with pytest.raises(TypeError):
        ref.describe_variant(2.5)
    assert ref.make_variant(True) == "seven"
    assert ref.make_variant(False) == 7
    assert ref.optional_length(None) == -1
    assert ref.optional_length(_g("ffi.Array")(1, 2)) == 2


def test_lists_are_shared(ref):
    lst = _g("ffi.List")(1)
    assert ref.list_grow(lst, 3) == 4
    assert _g("ffi.ListSize")(lst) == 4
    assert [_g("ffi.ListGetItem")(lst, i) for i in range(4)] == [1, 100, 101, 102]
    made = ref.make_list()
    _g("ffi.ListAppend")(made, "four")
    assert [_g("ffi.ListGetItem")(made, i) for i in range(4)] == [1, "two", 3.0, "four"]
    with pytest.raises(IndexError, match=r"Index 9 out of bounds 4"):
        _g("ffi.ListGetItem")(made, 9)


def test_static_initializer_arrays(ref):
    assert _items(ref.static_ints()) == [10, 20, 30]
    mixed = _g("testing.containers_ref.static_mixed")()
    first, second = _items(mixed)
    assert _items(first) == ["a", 1]
    assert second == 2.5


def test_our_containers_under_the_reference_runtime(tmp_path):
    # A kernel built with our headers, loaded by the reference's Python package in a process of
    # its own (ffi and tvm_ffi cannot share one): it converts Python lists to its Array and List.
    if reference_include_dir() is None:
        pytest.skip("apache-tvm-ffi is not installed")
    lib = build_kernel(os.path.join(TESTS_DIR, "kernels", "seq_kernels.cc"), str(tmp_path))
    code = f"""
import tvm_ffi
m = tvm_ffi.load_module({lib!r})
assert m.sum_nested([[1, 2], [3], []]) == 6
assert [list(p) for p in m.pairs(3)] == [[0, 0], [1, -1], [2, -2]]
arr = tvm_ffi.convert([1, 2.5])
scaled = m.scaled(arr, 2.0)
assert list(scaled) == [2.0, 5.0] and list(arr) == [1, 2.5]
assert list(m.pair(7, "seven")) == [7, "seven"]
assert m.describe(3) == "int 3" and m.describe("x") == "str x"
assert m.length(None) == -1 and m.length([1, "a", None]) == 3
lst = tvm_ffi.List([1])
m.extend(lst, 3)
assert list(lst) == [1, 0, 1, 2]
try:
    m.sum_nested([[1], ["a"]])
except TypeError as e:
    assert "Array[index 1: Array[index 0: str]]" in str(e), str(e)
else:
    raise AssertionError("no TypeError")
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
