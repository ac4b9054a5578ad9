"""Overloaded members from Python: an object type registered with OverloadObjectDef
(kernels/overload_objects.cc, built with our headers and with the reference's) is made from an int
or a str, and its method and static method take
different argument types, each call going to the signature that fits; a call nothing fits is a
TypeError naming every signature, and the type's metadata lists each one."""

import os

import pytest
from support.build import built_copy
from support.markers import needs_mypy
from support.paths import TESTS_DIR
from support.typecheck import mypy_on_stub

import ffi

# The library each copy of the type came from (by type key), for the stub generator.
LIBS = {}


COPIES = ["ovtest_ours", "ovtest_reference"]


@pytest.fixture(scope="module", params=COPIES)
def Overloaded(request, tmp_path_factory):
    src = os.path.join(TESTS_DIR, "kernels", "overload_objects.cc")
    lib = built_copy(request.param, COPIES, src, "OVTEST_PREFIX", tmp_path_factory)
    ffi.load_module(lib)
    LIBS[f"{request.param}.Overloaded"] = lib

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


def test_signature_does_not_claim_one_overload(Overloaded):
    import inspect

    # No one parameter list describes an overloaded name: the constructor takes *args, and the
    # method has no signature of its own (the stubs list each one, see below).
    assert str(inspect.signature(Overloaded.__init__)) == "(self, /, *args)"
    with pytest.raises(ValueError):
        inspect.signature(Overloaded.describe)


def _stub(Overloaded):
    import ffi.stubgen

    key = Overloaded.__tvm_ffi_type_info__.type_key
    return ffi.stubgen.generate(LIBS[key], prefixes=[key.rsplit(".", 1)[0]], objects=True)


def test_stub_has_an_overload_per_signature(Overloaded):
    stub = _stub(Overloaded)
    cls = stub[stub.index("class Overloaded") :]
    assert cls.count("    @overload\n    def describe(") == 3
    assert cls.count("    @overload\n    @staticmethod\n    def twice(") == 2
    assert cls.count("    @overload\n    def __init__(") == 2
    typing_lines = [line for line in stub.splitlines() if line.startswith("from typing import")]
    assert len(typing_lines) == 1 and "overload" in typing_lines[0], stub


@needs_mypy
def test_mypy_picks_the_overload(Overloaded, tmp_path, mypy_cache):
    source = """
        from kernels import Overloaded
        o = Overloaded(5)
        a: str = o.describe(2)
        b: str = o.describe("x")
        c: float = o.describe(1.5, 2.0)
        d: int = Overloaded.twice(3)
        e: str = Overloaded.twice("ab")
        o.describe(None)
    """
    result = mypy_on_stub(tmp_path, mypy_cache, _stub(Overloaded), source)
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "call-overload" in errors[0], result.stdout + result.stderr
