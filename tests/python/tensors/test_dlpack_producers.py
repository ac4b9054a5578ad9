"""Malformed DLPack producers: every one is refused with a clear error, a refused capsule stays
unconsumed (the producer's, as the DLPack protocol and the reference have it), and every tensor's
deleter runs exactly once."""

import ctypes

import pytest
from support.producers import Producer

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
# Own function objects (ctypes.pythonapi's are shared: other test modules set their argtypes),
# taking the capsule's address, as a capsule destructor gets it.
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi)
)
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)

# The reliability library, for the capsule destructor below (set by the `native` fixture).
_native_lib = None


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _free_unconsumed(cap):
    """A producer's capsule destructor: frees the tensor when no consumer took it."""
    if _capsule_is_valid(cap, b"dltensor_versioned"):
        _native_lib.delete_managed_tensor(_capsule_get_pointer(cap, b"dltensor_versioned"))


@pytest.fixture(scope="module")
def native(reliability_path):
    lib = ctypes.CDLL(reliability_path)
    lib.make_managed_tensor.restype = ctypes.c_void_p
    lib.make_managed_tensor.argtypes = [ctypes.c_int]
    lib.managed_deleter_runs.restype = ctypes.c_int
    lib.delete_managed_tensor.argtypes = [ctypes.c_void_p]
    global _native_lib
    _native_lib = lib
    return lib


def owning_capsule(native, kind):
    """A capsule as producers make them: its destructor frees a tensor no consumer took."""
    managed = native.make_managed_tensor(kind)
    return _capsule_new(
        managed, b"dltensor_versioned", ctypes.cast(_free_unconsumed, ctypes.c_void_p)
    )


def capsule(native, kind):
    # No capsule destructor: the test owns unconsumed tensors and counts their deleters.
    return _capsule_new(native.make_managed_tensor(kind), b"dltensor_versioned", None)


@pytest.mark.parametrize(
    "kind, error, message",
    [
        (1, ValueError, r"ndim -1 is outside"),
        (2, ValueError, "shape is NULL"),
        (3, ValueError, "negative extent"),
        (4, ValueError, "major version"),
        (5, (ValueError, OverflowError), None),
    ],
)
@pytest.mark.parametrize("consumer", ["argument", "from_dlpack"])
def test_malformed_tensor_refused_and_deleted_once(native, rmod, kind, error, message, consumer):
    before = native.managed_deleter_runs()
    producer = Producer(owning_capsule(native, kind))
    for _ in range(2):  # refused again: the capsule was not consumed
        with pytest.raises(error, match=message):
            if consumer == "argument":
                rmod.keep(producer)
            else:
                ffi.from_dlpack(producer)
        # Still the producer's: named as an unused capsule, nothing freed yet.
        assert _capsule_is_valid(id(producer.capsule), b"dltensor_versioned")
        assert native.managed_deleter_runs() == before
    del producer
    assert native.managed_deleter_runs() == before + 1


def test_well_formed_tensor_deleted_once_when_released(native, rmod):
    rmod.drop_kept()
    before = native.managed_deleter_runs()
    t = ffi.from_dlpack(Producer(capsule(native, 0)))
    assert tuple(t.shape) == (2, 2)
    rmod.keep(t)
    del t
    assert native.managed_deleter_runs() == before
    rmod.drop_kept()
    assert native.managed_deleter_runs() == before + 1


def test_producer_returning_something_else(rmod):
    class NotACapsule:
        def __dlpack__(self, **kwargs):
            return 42

    with pytest.raises(TypeError, match="unused DLPack capsule"):
        rmod.keep(NotACapsule())

    class Raising:
        def __dlpack__(self, **kwargs):
            raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError, match="producer failed"):
        rmod.keep(Raising())

    class WrongName:
        def __dlpack__(self, **kwargs):
            return _capsule_new(
                ctypes.cast(ctypes.pointer(ctypes.c_int(0)), ctypes.c_void_p), b"other", None
            )

    with pytest.raises(TypeError, match="unused DLPack capsule"):
        rmod.keep(WrongName())
