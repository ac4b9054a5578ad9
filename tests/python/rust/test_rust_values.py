"""Values through a Rust kernel library on our runtime: every kind of value converted into Rust
types and back (strings small and large, bytes, integers at their limits, floats, bools, None,
devices, dtypes, lists and dicts), objects kept and returned with exact reference counts, and
tensors over Rust-owned buffers, freed exactly once when the last holder lets go."""

import gc
import math
import sys

import numpy as np
import pytest

import ffi

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def as_python(value):
    """An ``ffi.Array`` / ``ffi.Map`` result as nested lists and dicts, for comparisons."""
    if isinstance(value, ffi.Array):
        return [as_python(v) for v in value]
    if isinstance(value, ffi.Map):
        return {k: as_python(v) for k, v in value.items()}
    return value


# Strings and bytes.

STRINGS = [
    "",
    "a",
    "1234567",  # 7 bytes: the longest string held inside the 16-byte value
    "12345678",  # 8 bytes: a string object
    "h\u00e9llo",  # 6 bytes in UTF-8, small
    "h\u00e9llo \u2713 \u4e16\u754c \U0001f600",
    "nul \x00 inside",
    "x" * 10_000,
]


@pytest.mark.parametrize("text", STRINGS)
def test_strings_round_trip(rust_mod, text):
    """Strings reach Rust (as ``Any``, ``std::string::String`` and ``ffi::String``) with every
    byte, and come back equal: small ones (up to 7 bytes), objects, non-ASCII, embedded NULs."""
    for kernel in (rust_mod.echo, rust_mod.echo_string, rust_mod.echo_ffi_string):
        result = kernel(text)
        assert type(result) is str and result == text, kernel
    assert rust_mod.type_name_of(text) == "str"
    encoded = text.encode("utf-8")
    assert rust_mod.string_lengths(text) == (len(encoded), len(text))


def test_string_concatenation_crosses_the_small_string_limit(rust_mod):
    """Two small strings concatenated in Rust make one that is not small any more."""
    assert rust_mod.concat("abc", "defg") == "abcdefg"
    assert rust_mod.concat("abcd", "efgh") == "abcdefgh"
    assert rust_mod.concat("\u00e9", "\u2713" * 5) == "\u00e9" + "\u2713" * 5
    assert rust_mod.join_strings(["a", "bb", "\u2713"], ", ") == "a, bb, \u2713"
    assert rust_mod.join_strings([], "-") == ""


@pytest.mark.parametrize(
    "data", [b"", b"\x00", b"\x00\xff\x80ab", b"1234567", b"12345678", bytes(range(256)) * 40]
)
def test_bytes_round_trip(rust_mod, data):
    """Bytes, small and large, any byte values, come back equal and as ``bytes``."""
    for kernel in (rust_mod.echo, rust_mod.echo_bytes):
        result = kernel(data)
        assert type(result) is bytes and result == data, kernel
    assert rust_mod.byte_values(data[:300]) == tuple(data[:300])


def test_str_and_bytes_are_not_interchangeable(rust_mod):
    """A ``bytes`` parameter refuses a ``str`` and a ``str`` parameter refuses ``bytes``."""
    with pytest.raises(TypeError, match="Expected `bytes` but got `str`"):
        rust_mod.echo_bytes("text")
    with pytest.raises(TypeError, match="Expected `str` but got `bytes`"):
        rust_mod.echo_string(b"text")


# Numbers, bools, None.


@pytest.mark.parametrize("value", [0, 1, -1, 7, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1])
def test_integers_round_trip(rust_mod, value):
    """Integers, including both ends of int64, survive Rust's ``i64`` and ``Any``."""
    assert rust_mod.echo(value) == value and type(rust_mod.echo(value)) is int
    assert rust_mod.add_i64(value, 0) == value
    assert rust_mod.sum_list([value]) == value


def test_integer_limits_and_narrowing(rust_mod):
    """Overflow in Rust is an OverflowError; an ``i8`` parameter takes -128..127 only; integers
    beyond int64 pass through ``Any`` and a ``u64`` result beyond int64 arrives whole."""
    assert rust_mod.add_i64(I64_MAX, I64_MIN) == -1
    with pytest.raises(OverflowError, match="overflows"):
        rust_mod.add_i64(I64_MIN, -1)
    with pytest.raises(OverflowError, match="the sum overflows"):
        rust_mod.sum_list([I64_MAX, 1])
    assert rust_mod.echo_i8(-128) == -128 and rust_mod.echo_i8(127) == 127
    for out_of_range in (128, -129, 1000):
        with pytest.raises(TypeError, match=r"argument #0 when calling: `echo_i8\(0: int\)") as e:
            rust_mod.echo_i8(out_of_range)
        assert str(e.value).endswith(f"the value {out_of_range} does not fit in `i8`"), e.value
    assert rust_mod.echo(2**64 + 5) == 2**64 + 5
    assert rust_mod.echo(-(2**100)) == -(2**100)
    assert rust_mod.max_u64() == 2**64 - 1
    with pytest.raises(TypeError, match="argument #0"):
        rust_mod.add_i64(2**63, 0)


