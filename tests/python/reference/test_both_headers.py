"""Kernels in the reference's vocabulary built with our headers and with the reference's
(kernels/both_headers_kernels.cc), called from ffi: what ffi hands them must satisfy either
implementation of the headers, and what they return must behave the same."""

import os

import numpy as np
import pytest
import torch
from support.build import build_with_both_headers
from support.paths import TESTS_DIR
from support.subprocesses import sigint_during_poll

import ffi

SRC = os.path.join(TESTS_DIR, "kernels", "both_headers_kernels.cc")


@pytest.fixture(scope="module", params=["ours", "reference"])
def kpath(request, tmp_path_factory):
    libs = build_with_both_headers(
        SRC, ["ours", "reference"], "UNUSED", tmp_path_factory.mktemp("bh")
    )
    if request.param not in libs:
        pytest.skip("the reference package is not installed")
    return libs[request.param]


@pytest.fixture(scope="module")
def kmod(kpath):
    return ffi.load_module(kpath)


def test_tensors_always_carry_strides(kmod):
    """Compact NumPy arrays, PyTorch tensors, ffi.Tensor and tensors handed to callbacks all
    reach kernels with strides (DLPack 1.2 forbids null ones; the reference's headers refuse
    them)."""
    a = np.zeros((2, 3), dtype=np.float32)
    assert list(kmod.strides_of(a)) == [3, 1]
    assert list(kmod.strides_of(np.zeros(4, dtype=np.int8))) == [1]
    assert list(kmod.strides_of(a[:, 1:])) == [3, 1]
    assert list(kmod.strides_of(torch.zeros(2, 3))) == [3, 1]
    assert list(kmod.strides_of(ffi.from_dlpack(a))) == [3, 1]
    assert list(kmod.strides_of([np.zeros((4, 5))][0])) == [5, 1]
    seen = kmod.call_with_tensor(lambda t: list(kmod.strides_of(t)), a)
    assert list(seen) == [3, 1]
    assert list(kmod.strides_of(np.array(1.0, dtype=np.float32))) == []


def test_containers_of_framework_tensors_compare_and_show_as_tensors(kmod):
    """A container that hands out PyTorch tensors compares, hashes and shows its elements as the
    FFI tensors they are: tensors are equal when they view the same memory the same way (two
    imports of one PyTorch tensor are two FFI objects); nothing compares tensor values."""
    x = torch.arange(4.0)
    pair = kmod.split2(x)
    assert isinstance(pair[0], torch.Tensor)  # handed out in the caller's framework
    assert pair == pair and pair == kmod.split2(x) and hash(pair) == hash(kmod.split2(x))
    assert pair[0] in pair and x in pair and torch.arange(4.0) not in pair
    assert pair == [x, x] and pair != [x, torch.arange(4.0)] and pair != [x, x[1:]]
    assert repr(pair) == "(float32[4]@cpu:0, float32[4]@cpu:0)"  # a Tuple shows as one
    assert ffi.Array([x]) == ffi.Array([x]) and ffi.Array([x]) == [x]
    held = ffi.Map({"a": ffi.from_dlpack(x)})
    assert held == ffi.Map({"a": x}) and held != ffi.Map({"a": x[:2]})
    assert "a" in held and 1 not in ffi.Array([x])


def test_exports_with_metadata_have_signatures(kmod):
    """A typed export's metadata gives inspect.signature its parameters, also when it holds only
    the reference's type_schema (positional-only, named by position)."""
    import inspect

    sig = inspect.signature(kmod.strides_of)
    assert [p.kind for p in sig.parameters.values()] == [inspect.Parameter.POSITIONAL_ONLY]
    assert "Array" in str(sig.return_annotation)
    assert len(inspect.signature(kmod.call_with_tensor).parameters) == 2


def test_long_strings_arrive_as_string_objects(kmod):
    """As the reference passes them: a str longer than 7 bytes is a String object, so a kernel
    taking ObjectRef accepts it; shorter ones are inline values, which it refuses (there too)."""
    assert kmod.type_key_of("a string of some length") == "ffi.String"
    assert kmod.type_key_of("x" * 10_000) == "ffi.String"
    with pytest.raises(TypeError, match="Mismatched type on argument #0"):
        kmod.type_key_of("short")


@pytest.mark.parametrize("runtime", ["ffi", "reference"])
def test_sigint_ends_a_polling_kernel_with_keyboard_interrupt(kpath, runtime):
    """A kernel that sees TVMFFIEnvCheckSignals fail throws EnvErrorAlreadySet; whichever headers
    built it and whichever runtime serves the process, the caller gets the KeyboardInterrupt
    (the reference's headers send it as an error of that kind, ours did as -2)."""
    if runtime == "reference":
        pytest.importorskip("tvm_ffi")
    first = "import tvm_ffi" if runtime == "reference" else ""
    assert sigint_during_poll(kpath, first) == "interrupted"


class KernelError(Exception):
    pass


def test_error_kinds_survive_a_trip_through_python(kmod):
    """An error from C++ that passes through a Python frame reaches C++ again with its kind; a
    Python exception of a registered class arrives as the kind it is registered under, as the
    reference sends them."""
    ffi.register_error("BothHeadersKernelError", KernelError)

    def through(kind):
        return lambda: kmod.throw_kind(kind, "x")

    assert kmod.catch_kind(through("BothHeadersKernelError")) == "BothHeadersKernelError|x"
    assert kmod.catch_kind(through("SomeUnknownKind")) == "SomeUnknownKind|x"
    assert kmod.catch_kind(through("ValueError")) == "ValueError|x"

    def raise_registered():
        raise KernelError("from python")

    assert kmod.catch_kind(raise_registered) == "BothHeadersKernelError|from python"

    def raise_plain():
        raise KeyError("k")

    assert kmod.catch_kind(raise_plain) == "KeyError|'k'"
    with pytest.raises(KernelError, match="x"):
        kmod.throw_kind("BothHeadersKernelError", "x")
