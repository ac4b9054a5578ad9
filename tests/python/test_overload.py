"""Overloaded members from Python: an object type registered with OverloadObjectDef
(kernels/overload_objects.cc, built with our headers and with the reference's) is made from an int
or a str, and its method and static method take
different argument types, each call going to the signature that fits; a call nothing fits is a
TypeError naming every signature, and the type's metadata lists each one."""

import os

import pytest
from test_reflection_interop import build_with_both_headers

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module", params=["ovtest_ours", "ovtest_reference"])
def Overloaded(request, tmp_path_factory):
    libs = build_with_both_headers(
        os.path.join(HERE, "kernels", "overload_objects.cc"),
        ["ovtest_ours", "ovtest_reference"],
        "OVTEST_PREFIX",
        str(tmp_path_factory.mktemp("ov")),
    )
    if request.param not in libs:
        pytest.skip("the reference package is not installed")
    ffi.load_module(libs[request.param])

    @ffi.register_object(f"{request.param}.Overloaded")
    class Overloaded(ffi.Object):
        pass

    return Overloaded


def test_overloaded_constructor(Overloaded):
    a = Overloaded(5)
    assert (a.value, a.name) == (5, "int")
    b = Overloaded("bee")
    assert (b.value, b.name) == (0, "bee")


def test_overloaded_methods_dispatch_on_argument_types(Overloaded):
    o = Overloaded(5)
    assert o.describe(2) == "int 7"
    assert o.describe("!") == "str int!"
    assert o.describe(1.5, 4) == 6.0
    assert Overloaded.twice(21) == 42
    assert Overloaded.twice("ab") == "abab"


def test_no_matching_overload(Overloaded):
    o = Overloaded(5)
    with pytest.raises(TypeError, match="No matching overload found when calling") as info:
        o.describe(None)
    text = str(info.value)
    assert f"`{Overloaded.__tvm_ffi_type_info__.type_key}.describe` with 2 arguments" in text
    assert all(f"Overload #{i}: " in text for i in range(3))
    with pytest.raises(TypeError, match="Overload #1: "):
        Overloaded([1])


def test_every_signature_in_the_type_info(Overloaded):
    methods = Overloaded.__tvm_ffi_type_info__.methods
    describe = [m for m in methods if m.name == "describe"]
    assert len(describe) == 3
    assert [m.is_static for m in methods if m.name == "twice"] == [True, True]
    assert len([m for m in methods if m.name == "__ffi_init__"]) == 2
    schemas = [m.metadata["type_schema"] for m in describe]
    assert len(set(schemas)) == 3