def test_floats(rust_mod):
    """Doubles round-trip bit for bit (infinities and NaN included); an int converts to a float
    parameter; an ``f32`` parameter rounds to single precision."""
    for value in (0.0, -0.0, 1.5, 1e308, 5e-324, math.inf, -math.inf):
        result = rust_mod.echo_f64(value)
        assert type(result) is float and result == value
        assert math.copysign(1.0, result) == math.copysign(1.0, value)
        assert rust_mod.echo(value) == value
    assert math.isnan(rust_mod.echo_f64(math.nan))
    assert rust_mod.echo_f64(3) == 3.0 and type(rust_mod.echo_f64(3)) is float
    assert rust_mod.half_f32(1 / 3) == float(np.float32(1 / 3)) / 2
    with pytest.raises(TypeError, match="Expected `float` but got `str`"):
        rust_mod.echo_f64("1.0")


def test_bools_and_none(rust_mod):
    """Bools stay bools; an int passes for a bool parameter; None is ``Option::None`` both
    ways."""
    assert rust_mod.negate(True) is False and rust_mod.negate(False) is True
    assert rust_mod.negate(0) is True
    assert rust_mod.echo(True) is True and rust_mod.echo(False) is False
    assert rust_mod.type_name_of(True) == "bool" and rust_mod.type_name_of(1) == "int"
    assert rust_mod.echo(None) is None and rust_mod.type_name_of(None) == "None"
    assert rust_mod.maybe_double(None) is None
    assert rust_mod.maybe_double(21) == 42
    with pytest.raises(TypeError, match="Expected `Optional<int>` but got `str`"):
        rust_mod.maybe_double("21")


# Devices and dtypes.


def test_devices(rust_mod):
    """Devices cross as values: returned unchanged, made in Rust, read from a tensor."""
    for device in (ffi.device("cpu"), ffi.device("cuda:1"), ffi.device("rocm", 3)):
        assert rust_mod.echo_device(device) == device
        assert rust_mod.echo(device) == device
    assert rust_mod.make_device(2, 3) == ffi.device("cuda", 3)
    assert rust_mod.make_device(1, 0) == ffi.device("cpu")
    device, dtype = rust_mod.device_and_dtype(np.zeros(2, np.int16))
    assert device == ffi.device("cpu") and dtype == ffi.int16
    with pytest.raises(TypeError, match="Expected `Device` but got `int`"):
        rust_mod.echo_device(1)


def test_dtypes(rust_mod):
    """Dtypes cross as values, print with their names in Rust, and a string naming a dtype
    converts to a ``DataType`` parameter (an unknown name is refused)."""
    for dtype in (ffi.float32, ffi.bfloat16, ffi.dtype("int8x4"), ffi.uint64, ffi.bool):
        assert rust_mod.echo_dtype(dtype) == dtype
        assert rust_mod.echo(dtype) == dtype
        assert rust_mod.dtype_name(dtype) == str(dtype)
    assert rust_mod.dtype_name("float16") == "float16"
    assert rust_mod.echo_dtype("int8x4") == ffi.dtype("int8x4")
    assert rust_mod.device_and_dtype(np.zeros(1, np.float64))[1] == ffi.float64
    with pytest.raises(TypeError, match="Expected `DataType` but got `str`"):
        rust_mod.dtype_name("floaty")


# Lists and dicts.


def test_lists_become_arrays(rust_mod):
    """Lists and tuples convert to ``Vec<T>`` (each element checked) and to ``ffi::Array``;
    ``Vec`` results come back as ``ffi.Array``."""
    assert rust_mod.sum_list([1, 2, 3]) == 6
    assert rust_mod.sum_list((4, 5)) == 9
    assert rust_mod.sum_list([]) == 0
    assert rust_mod.sum_list(ffi.Array([1, 2, 3, 4])) == 10
    assert rust_mod.sum_list(rust_mod.range_list(5)) == 10
    with pytest.raises(TypeError, match="Expected `Array<int>` but got `Array`"):
        rust_mod.sum_list([1, "two"])
    with pytest.raises(TypeError, match="Expected `Array<int>` but got `int`"):
        rust_mod.sum_list(3)
    result = rust_mod.range_list(4)
    assert isinstance(result, ffi.Array) and list(result) == [0, 1, 2, 3]
    assert rust_mod.range_list(0) == ()
    assert rust_mod.array_len([None, "a", 1.5]) == 3
    assert rust_mod.array_get(["x", "y", "z"], -1) == "z"
    with pytest.raises(IndexError, match="index 3 out of range for 3 elements"):
        rust_mod.array_get(["x", "y", "z"], 3)


