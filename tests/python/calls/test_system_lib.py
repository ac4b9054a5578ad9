"""ffi.SystemLib from Python: a module over functions registered with
TVMFFIEnvModRegisterSystemLibSymbol (here by a library's static initializer), with the reference's
lookup and one module per prefix."""

import os

import pytest
from support.build import build_kernel
from support.paths import TESTS_DIR

import ffi


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    lib = build_kernel(
        os.path.join(TESTS_DIR, "kernels", "syslib_kernels.cc"),
        str(tmp_path_factory.mktemp("syslib")),
    )
    return ffi.load_module(lib)  # its static initializer registers the symbols


def test_system_lib_finds_registered_functions(registered):
    system_lib = ffi.system_lib
    mod = system_lib("pysys.")
    assert mod.same_as(ffi.get_global_func("ffi.SystemLib")("pysys."))
    assert isinstance(mod, ffi.Module)
    assert mod.triple(14) == 42
    assert mod["triple"](2) == 6
    assert "triple" in dir(mod)
    # The typed metadata registered beside it gives the signature (named as it was exported).
    assert str(mod.triple) == "<ffi.Function pysys_triple(0: int) -> int>"
    assert mod.get_function("missing", allow_missing=True) is None
    with pytest.raises(TypeError):
        mod.triple("x")
    # One module per prefix; without a prefix the full name finds it.
    assert system_lib("pysys.").same_as(mod)
    assert system_lib().get_function("pysys.triple")(1) == 3
