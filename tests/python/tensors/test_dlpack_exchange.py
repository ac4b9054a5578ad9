"""``ffi.Tensor.__dlpack_c_exchange_api__``: every function of the table, called through ctypes
the way a C consumer calls it (with the GIL held), including its error paths; and the
``__dlpack__`` arguments of the DLPack protocol on CPU tensors."""

import ctypes
import gc
import sys

import numpy as np
import pytest
import torch
from support.producers import Producer as _Capsule

import ffi


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32),
    ("minor", ctypes.c_uint32),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", DELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]
MANAGED_P = ctypes.POINTER(DLManagedTensorVersioned)
SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)

# PYFUNCTYPE: called with the GIL held, and a set Python error is raised after the call.
ALLOCATOR = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(MANAGED_P), ctypes.c_void_p, SET_ERROR
)
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(MANAGED_P))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, MANAGED_P, ctypes.POINTER(ctypes.c_void_p))
VIEW = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
STREAM = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)
)


class ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ALLOCATOR),
        ("managed_tensor_from_py_object_no_sync", FROM_PY),
        ("managed_tensor_to_py_object_no_sync", TO_PY),
        ("dltensor_from_py_object_no_sync", VIEW),
        ("current_work_stream", STREAM),
    ]


READ_ONLY, IS_COPIED = 1, 2


@pytest.fixture(scope="module")
def api():
    cap = ffi.Tensor.__dlpack_c_exchange_api__
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    table = ctypes.cast(get(cap, b"dlpack_exchange_api"), ctypes.POINTER(ExchangeAPI)).contents
    return table


def take_object(ptr: int):
    """The object behind a new reference returned as void* (the reference is handed over)."""
    obj = ctypes.cast(ptr, ctypes.py_object).value
    ctypes.pythonapi.Py_DecRef(ctypes.py_object(obj))
    return obj


def test_capsule_is_static_and_versioned(api):
    assert ffi.Tensor.__dlpack_c_exchange_api__ is ffi.Tensor.__dlpack_c_exchange_api__
    assert (api.major, api.minor) == (1, 3) and api.prev_api is None
    for name, _ in ExchangeAPI._fields_[3:]:
        assert getattr(api, name), name


def test_managed_from_py_exports_and_deleter_releases(api):
    t = ffi.from_dlpack(torch.arange(6.0).reshape(2, 3))
    count = t._use_count()
    out = MANAGED_P()
    assert api.managed_tensor_from_py_object_no_sync(t, ctypes.byref(out)) == 0
    m = out.contents
    assert (m.major, m.flags & READ_ONLY) == (1, 0)
    assert m.dl_tensor.data == t.data_ptr() and m.dl_tensor.ndim == 2
    assert [m.dl_tensor.shape[i] for i in range(2)] == [2, 3]
    assert t._use_count() == count + 1  # the export holds the tensor
    m.deleter(out)
    assert t._use_count() == count


def test_managed_from_py_marks_read_only(api):
    a = np.arange(3, dtype=np.float32)
    a.setflags(write=False)
    out = MANAGED_P()
    assert api.managed_tensor_from_py_object_no_sync(ffi.from_dlpack(a), ctypes.byref(out)) == 0
    assert out.contents.flags & READ_ONLY
    out.contents.deleter(out)


@pytest.mark.parametrize("bad", [torch.zeros(2), [1, 2], None])
def test_wrong_objects_raise_type_error(api, bad):
    base = sys.getrefcount(bad)
    out = MANAGED_P()
    with pytest.raises(TypeError, match="expects an ffi.Tensor"):
        api.managed_tensor_from_py_object_no_sync(bad, ctypes.byref(out))
    assert not out
    with pytest.raises(TypeError, match="expects an ffi.Tensor"):
        api.dltensor_from_py_object_no_sync(bad, ctypes.byref(DLTensor()))
    assert sys.getrefcount(bad) == base


