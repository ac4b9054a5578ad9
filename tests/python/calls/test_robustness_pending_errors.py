"""A failing operation reports its own exception even when deleters run while it is pending: a
DLPack deleter written in Python (through ctypes), run when a refused capsule or an imported
tensor goes, must neither clear nor replace it (which left "SystemError: ... returned NULL without
setting an exception"). And a registered exception class that does not make an exception is a
TypeError that keeps the C++ error's message."""

import ctypes

import numpy as np
import pytest

import ffi

# ---- a DLPack producer whose deleter is Python code (ctypes) ---------------------------------


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", _DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", _DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

_keep: list = []  # the ctypes memory behind every capsule made here (never freed: tests only)
_made: list = []  # the address of every managed tensor made here, in order (never reused)
_deleted: list = []  # addresses the Python deleter was called with


def _python_deleter(address):
    _deleted.append(address)  # Python code: it fails if it runs with an exception pending


_deleter = _DELETER(_python_deleter)


def python_deleted_capsule(lanes=1, flags=0, ndim=1):
    """A versioned DLPack capsule of 4 float32 (x `lanes`) elements whose deleter is Python
    (`ndim` other than 1 makes it malformed)."""
    data = ctypes.create_string_buffer(64 * lanes)
    shape = (ctypes.c_int64 * 1)(4)
    m = _DLManagedTensorVersioned()
    m.version = _DLPackVersion(1, 0)
    m.deleter = _deleter
    m.flags = flags
    m.dl_tensor.data = ctypes.addressof(data)
    m.dl_tensor.device = _DLDevice(1, 0)
    m.dl_tensor.ndim = ndim
    m.dl_tensor.dtype = _DLDataType(2, 32, lanes)
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    _keep.extend([data, shape, m])
    _made.append(ctypes.addressof(m))
    return _capsule_new(ctypes.addressof(m), b"dltensor_versioned", None)


class Producer:
    """A __dlpack__ producer handing out capsules with a Python deleter."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __dlpack__(self, **kwargs):
        return python_deleted_capsule(**self.kwargs)

    def __dlpack_device__(self):
        return (1, 0)


READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY


def deleter_runs_since(mark):
    """How many times the deleter ran for each tensor made since `mark` (a len(_made))."""
    return [_deleted.count(address) for address in _made[mark:]]


# ---- the capsule destructors of ffi.Tensor.__dlpack__ -----------------------------------------


def test_refused_capsule_keeps_the_consumers_error():
    # NumPy refuses a float32x4 tensor and drops the capsule with its error set: that error, not
    # a SystemError, reaches the caller.
    t = ffi.from_dlpack(python_deleted_capsule(lanes=4))
    with pytest.raises(Exception) as info:
        np.from_dlpack(t)
    assert not isinstance(info.value, SystemError), info.value
    assert "lanes" in str(info.value).lower(), info.value
    assert tuple(t.shape) == (4,)  # the tensor is intact


def test_from_dlpack_of_a_tensor_that_misses_its_requirements():
    t = ffi.from_dlpack(np.arange(8.0)[1:])
    address = t.data_ptr()
    misaligned = (address & -address) * 2  # twice the largest power of two dividing it
    with pytest.raises(RuntimeError, match="not aligned"):
        ffi.from_dlpack(t, require_alignment=misaligned)
    strided = ffi.from_dlpack(np.arange(12.0).reshape(3, 4)[:, ::2])
    with pytest.raises(RuntimeError, match="contiguous"):
        ffi.from_dlpack(strided, require_contiguous=True)
    assert ffi.from_dlpack(t, require_alignment=misaligned // 2).data_ptr() == address


# ---- deleters run while a call's error is pending ---------------------------------------------


def test_read_only_producer_argument_is_a_buffer_error(mod):
    mark = len(_made)
    with pytest.raises(BufferError, match="read-only"):
        mod.type_of(Producer(flags=READ_ONLY))
    assert deleter_runs_since(mark) == [1]  # the refused import was released, deleted once


def _tensor():
    return ffi.from_dlpack(python_deleted_capsule())


@pytest.mark.parametrize(
    "call, deleted",
    [
        # imported tensors the call owns: alone, in a pooled list, in a list of its own
        (lambda mod: mod.echo(Producer(), 1), 1),
        (lambda mod: mod.echo([Producer()], 1), 1),
        (lambda mod: mod.echo([Producer()] * 20, 1), 20),
        # temporary ffi.Tensors the interpreter drops once the call has failed
        (lambda mod: mod.echo(_tensor(), 1), 1),
        (lambda mod: mod.echo([_tensor()], 1), 1),
    ],
    ids=["producer", "producer_in_list", "producers_in_long_list", "tensor", "tensor_in_list"],
)
def test_call_error_survives_python_deleters(mod, call, deleted):
    # echo takes one argument: the C++ error for two reaches the caller although the imported
    # tensors' Python deleters run while it is pending.
    mark = len(_made)
    with pytest.raises(TypeError, match="Mismatched number of arguments"):
        call(mod)
    assert deleter_runs_since(mark) == [1] * deleted


class Refuses:
    """A value whose conversion fails (after the ones before it in a container converted)."""

    def __tvm_ffi_value__(self):
        raise TypeError("refused on purpose")


@pytest.mark.parametrize(
    "convert",
    [
        lambda mod: ffi.Array([Producer(), Refuses()]),
        lambda mod: ffi.List([Producer(), Refuses()]),
        lambda mod: ffi.Map({1: Producer(), 2: Refuses()}),
        lambda mod: ffi.Dict({1: Producer(), 2: Refuses()}),
        lambda mod: ffi.Map({_tensor(): Refuses()}),
        lambda mod: mod.echo([Producer()] * 9 + [Refuses()]),
        lambda mod: mod.echo({1: Producer(), 2: Refuses()}),
    ],
    ids=["Array", "List", "Map", "Dict", "map_key", "call_long_list", "call_dict"],
)
def test_container_conversion_error_survives_python_deleters(mod, convert):
    # What converted before the failing element is released with the TypeError pending.
    mark = len(_made)
    with pytest.raises(TypeError, match="refused on purpose"):
        convert(mod)
    assert deleter_runs_since(mark) == [1] * (len(_made) - mark)


def test_refused_import_inside_a_call_keeps_its_error(mod):
    # The runtime refuses a malformed capsule: the import's ValueError reaches the caller, and the
    # capsule, not consumed, is still its producer's (these capsules have no destructor).
    mark = len(_made)
    with pytest.raises(ValueError, match="ndim"):
        mod.echo(Producer(ndim=-1))
    assert deleter_runs_since(mark) == [0]


# ---- register_error with a class that does not make an exception -----------------------------


def test_registered_class_making_no_exception_is_a_type_error(mod):
    class NotAnException(Exception):
        def __new__(cls, *args):
            return 5

    ffi.register_error("RobustnessNoException", NotAnException)
    with pytest.raises(TypeError) as info:
        mod.fail("RobustnessNoException", "the original message")
    text = str(info.value)
    assert "NotAnException" in text and "RobustnessNoException" in text
    assert "did not produce an exception" in text and "the original message" in text
    assert mod.echo(1) == 1  # the module is intact
