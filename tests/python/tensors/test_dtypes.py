"""The dtype constants: every one the reference package names, with its string, DLPack code,
bits and lanes; the parsers (the extension's and the runtime's C entry point) accept each string
and round-trip it; PyTorch's narrow-float tensors arrive with these dtypes."""

import ctypes
import importlib.metadata
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

import ffi

# name -> (DLPack type code, bits, lanes), as DLPack (dlpack.h) numbers the codes.
EXPECTED = {
    "bool": (6, 8, 1),
    "int8": (0, 8, 1),
    "int16": (0, 16, 1),
    "int32": (0, 32, 1),
    "int64": (0, 64, 1),
    "uint8": (1, 8, 1),
    "uint16": (1, 16, 1),
    "uint32": (1, 32, 1),
    "uint64": (1, 64, 1),
    "float16": (2, 16, 1),
    "float32": (2, 32, 1),
    "float64": (2, 64, 1),
    "bfloat16": (4, 16, 1),
    "float8_e3m4": (7, 8, 1),
    "float8_e4m3": (8, 8, 1),
    "float8_e4m3b11fnuz": (9, 8, 1),
    "float8_e4m3fn": (10, 8, 1),
    "float8_e4m3fnuz": (11, 8, 1),
    "float8_e5m2": (12, 8, 1),
    "float8_e5m2fnuz": (13, 8, 1),
    "float8_e8m0fnu": (14, 8, 1),
    "float6_e2m3fn": (15, 6, 1),
    "float6_e3m2fn": (16, 6, 1),
    "float4_e2m1fn": (17, 4, 1),
    "float4_e2m1fnx2": (17, 4, 2),
}


def _fields(d):
    return (d.type_code, d.bits, d.lanes)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_constant_has_its_name_as_string(name):
    d = getattr(ffi, name)
    assert isinstance(d, ffi.dtype)
    assert str(d) == name and repr(d) == f"dtype('{name}')"
    assert _fields(d) == EXPECTED[name]
    assert d == name and ffi.dtype(name) == d and hash(ffi.dtype(name)) == hash(d)
    # itemsize: whole bytes per element, rounded up (a float6 takes a byte, two float4s one).
    code, bits, lanes = EXPECTED[name]
    assert d.itemsize == (bits * lanes + 7) // 8


def test_aliases():
    assert ffi.bool_ is ffi.bool
    assert ffi.float4_e2m1fn_x2 is ffi.float4_e2m1fnx2
    # PyTorch's spelling parses to the same element type; the dtype keeps the text it was given.
    alias = ffi.dtype("float4_e2m1fn_x2")
    assert _fields(alias) == _fields(ffi.float4_e2m1fnx2) and str(alias) == "float4_e2m1fn_x2"
    assert str(ffi.dtype(ffi.dtype("float4_e2m1fn_x4"))) == "float4_e2m1fn_x4"


def test_dtype_is_a_str():
    # As in the reference: the text compares and hashes as a str, so NumPy and dicts take it.
    f32 = ffi.dtype("float32")
    assert isinstance(f32, str) and type(f32) is ffi.dtype
    assert {"float32": 1}[f32] == 1 and f32 == "float32" and f32 != "f32"
    assert np.array([1, 2], dtype=f32).dtype == np.float32
    # Equal element types spelled differently are different strings; compare the fields instead.
    assert ffi.dtype("f32") != f32 and _fields(ffi.dtype("f32")) == _fields(f32)
    # Made from anything but a str, a dtype is spelled canonically (and shared).
    assert ffi.dtype(np.float32) == "float32" and ffi.dtype(torch.float32) is ffi.float32
    assert pickle.loads(pickle.dumps(ffi.dtype("i8"))) == "i8"
    with pytest.raises(AttributeError):
        f32.type_code = 3  # immutable, like any str
    with pytest.raises(AttributeError):
        f32.note = "no instance attributes either"


def test_framework_dtypes_convert_as_dtypes(mod):
    # A torch.dtype or numpy.dtype argument arrives in C++ as a DLDataType (as in the reference),
    # and comes back as an ffi.dtype.
    for spec, name in [
        (torch.int8, "int8"),
        (np.dtype("float16"), "float16"),
        (torch.float8_e4m3fn, "float8_e4m3fn"),
        (torch.bool, "bool"),
    ]:
        assert mod.type_of(spec) == "DataType"
        for got in (mod.echo(spec), ffi.convert(spec)):
            assert type(got) is ffi.dtype and got == name
    with pytest.raises(ValueError, match="unknown dtype"):
        ffi.convert(np.dtype([("a", np.int32)]))  # a structured dtype names no element type