def test_nested_values_round_trip(rust_mod):
    """Nested lists and dicts of mixed values come back with the same structure and values."""
    value = [1, "two", 3.5, None, True, [b"bytes", ["deep", {"k": [1, 2]}]], {"a": {"b": "c"}}]
    result = rust_mod.echo(value)
    assert isinstance(result, ffi.Array)
    assert as_python(result) == [
        1,
        "two",
        3.5,
        None,
        True,
        [b"bytes", ["deep", {"k": [1, 2]}]],
        {"a": {"b": "c"}},
    ]


def test_dicts_become_maps(rust_mod):
    """Dicts convert to ``ffi::Map``: looked up by key in Rust, listed, and made in Rust."""
    d = {"a": 1, "b": "text", "c": [1, 2], "long key over seven bytes": None}
    assert rust_mod.map_get(d, "a") == 1
    assert rust_mod.map_get(d, "b") == "text"
    assert list(rust_mod.map_get(d, "c")) == [1, 2]
    assert rust_mod.map_get(d, "long key over seven bytes") is None
    assert rust_mod.map_get(d, "absent") is None
    with pytest.raises(KeyError) as info:
        rust_mod.map_lookup(d, "absent")
    assert info.value.args == ("absent",)
    assert as_python(rust_mod.echo(d)) == d
    items = rust_mod.map_items({"x": 1, "y": "z"})
    assert sorted(tuple(kv) for kv in items) == [("x", 1), ("y", "z")]
    assert rust_mod.map_items({}) == ()
    made = rust_mod.make_map(["k1", "k2"], [10, [None]])
    assert isinstance(made, ffi.Map)
    assert as_python(made) == {"k1": 10, "k2": [None]}
    with pytest.raises(TypeError, match="Expected `Map` but got `Array`"):
        rust_mod.map_get([1], "a")


# Objects: identity and reference counts.


def test_python_object_through_rust_keeps_identity_and_count(rust_mod):
    """A plain Python object crosses Rust boxed: it comes back as itself, and once the result is
    dropped its reference count is what it was."""
    obj = object()
    before = sys.getrefcount(obj)
    for _ in range(5):
        result = rust_mod.echo(obj)
        assert result is obj
        del result
    assert rust_mod.call_back(lambda v: v, obj) is obj
    assert sys.getrefcount(obj) == before
    assert rust_mod.object_address(obj) != 0  # an object of the ABI while in Rust
    assert sys.getrefcount(obj) == before


def test_objects_kept_by_rust_hold_one_reference(rust_mod):
    """A value Rust keeps (``stash``) holds one reference to the Python object until Rust lets
    go; the values Rust returns then are the objects given."""
    rust_mod.take_stash()
    obj = object()
    before = sys.getrefcount(obj)
    assert rust_mod.stash(obj) == 1
    assert sys.getrefcount(obj) == before + 1
    assert rust_mod.stash([obj, "x"]) == 2
    assert sys.getrefcount(obj) > before + 1
    kept = rust_mod.take_stash()
    assert rust_mod.take_stash() == ()
    assert kept[0] is obj and kept[1][0] is obj and kept[1][1] == "x"
    del kept
    gc.collect()
    assert sys.getrefcount(obj) == before


def test_ffi_objects_keep_their_handle(rust_mod):
    """An ``ffi.Array`` / ``ffi.Map`` / ``ffi.Tensor`` passed to Rust and returned is the same
    object of the ABI (same handle), and the counts Rust and Python see agree."""
    arr = ffi.Array([1, "two", 3.0])
    m = ffi.Map({"k": 1})
    t = ffi.from_dlpack(np.arange(3, dtype=np.float32))
    for obj in (arr, m, t):
        count = obj._use_count()
        assert rust_mod.strong_count(obj) == count
        back = rust_mod.echo(obj)
        assert back.same_as(obj)
        assert rust_mod.object_address(back) == rust_mod.object_address(obj)
        assert obj._use_count() == count + 1  # `back` is a second reference to the same object
        del back
        assert obj._use_count() == count
        rust_mod.take_stash()
        rust_mod.stash(obj)
        assert obj._use_count() == count + 1
        kept = rust_mod.take_stash()
        assert kept[0].same_as(obj)
        del kept
        gc.collect()
        assert obj._use_count() == count


def test_a_list_is_a_new_array_each_call(rust_mod):
    """A Python list is converted afresh for every call (it is not an object of the ABI)."""
    values = [1, 2]
    first, second = rust_mod.echo(values), rust_mod.echo(values)
    assert list(first) == list(second) == values and not first.same_as(second)


# Tensors over Rust-owned buffers.


