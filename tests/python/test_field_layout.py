"""Objects shared across header sets: a class with Optional<int64_t>, <double>, <int>, <bool>,
<float>, Tensor, String, Optional<String>, Bytes and Optional<Optional<int64_t>> fields, made by a
library built with one header set and read inline (as the reader's own class) by a library built
with the other (kernels/field_layout_kernels.cc). The reads agree only because both header sets
lay these fields out alike: an Optional of a number is an Any (type index, then the value, widened,
8 bytes in), a Tensor is one pointer, a String or Bytes is the Any that holds it (up to 7 bytes
inline, longer ones an object), and their Optionals and nested Optionals are that Any too."""

import itertools
import os

import pytest
import torch
from test_reflection_interop import built_copy

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "kernels", "field_layout_kernels.cc")
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
    "count, scale, small, flag, ratio, name, label, blob, nested",
    [(5, None, -3, True, 0.5, "short", None, b"\x00b", 11),
     (None, 2.5, None, False, None, "a name longer than seven bytes", "seven77", b"", None),
     (-7, -0.125, 9, None, -1.25, "", "a label well past seven bytes", b"x" * 40, -3),
     (None, None, None, None, None, "eight888", "", b"1234567", None)],
)  # fmt: skip
def test_fields_read_inline_across_header_sets(
    mods, maker, reader, count, scale, small, flag, ratio, name, label, blob, nested
):
    if maker not in mods or reader not in mods:
        pytest.skip("the reference package is not installed")
    t = torch.arange(6.0).reshape(2, 3)
    holder = mods[maker].make_holder(
        count, scale, small, flag, ratio, t, name, label, blob, nested, 42
    )
    got = list(mods[reader].read_holder(holder))
    numbers, got_tensor, texts, after = got[:5], got[5], got[6:10], got[10]
    assert numbers == [count, scale, small, flag, ratio] and after == 42
    assert texts == [name, label, blob, nested]
    # No framework tensor in this call: the tensor comes back as an ffi.Tensor, the same memory.
    assert isinstance(got_tensor, ffi.Tensor)
    got = torch.from_dlpack(got_tensor)
    assert got.data_ptr() == t.data_ptr() and torch.equal(got, t)