def test_dltensor_view(api):
    x = torch.arange(12.0).reshape(3, 4)[:, 1:3]
    t = ffi.from_dlpack(x)
    count = t._use_count()
    view = DLTensor()
    assert api.dltensor_from_py_object_no_sync(t, ctypes.byref(view)) == 0
    assert view.data == t.data_ptr() and view.ndim == 2
    assert (view.dtype.code, view.dtype.bits, view.dtype.lanes) == (2, 32, 1)
    assert [view.shape[i] for i in range(2)] == [3, 2]
    assert [view.strides[i] for i in range(2)] == [4, 1]
    assert t._use_count() == count  # a view holds nothing


def test_dltensor_view_refuses_read_only(api):
    a = np.zeros(2, dtype=np.float32)
    a.setflags(write=False)
    with pytest.raises(BufferError, match="read-only"):
        api.dltensor_from_py_object_no_sync(ffi.from_dlpack(a), ctypes.byref(DLTensor()))


class Producer:
    """A DLPack tensor built in Python over a NumPy buffer, counting its deleter's calls."""

    def __init__(self, flags=0, major=1, ndim=1):
        self.array = np.arange(4, dtype=np.float32)
        self.shape = (ctypes.c_int64 * 1)(4)
        self.deleted = 0
        self.deleter = DELETER(self._delete)
        self.managed = DLManagedTensorVersioned()
        self.managed.major, self.managed.minor, self.managed.flags = major, 0, flags
        self.managed.deleter = self.deleter
        dl = self.managed.dl_tensor
        dl.data = self.array.ctypes.data
        dl.device = DLDevice(1, 0)
        dl.ndim = ndim
        dl.dtype = DLDataType(2, 32, 1)
        dl.shape = self.shape

    def pointer(self):
        return ctypes.pointer(self.managed)

    def _delete(self, _):
        self.deleted += 1


def test_managed_to_py_takes_ownership(api):
    p = Producer()
    out = ctypes.c_void_p()
    assert api.managed_tensor_to_py_object_no_sync(p.pointer(), ctypes.byref(out)) == 0
    t = take_object(out.value)
    assert type(t) is ffi.Tensor and t.shape == (4,) and t.data_ptr() == p.array.ctypes.data
    assert np.from_dlpack(t).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert p.deleted == 0
    del t
    gc.collect()
    assert p.deleted == 1


def test_managed_to_py_keeps_read_only(api):
    p = Producer(flags=READ_ONLY)
    out = ctypes.c_void_p()
    assert api.managed_tensor_to_py_object_no_sync(p.pointer(), ctypes.byref(out)) == 0
    t = take_object(out.value)
    with pytest.raises(BufferError, match="read-only"):
        api.dltensor_from_py_object_no_sync(t, ctypes.byref(DLTensor()))
    del t
    assert p.deleted == 1


@pytest.mark.parametrize("bad, why", [({"major": 9}, "major version 9"), ({"ndim": -1}, "ndim -1")])
def test_managed_to_py_refusal_leaves_the_tensor_to_the_caller(api, bad, why):
    # As with the reference's exchange APIs: a refused tensor is not taken, its caller frees it.
    p = Producer(**bad)
    out = ctypes.c_void_p()
    with pytest.raises(ValueError, match=why):
        api.managed_tensor_to_py_object_no_sync(p.pointer(), ctypes.byref(out))
    assert not out.value
    assert p.deleted == 0


def test_managed_to_py_null(api):
    with pytest.raises(TypeError, match="NULL"):
        api.managed_tensor_to_py_object_no_sync(MANAGED_P(), ctypes.byref(ctypes.c_void_p()))


def test_current_work_stream_is_the_ffi_stream(api):
    out = ctypes.c_void_p(123)
    assert api.current_work_stream(2, 0, ctypes.byref(out)) == 0
    assert out.value is None
    with ffi.use_raw_stream(ffi.device("cuda", 1), 0x5000):
        assert api.current_work_stream(2, 1, ctypes.byref(out)) == 0
        assert out.value == 0x5000
    assert api.current_work_stream(1, 0, ctypes.byref(out)) == 0
    assert out.value is None


def _allocate(api, device_type, shape, errors):
    dims = (ctypes.c_int64 * len(shape))(*shape)
    dtype = DLDataType(2, 32, 1)
    proto = DLTensor(None, DLDevice(device_type, 0), len(shape), dtype, dims, None, 0)
    out = MANAGED_P()
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind.decode(), msg.decode())))
    rc = api.managed_tensor_allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error)
    return rc, out


