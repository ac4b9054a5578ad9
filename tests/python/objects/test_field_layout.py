"""Objects shared across header sets: a class with Optional<int64_t>, <double>, <int>, <bool>,
<float>, <DLDevice>, <DLDataType>, <Variant<int64_t, String>>, Tensor, String, Optional<String>,
Bytes and Optional<Optional<int64_t>> fields, made by a library built with one header set and read
inline (as the reader's own class) by a library built with the other
(kernels/field_layout_kernels.cc). The reads agree only because both header sets lay these fields
out alike: an Optional of a number, device or dtype is an Any (type index, then the value, numbers
widened, 8 bytes in), an Optional<Variant> the Variant's Any, a Tensor one pointer, a String or
Bytes the Any that holds it (up to 7 bytes inline, longer ones an object), and their Optionals and
nested Optionals that Any too."""

import itertools
import os

import pytest
import torch
from support.build import built_copy
from support.paths import TESTS_DIR

import ffi

SRC = os.path.join(TESTS_DIR, "kernels", "field_layout_kernels.cc")
COPIES = ["layout_ours", "layout_reference"]


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    loaded = {}
    for copy in COPIES:
        try:
            loaded[copy] = ffi.load_module(
                built_copy(copy, COPIES, SRC, "LAYOUT_PREFIX", tmp_path_factory)
            )
        except pytest.skip.Exception:
            pass  # the reference's copy needs its wheel
    return loaded


@pytest.mark.parametrize("maker, reader", list(itertools.product(COPIES, COPIES)))
@pytest.mark.parametrize(
    "count, scale, small, flag, ratio, name, label, blob, nested, device, dtype, choice",
    [(5, None, -3, True, 0.5, "short", None, b"\x00b", 11, "cuda:3", None, 4),
     (None, 2.5, None, False, None, "a name longer than seven bytes", "seven77", b"", None,
      None, "float16", "a choice past seven bytes"),
     (-7, -0.125, 9, None, -1.25, "", "a label well past seven bytes", b"x" * 40, -3, "cpu:0",
      "int8x4", "short"),
     (None, None, None, None, None, "eight888", "", b"1234567", None, None, None, None)],
)  # fmt: skip
def test_fields_read_inline_across_header_sets(
    mods, maker, reader, count, scale, small, flag, ratio, name, label, blob, nested, device,
    dtype, choice
):  # fmt: skip
    if maker not in mods or reader not in mods:
        pytest.skip("the reference package is not installed")
    t = torch.arange(6.0).reshape(2, 3)
    dev = None if device is None else ffi.device(device)
    dt = None if dtype is None else ffi.dtype(dtype)
    holder = mods[maker].make_holder(
        count, scale, small, flag, ratio, t, name, label, blob, nested, dev, dt, choice, 42
    )
    got = list(mods[reader].read_holder(holder))
    numbers, got_tensor, texts, after = got[:5], got[5], got[6:10], got[13]
    assert numbers == [count, scale, small, flag, ratio] and after == 42
    assert texts == [name, label, blob, nested]
    got_device, got_dtype, got_choice = got[10:13]
    assert (got_device is None) if dev is None else (str(got_device) == str(dev))
    assert (got_dtype is None) if dt is None else (str(got_dtype) == dtype)
    assert got_choice == choice
    # No framework tensor in this call: the tensor comes back as an ffi.Tensor, the same memory.
    assert isinstance(got_tensor, ffi.Tensor)
    got = torch.from_dlpack(got_tensor)
    assert got.data_ptr() == t.data_ptr() and torch.equal(got, t)
