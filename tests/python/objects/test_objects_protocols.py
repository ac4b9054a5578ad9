"""Python values passing as FFI objects and values: the reference's __tvm_ffi_object__,
__tvm_ffi_int__ / __tvm_ffi_float__ / __tvm_ffi_value__, __tvm_ffi_opaque_ptr__,
__dlpack_data_type__, __dlpack_device__ and __cuda_stream__ protocols, ffi.ObjectConvertible,
exceptions and ffi.Error objects made in Python, pickled dtypes and devices, and objects offering
themselves to the reference package only once it is imported. Registered classes:
test_objects.py."""

import pickle
import subprocess
import sys

import pytest

import ffi


def test_values_standing_for_an_object_pass_that_object():
    # The `__tvm_ffi_object__` protocol (the reference's): a value holding an FFI object passes it.
    arr = ffi.Array([1, 2])

    class Holder:
        def __init__(self, obj):
            self.obj = obj

        def __tvm_ffi_object__(self):
            return self.obj

    ffi.register_global_func("testing.objects.ident", lambda x: x, override=True)
    ident = ffi.get_global_func("testing.objects.ident")
    assert ident(Holder(arr)).same_as(arr)
    assert ffi.get_global_func("ffi.ArraySize")(Holder(ffi.Array([1, 2, 3]))) == 3  # a temporary
    assert ffi.Array([Holder(arr)])[0].same_as(arr)  # in containers too

    class NotAnObject:
        def __tvm_ffi_object__(self):
            return 5

    with pytest.raises(TypeError, match="not an FFI object"):
        ident(NotAnObject())
    assert not arr.same_as(NotAnObject())


def test_values_with_conversion_protocols_pass_what_they_return():
    # The reference's __tvm_ffi_int__ / __tvm_ffi_float__ / __tvm_ffi_value__ protocols.
    ffi.register_global_func("testing.objects.ident", lambda x: x, override=True)
    ident = ffi.get_global_func("testing.objects.ident")

    class Index:
        def __tvm_ffi_int__(self):
            return 7

    class Ratio:
        def __tvm_ffi_float__(self):
            return 0.5

    class Wrapped:
        def __init__(self, value):
            self.value = value

        def __tvm_ffi_value__(self):
            return self.value

    assert ident(Index()) == 7 and type(ident(Index())) is int
    assert ident(Ratio()) == 0.5

    class WholeRatio:  # the float protocol gives a float even for an int, as in the reference
        def __tvm_ffi_float__(self):
            return 10

    class NumpyIndex:
        def __tvm_ffi_int__(self):
            import numpy as np

            return np.int32(3)

    assert ident(WholeRatio()) == 10.0 and type(ident(WholeRatio())) is float
    assert ident(NumpyIndex()) == 3 and type(ident(NumpyIndex())) is int

    class NotANumber:
        def __tvm_ffi_int__(self):
            return "seven"

    with pytest.raises(TypeError):
        ident(NotANumber())
    assert tuple(ident(Wrapped([1, Wrapped("x")]))) == (1, "x")  # nested, inside containers too
    assert ident(Wrapped(Wrapped(None))) is None

    class Loop:
        def __tvm_ffi_value__(self):
            return self

    with pytest.raises(RecursionError):
        ident(Loop())

    class Raises:
        def __tvm_ffi_value__(self):
            raise KeyError("no value")

    with pytest.raises(KeyError):
        ident(Raises())


def test_values_with_pointer_dtype_device_and_stream_protocols():
    # The reference's __tvm_ffi_opaque_ptr__, __dlpack_data_type__, __dlpack_device__ (on a class
    # that is not a tensor) and __cuda_stream__ protocols, also inside containers.
    import ctypes

    ffi.register_global_func("testing.objects.ident2", lambda x: x, override=True)
    ident = ffi.get_global_func("testing.objects.ident2")

    class Pointer:
        def __tvm_ffi_opaque_ptr__(self):
            return 0x1000

    class DType:
        def __dlpack_data_type__(self):
            return (2, 16, 1)  # kDLFloat, 16 bits

    class Place:
        def __dlpack_device__(self):
            return (2, 3)  # kDLCUDA, device 3

    class Stream:
        def __cuda_stream__(self):
            return (0, 0xABC)  # (version, handle)

    p = ident(Pointer())
    assert isinstance(p, ctypes.c_void_p) and p.value == 0x1000
    assert ident(DType()) == ffi.float16
    assert ident(Place()) == ffi.device("cuda:3")
    assert ident(Stream()).value == 0xABC
    assert list(ident([DType(), Place()])) == [ffi.float16, ffi.device("cuda:3")]

    class Tensorish:  # a tensor reports its device too: it converts as a tensor
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, **kwargs):
            raise BufferError("no export")

    with pytest.raises(BufferError, match="no export"):
        ident(Tensorish())

    class BadDType:
        def __dlpack_data_type__(self):
            return "float16"

    class BadPointer:
        def __tvm_ffi_opaque_ptr__(self):
            return "here"

    with pytest.raises(TypeError, match=r"__dlpack_data_type__\(\) must return a tuple of 3"):
        ident(BadDType())
    with pytest.raises(TypeError, match=r"__tvm_ffi_opaque_ptr__\(\) must return an int"):
        ident(BadPointer())