def test_allocator_cpu(api):
    errors = []
    rc, out = _allocate(api, 1, (2, 3), errors)
    assert rc == 0 and not errors
    dl = out.contents.dl_tensor
    assert dl.data % 64 == 0 and dl.ndim == 2 and [dl.shape[0], dl.shape[1]] == [2, 3]
    # Hand it to ffi as a tensor: the allocation is usable memory and freed by its deleter.
    t_ptr = ctypes.c_void_p()
    assert api.managed_tensor_to_py_object_no_sync(out, ctypes.byref(t_ptr)) == 0
    t = take_object(t_ptr.value)
    arr = np.from_dlpack(t)
    arr[:] = 5.0
    assert arr.sum() == 30.0


def test_allocator_refuses_devices_and_bad_shapes(api):
    errors = []
    rc, out = _allocate(api, 2, (4,), errors)
    assert rc != 0 and not out
    assert errors == [("RuntimeError", "ffi.Tensor's exchange API allocates CPU tensors only")]
    errors.clear()
    rc, out = _allocate(api, 1, (-1,), errors)
    assert rc != 0 and errors[0][0] == "ValueError"
    errors.clear()
    rc, out = _allocate(api, 1, (1 << 62, 1 << 8), errors)
    assert rc != 0 and errors == [("ValueError", "the prototype tensor is too large to allocate")]


# ---- __dlpack__ and __dlpack_device__ (the Python protocol) -------------------------------------


def test_dlpack_device_and_stream_values_on_cpu():
    t = ffi.from_dlpack(torch.arange(3.0))
    assert t.__dlpack_device__() == (1, 0)
    for ok in (None, -1):
        assert "dltensor" in repr(t.__dlpack__(stream=ok))
    for bad in (0, 1, 2, 12345):
        with pytest.raises(BufferError, match="has no stream"):
            t.__dlpack__(stream=bad)
    with pytest.raises(TypeError, match="stream must be an int"):
        t.__dlpack__(stream="x")
    with pytest.raises(TypeError, match="keyword arguments only"):
        t.__dlpack__(None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'streams'"):
        t.__dlpack__(streams=None)
    with pytest.raises(TypeError, match="max_version"):
        t.__dlpack__(max_version=1)


def test_dl_device_and_copy():
    x = torch.arange(6.0).reshape(2, 3)
    t = ffi.from_dlpack(x)
    same = torch.from_dlpack(t, device="cpu")
    assert same.data_ptr() == x.data_ptr()
    with pytest.raises(BufferError, match="cannot be exported to device"):
        t.__dlpack__(dl_device=(2, 0), copy=False)
    with pytest.raises(TypeError, match="dl_device"):
        t.__dlpack__(dl_device="cpu")
    never = torch.from_dlpack(t, copy=False)
    assert never.data_ptr() == x.data_ptr()
    copied = torch.from_dlpack(t, copy=True)
    assert copied.data_ptr() != x.data_ptr() and copied.tolist() == x.tolist()
    copied[0, 0] = -1.0
    assert x[0, 0].item() == 0.0


def test_copy_of_strided_tensor_is_compact_and_flagged():
    x = torch.arange(12, dtype=torch.int16).reshape(3, 4)[:, ::2]
    t = ffi.from_dlpack(x)
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    back = ffi.from_dlpack(_Capsule(cap))
    assert back.is_contiguous() and back.data_ptr() != t.data_ptr()
    assert torch.from_dlpack(back).tolist() == x.tolist()
    legacy = torch.from_dlpack(_Capsule(t.__dlpack__(copy=True)))
    assert legacy.tolist() == x.tolist()


def test_copy_of_read_only_tensor_is_writable():
    a = np.arange(3, dtype=np.float32)
    a.setflags(write=False)
    t = ffi.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()  # the legacy form cannot say read-only
    c = np.from_dlpack(_Capsule(t.__dlpack__(max_version=(1, 0), copy=True)))
    assert c.flags.writeable and c.tolist() == [0.0, 1.0, 2.0]