def test_rust_buffer_tensor_is_freed_once_when_python_lets_go(rust_mod):
    """``Tensor::from_vec``: Python receives the Rust ``Vec`` without a copy; it stays alive while
    any holder (the ``ffi.Tensor``, a NumPy array viewing it) does, and is freed exactly once
    after the last one goes."""
    gc.collect()
    live, freed = rust_mod.live_buffers()
    t = rust_mod.make_tensor(6)
    assert isinstance(t, ffi.Tensor)
    assert t.shape == (6,) and t.dtype == ffi.float32 and t.device == ffi.device("cpu")
    assert rust_mod.live_buffers() == (live + 1, freed)
    view = np.from_dlpack(t)
    assert view.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del t
    gc.collect()
    assert rust_mod.live_buffers() == (live + 1, freed)  # NumPy's view still holds it
    # The memory is still Rust's Vec. NumPy before 2.1 marks what from_dlpack gives read-only;
    # write where it allows, read everywhere.
    if view.flags.writeable:
        view[0] = 42.0
        assert rust_mod.sum_f32(view) == 42.0 + 15.0
    else:  # and our calls refuse read-only arrays
        assert float(view.sum()) == 15.0
    del view
    gc.collect()
    assert rust_mod.live_buffers() == (live, freed + 1)


def test_many_rust_buffers_each_freed_once(rust_mod):
    """Fifty buffers handed out and dropped: fifty frees, no more, no fewer."""
    gc.collect()  # what earlier tests left to the collector is freed before counting
    live, freed = rust_mod.live_buffers()
    tensors = [rust_mod.make_tensor(n + 1) for n in range(50)]
    assert rust_mod.live_buffers() == (live + 50, freed)
    assert [np.from_dlpack(t).sum() for t in tensors[:5]] == [0.0, 1.0, 3.0, 6.0, 10.0]
    del tensors
    gc.collect()
    assert rust_mod.live_buffers() == (live, freed + 50)


def test_rust_buffer_tensor_goes_back_into_rust(rust_mod):
    """A Rust-owned tensor passed back to kernels: read as a view, written as an output."""
    gc.collect()
    live, freed = rust_mod.live_buffers()
    x = rust_mod.make_matrix(2, 3)
    assert x.shape == (2, 3) and x.dtype == ffi.float64
    np.testing.assert_array_equal(np.from_dlpack(x), [[0, 1, 2], [10, 11, 12]])
    assert rust_mod.tensor_layout(x) == ((2, 3), (3, 1), 6, True)
    y = rust_mod.make_tensor(4)
    rust_mod.add_one(rust_mod.make_tensor(4), y)
    assert np.from_dlpack(y).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert rust_mod.echo(y).same_as(y)
    del x, y
    gc.collect()
    assert rust_mod.live_buffers() == (live, freed + 3)


def test_from_vec_refuses_a_wrong_shape(rust_mod):
    """``Tensor::from_vec`` with a shape that does not hold the data: a ValueError, nothing kept
    alive."""
    gc.collect()
    live, freed = rust_mod.live_buffers()
    with pytest.raises(ValueError, match=r"shape \[-1\] does not hold 0 elements"):
        rust_mod.make_tensor(-1)
    assert rust_mod.make_tensor(0).shape == (0,)  # an empty Vec owns no allocation
    gc.collect()
    assert rust_mod.live_buffers() == (live, freed)


def test_alloc_outside_a_framework_call(rust_mod):
    """``Tensor::alloc`` where no framework picked the allocator: the runtime's own CPU
    allocation, a writable compact tensor of the shape asked for."""
    t = rust_mod.alloc_tensor([2, 3])
    assert isinstance(t, ffi.Tensor) and t.shape == (2, 3) and t.dtype == ffi.float32
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert rust_mod.alloc_tensor([]).shape == ()
    assert rust_mod.alloc_tensor([0, 4]).shape == (0, 4)
    with pytest.raises(ValueError, match="negative extent -1"):
        rust_mod.alloc_tensor([-1])
    assert rust_mod.env_allocator() == 0
    assert rust_mod.env_allocator(np.zeros(1, np.float32)) == 0  # NumPy brings no allocator


def test_tensor_layouts_reach_rust_as_they_are(rust_mod):
    """Strided views arrive with their strides (in elements), no copy made: Rust sees a
    non-contiguous tensor and refuses to read it as a slice."""
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert rust_mod.tensor_layout(base) == ((4, 6), (6, 1), 24, True)
    assert rust_mod.tensor_layout(base[:, ::2]) == ((4, 3), (6, 2), 12, False)
    assert rust_mod.tensor_layout(base.T) == ((6, 4), (1, 6), 24, False)
    assert rust_mod.sum_f32(base) == float(base.sum())
    with pytest.raises(ValueError, match="not contiguous"):
        rust_mod.sum_f32(base[:, ::2])
