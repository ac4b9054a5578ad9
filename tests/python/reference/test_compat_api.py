"""C++ API names code written for the reference relies on, used from Python through kernels built
with our headers and with the reference's (kernels/compat_api_kernels.cc): an RValueRef parameter
takes an object the caller gave up (``obj._move()``) and shares one it kept; traits with fallback
values make a reference from a bool, int, float or str, in calls and container elements; a nested
container widens to Array<Array<Any>> as the same object; an Optional of a reference is None or the
object."""

import os

import pytest
from support.build import built_copy
from support.paths import TESTS_DIR

import ffi

COPIES = ["compat_ours", "compat_reference"]


@pytest.fixture(scope="module", params=COPIES)
def mod(request, tmp_path_factory):
    src = os.path.join(TESTS_DIR, "kernels", "compat_api_kernels.cc")
    return ffi.load_module(
        built_copy(request.param, COPIES, src, "COMPAT_PREFIX", tmp_path_factory)
    )


def test_rvalue_ref_takes_a_moved_object(mod):
    arr = ffi.Array([1, 2])
    address = arr.id_
    out, was_unique = mod.append(arr._move(), 3)
    assert was_unique  # the callee held the only reference
    assert list(out) == [1, 2, 3]
    assert arr.id_ == 0  # the caller's handle was taken
    assert address != 0


def test_rvalue_ref_shares_a_kept_object(mod):
    arr = ffi.Array([1, 2])
    out, was_unique = mod.append(arr, 3)
    assert not was_unique
    assert list(arr) == [1, 2]  # unchanged: the callee appended to a copy
    assert list(out) == [1, 2, 3]
    # A plain list converts as Array<int> would.
    out, _ = mod.append([4], 5)
    assert list(out) == [4, 5]


def test_rvalue_ref_refuses_what_does_not_convert(mod):
    with pytest.raises(TypeError, match="RValueRef"):
        mod.append(ffi.Array(["x"])._move(), 1)


def test_fallback_values_make_the_reference(mod):
    assert mod.expr_kind(True) == "bool:1"
    assert mod.expr_kind(3) == "int:3"
    assert mod.expr_kind(2.5) == "float:2"
    assert mod.expr_kind("name") == "name:0"
    assert list(mod.expr_kinds([1, 2.0, False, "s"])) == ["int", "float", "bool", "s"]
    with pytest.raises(TypeError):
        mod.expr_kind([1])


def test_nested_containers_widen_in_place(mod):
    nested = ffi.Array([ffi.Array([1, 2]), ffi.Array([3])])
    wide = mod.widen(nested)
    assert wide.same_as(nested)
    assert [list(x) for x in wide] == [[1, 2], [3]]
    with pytest.raises(TypeError):
        mod.widen([[1, "x"]])


def test_optional_of_a_reference(mod):
    assert mod.describe_optional(None) == "none"
    assert mod.describe_optional(7) == "int"