def test_star_import_leaves_builtin_bool_alone():
    ns = {}
    exec("from ffi import *\nresult = bool(1)", ns)
    assert ns["result"] is True and "float8_e4m3fn" in ns and "bool" not in ns
    assert "bool" not in ffi.__all__ and "bool_" in ffi.__all__


@pytest.mark.parametrize(
    "text, fields",
    [
        ("float8_e4m3fnx4", (10, 8, 4)),
        ("float8_e8m0fnux2", (14, 8, 2)),
        ("float6_e3m2fnx8", (16, 6, 8)),
        ("bfloat16x2", (4, 16, 2)),
        ("int4", (0, 4, 1)),
        ("uint1", (1, 1, 1)),
        ("boolx4", (6, 8, 4)),
    ],
)
def test_vector_and_odd_width_strings_round_trip(text, fields):
    d = ffi.dtype(text)
    assert _fields(d) == fields and str(d) == text and ffi.dtype(str(d)) == d


@pytest.mark.parametrize(
    "text, message",
    [
        ("float8_e4m3fn_x2", "unknown float8 type `float8_e4m3fn_x2`"),
        ("float8_e9m9", "unknown float8 type `float8_e9m9`"),
        ("float4_e2m1fn_x", "Invalid lanes specification in dtype 'float4_e2m1fn_x'"),
        ("fp8", "unknown dtype `fp8`"),
        ("int8x2x2", "unknown dtype `int8x2x2`"),
        ("int256", "Bits value 256 is out of range for uint8_t in dtype 'int256'"),
        ("int8x65536", "Lanes value 65536 is out of range in dtype 'int8x65536'"),
        ("float32x32768", "Lanes value 32768 is out of range in dtype 'float32x32768': a vector"),
        ("float32x65535", "Lanes value 65535 is out of range"),
        ("int0", "Invalid bits in dtype 'int0': a width of 0 bits"),
        ("uint0x4", "Invalid bits in dtype 'uint0x4': a width of 0 bits"),
        # Short names are spelled out before parsing; errors name the long form.
        ("i8x0", "Invalid lanes specification in dtype 'int8x0'"),
        ("f4_e2m1", "unknown float4 type `float4_e2m1`"),
    ],
)
def test_bad_strings_are_value_errors(text, message):
    with pytest.raises(ValueError) as info:
        ffi.dtype(text)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    "alias, canonical",
    [
        ("i8", "int8"),
        ("i64", "int64"),
        ("u8", "uint8"),
        ("u32", "uint32"),
        ("f16", "float16"),
        ("f64", "float64"),
        ("bf16", "bfloat16"),
        ("f32x4", "float32x4"),
        ("f8_e4m3b11fnuz", "float8_e4m3b11fnuz"),
        ("fp8_e5m2fnuz", "float8_e5m2fnuz"),
        ("fp8_e8m0fnu", "float8_e8m0fnu"),
        ("f8_e4m3fnx4", "float8_e4m3fnx4"),
        ("f6_e3m2fn", "float6_e3m2fn"),
        ("fp6_e2m3fn", "float6_e2m3fn"),
        ("f4_e2m1fnx2", "float4_e2m1fnx2"),
        ("fp4_e2m1fn_x2", "float4_e2m1fnx2"),
        ("float4_e2m1fn_", "float4_e2m1fn"),
        # A family without bits takes its default width.
        ("float", "float32"),
        ("bfloat", "bfloat16"),
        ("intx4", "int32x4"),
        ("int32xvscalex4", "int32xvscalex4"),
    ],
)
def test_short_names_and_defaults(alias, canonical):
    d = ffi.dtype(alias)
    assert _fields(d) == _fields(ffi.dtype(canonical)) and str(d) == alias
    code, bits, lanes = _fields(d)
    assert _runtime_parse(alias) == (0, (code, bits, lanes % 65536))  # C reads lanes unsigned


def test_void_and_scalable_vectors():
    # The void type parses from "void" or "" and prints as "", as the reference prints it.
    assert _fields(ffi.dtype("void")) == (3, 0, 0) and str(ffi.dtype("")) == ""
    # Scalable vectors keep their lane multiplier negated in the 16-bit lanes field; Python reads
    # it signed, as the reference does, and their size in bytes is unknown until run time.
    assert ffi.dtype("float16xvscalex8").bits == 16
    assert ffi.dtype("float16xvscalex8").lanes == -8
    with pytest.raises(ValueError, match="scalable vector"):
        _ = ffi.dtype("float16xvscalex8").itemsize


