"""Malformed DLPack producers: every one is refused with a clear error, and every tensor's deleter
runs exactly once."""

import ctypes

import pytest

import ffi

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


@pytest.fixture(scope="module")
def native(reliability_path):
    lib = ctypes.CDLL(reliability_path)
    lib.make_managed_tensor.restype = ctypes.c_void_p
    lib.make_managed_tensor.argtypes = [ctypes.c_int]
    lib.managed_deleter_runs.restype = ctypes.c_int
    return lib


class Producer:
    """Hands out one prepared capsule (a real producer makes a new one per call)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


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
    producer = Producer(capsule(native, kind))
    with pytest.raises(error, match=message):
        if consumer == "argument":
            rmod.keep(producer)
        else:
            ffi.from_dlpack(producer)
    assert native.managed_deleter_runs() == before + 1
    # The capsule was consumed: handing it out again is refused, and deletes nothing.
    with pytest.raises(TypeError, match="unused DLPack capsule"):
        ffi.from_dlpack(producer)
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