def test_dtypes_and_devices_pickle():
    for value in (ffi.float32, ffi.dtype("float8_e4m3fn"), ffi.dtype("int8x4"), ffi.bool_):
        assert pickle.loads(pickle.dumps(value)) == value
    for value in (ffi.device("cpu"), ffi.device("cuda:2"), ffi.device("metal", 1)):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and type(back) is ffi.Device


def test_exceptions_pass_as_error_objects():
    # As in the reference: an exception instance argument becomes an ffi.Error object.
    ffi.register_global_func("testing.objects.ident", lambda x: x, override=True)
    original = KeyError("missing")
    err = ffi.get_global_func("testing.objects.ident")(original)
    assert isinstance(err, ffi.Error) and err.type_key == "ffi.Error"
    assert (err.kind, err.message) == ("KeyError", "'missing'")
    # A value, not a raised error: a new exception of the same class (carrying the original would
    # make `except E as e: r = convert(e)` a cycle through C++ that never gets collected).
    back = err.py_error()
    assert type(back) is KeyError and back is not original and back.args == ("'missing'",)
    inner = ffi.Array([ValueError("in a list")])[0]
    assert isinstance(inner, ffi.Error) and inner.kind == "ValueError"


def test_object_convertible_values_pass_as_their_objects():
    class Pair(ffi.ObjectConvertible):
        def __init__(self, a, b):
            self.a, self.b = a, b

        def asobject(self):
            return ffi.Array([self.a, self.b])

    ffi.register_global_func("testing.objects.ident_conv", lambda x: x, override=True)
    out = ffi.get_global_func("testing.objects.ident_conv")(Pair(1, 2))
    assert isinstance(out, ffi.Array) and list(out) == [1, 2]
    assert list(ffi.convert([Pair(3, 4)])[0]) == [3, 4]

    class Unfinished(ffi.ObjectConvertible):
        pass

    with pytest.raises(NotImplementedError, match="asobject"):
        ffi.convert(Unfinished())


def test_error_objects_made_in_python():
    err = ffi.Error("IndexError", "out of range", "frame_b\nframe_a")
    assert (err.kind, err.message, err.backtrace) == (
        "IndexError",
        "out of range",
        "frame_b\nframe_a",
    )
    exc = err.py_error()
    assert type(exc) is IndexError and exc.args == ("out of range",)
    assert "ffi.Error('IndexError', 'out of range')" == repr(err)

    class Custom(Exception):
        pass

    ffi.register_error("testing.objects.Custom", Custom)
    assert type(ffi.Error("testing.objects.Custom", "mine").py_error()) is Custom
    assert type(ffi.Error("NoSuchKind", "x").py_error()) is RuntimeError
    copied = pickle.loads(pickle.dumps(err))
    assert isinstance(copied, ffi.Error) and copied.kind == "IndexError"
    assert not copied.same_as(err)
    # A function returning the error object passes it as a value, not as a raise.
    ffi.register_global_func("testing.objects.ident_err", lambda x: x, override=True)
    back = ffi.get_global_func("testing.objects.ident_err")(err)
    assert back.same_as(err)
    with pytest.raises(TypeError):
        ffi.Error("only kind")  # type: ignore[call-arg]


def test_objects_offer_themselves_to_the_reference_package_only_when_it_is_imported():
    code = (
        "import ffi, sys\n"
        "try:\n"
        "    ffi.Array([1]).__tvm_ffi_object__()\n"
        "except RuntimeError as e:\n"
        "    print('refused:', e)\n"
        "assert 'tvm_ffi' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "refused: __tvm_ffi_object__ needs tvm_ffi to be imported" in proc.stdout