def _runtime_parse(text):
    """Parse with the runtime library's C entry point TVMFFIDataTypeFromString."""

    class ByteArray(ctypes.Structure):
        _fields_ = [("data", ctypes.c_char_p), ("size", ctypes.c_size_t)]

    class DLDataType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

    raw = text.encode()
    out = DLDataType()
    rc = ffi._LIB.TVMFFIDataTypeFromString(
        ctypes.byref(ByteArray(raw, len(raw))), ctypes.byref(out)
    )
    return rc, (out.code, out.bits, out.lanes)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_runtime_parser_agrees(name):
    assert _runtime_parse(name) == (0, EXPECTED[name])


def test_runtime_parser_takes_pytorch_spelling_and_refuses_bad_strings():
    assert _runtime_parse("float4_e2m1fn_x2") == (0, (17, 4, 2))
    rc, _ = _runtime_parse("float8_e4m3fn_x2")
    assert rc == -1
    err = ctypes.c_void_p()
    ffi._LIB.TVMFFIErrorMoveFromRaised(ctypes.byref(err))  # take the raised error: none is left
    assert err.value
    ffi._LIB.TVMFFIObjectDecRef(err)


@pytest.mark.parametrize(
    "name",
    [
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "float4_e2m1fn_x2",
        "bfloat16",
        "bool",
        "uint16",
    ],
)
def test_torch_dtypes_and_tensors(name):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, name, None)
    if tdt is None:
        pytest.skip(f"this PyTorch has no torch.{name}")
    expected = getattr(ffi, name)
    assert ffi.dtype(tdt) == expected
    x = torch.zeros(4, dtype=tdt)
    t = ffi.from_dlpack(x)
    assert t.dtype == expected and t.data_ptr() == x.data_ptr()
    back = torch.from_dlpack(t)
    assert back.dtype == tdt and back.data_ptr() == x.data_ptr()


def test_same_constants_as_the_reference():
    """Every dtype constant the reference's package exposes exists here with the same fields."""
    try:
        importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    # In its own process: the two runtimes cannot share one.
    code = (
        "import json, tvm_ffi\n"
        "print(json.dumps({n: [str(v), v.type_code, v.bits, v.lanes] for n, v in "
        "vars(tvm_ffi).items() if isinstance(v, tvm_ffi.dtype)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    reference = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(reference) >= len(EXPECTED)
    for name, (text, code_, bits, lanes) in reference.items():
        ours = getattr(ffi, name)
        assert (str(ours), ours.type_code, ours.bits, ours.lanes) == (text, code_, bits, lanes)


def test_predicates():
    floats = {n for n, (c, _, _) in EXPECTED.items() if c == 2 or c == 4 or c >= 7}
    for name in EXPECTED:
        d = getattr(ffi, name)
        assert d.is_float == (name in floats), name
        assert d.is_integer == name.startswith(("int", "uint")), name
        assert d.is_bool == (name == "bool"), name
        assert not d.is_handle
    assert ffi.dtype("handle").is_handle and not ffi.dtype("complex64").is_float


def test_with_lanes():
    assert ffi.float8_e4m3fn.with_lanes(4) == "float8_e4m3fnx4"
    assert ffi.dtype("float32x4").with_lanes(1) == ffi.float32
    assert ffi.float4_e2m1fn.with_lanes(2) == ffi.float4_e2m1fnx2
    with pytest.raises(ValueError, match=r"lanes must be in \[1, 32767\], got 0"):
        ffi.float32.with_lanes(0)
    with pytest.raises(ValueError, match="got 32768"):  # it would read back as negative lanes
        ffi.float32.with_lanes(32768)
    assert ffi.float32.with_lanes(32767).lanes == 32767
    with pytest.raises(TypeError, match="lanes must be an int, got str"):
        ffi.float32.with_lanes("2")
    assert ffi.float32 == "float32"  # the constant itself is untouched


def test_from_dlpack_data_type():
    for name, fields in EXPECTED.items():
        assert ffi.dtype.from_dlpack_data_type(fields) == getattr(ffi, name)
    with pytest.raises(TypeError, match=r"expects a tuple \(type_code, bits, lanes\)"):
        ffi.dtype.from_dlpack_data_type((2, 16))
    with pytest.raises(ValueError, match=r"type_code must be in \[0, 17\], got 99"):
        ffi.dtype.from_dlpack_data_type((99, 8, 1))
    with pytest.raises(ValueError, match="bits must be in"):
        ffi.dtype.from_dlpack_data_type((2, 256, 1))


def test_is_dtype():
    assert ffi.dtype.is_dtype("float8_e5m2") and ffi.dtype.is_dtype(ffi.float32)
    assert not ffi.dtype.is_dtype("not_a_dtype") and not ffi.dtype.is_dtype(5)
    assert not ffi.dtype.is_dtype("float4_e2m1fn_x")
