"""Values are validated, not truncated: out-of-range integers, failed UTF-8 conversions and
impostor types are refused with clear errors."""

import ctypes

import numpy as np
import pytest

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_from_dlpack_alignment_out_of_range():
    a = np.zeros(4, dtype=np.float32)
    with pytest.raises(OverflowError, match="require_alignment"):
        ffi.from_dlpack(a, require_alignment=2**40)
    with pytest.raises(OverflowError, match="require_alignment"):
        ffi.from_dlpack(a, require_alignment=-1)
    with pytest.raises(TypeError, match="require_alignment"):
        ffi.from_dlpack(a, require_alignment="64")


def test_device_index_out_of_range():
    with pytest.raises(OverflowError):
        ffi.Device("cuda", 2**31)
    with pytest.raises(OverflowError):
        ffi.Device("cuda", -(2**31) - 1)
    with pytest.raises((OverflowError, ValueError)):
        ffi.Device(2**40)
    assert ffi.Device("cuda", 2**31 - 1).index == 2**31 - 1


@pytest.mark.parametrize("name", ["llvm", "nvptx", "cl", "c"])
def test_unknown_device_names(name):
    # Worded as the reference words it; a malformed "<type>:<id>" keeps the parser's message.
    with pytest.raises(ValueError, match=rf"^Unknown device: {name}$"):
        ffi.device(name)
    with pytest.raises(ValueError, match="Cannot parse device string"):
        ffi.device("cuda:x")


def test_stream_parameters_out_of_range():
    with pytest.raises(TypeError):
        ffi._core.env_get_stream(2**40, 0)
    with pytest.raises(TypeError):
        ffi._core.env_set_stream(2, 2**33, 0)


def test_integer_argument_out_of_range(mod):
    with pytest.raises(TypeError, match="got `ffi.BigInt`"):
        mod.add_int(2**64, 1)
    with pytest.raises(TypeError, match="got `ffi.BigInt`"):
        mod.add_int(-(2**63) - 1, 1)
    assert mod.add_int(2**63 - 1, 0) == 2**63 - 1


def test_lone_surrogate_string_is_refused(mod):
    with pytest.raises(UnicodeEncodeError):
        mod.echo("bad \udc80 text")
    with pytest.raises(UnicodeEncodeError):
        ffi.get_global_func("no \udc80 such")
    with pytest.raises(UnicodeEncodeError):
        ffi.register_global_func("bad.\udc80", lambda: None)
    with pytest.raises(UnicodeEncodeError):
        ffi.convert("\udc80")


def test_impostor_numpy_array_is_not_read_as_numpy(mod):
    # A class whose C-level name is exactly NumPy's.
    Impostor = type("numpy.ndarray", (), {})
    assert Impostor.__name__ == "numpy.ndarray"
    impostor = Impostor()
    assert mod.echo(impostor) is impostor  # passed opaquely, never read as an array


def test_impostor_c_void_p_is_not_a_pointer(mod):
    Impostor = type("c_void_p", (), {"value": 1234})
    impostor = Impostor()
    assert mod.echo(impostor) is impostor  # passed opaquely, not as a pointer
    p = ctypes.c_void_p(1234)
    assert mod.echo(p).value == 1234


def test_unconvertible_value_names_the_argument(mod):
    class Place:
        def __dlpack_device__(self):
            return ("cuda", 0)  # not (int, int)

    with pytest.raises(TypeError, match=r"argument #1 of type `Place`"):
        mod.add_int(1, Place())
