"""Tensors a kernel keeps own their metadata; borrowed views never outlive the call; read-only
memory stays read-only."""

import numpy as np
import pytest
import torch

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_kept_numpy_array_does_not_follow_an_in_place_reshape(rmod):
    a = np.arange(6, dtype=np.float32)
    rmod.keep(a)
    a.shape = (2, 3)
    assert tuple(rmod.kept_shape()) == (6,)
    assert rmod.kept_sum() == 15.0
    rmod.drop_kept()


def test_kept_torch_tensor_does_not_follow_in_place_metadata_changes(rmod):
    x = torch.arange(6, dtype=torch.float32)
    rmod.keep(x)
    x.unsqueeze_(0)
    assert tuple(rmod.kept_shape()) == (6,)
    x.resize_(2)  # shrinking keeps the storage
    assert tuple(rmod.kept_shape()) == (6,)
    assert rmod.kept_sum() == 15.0
    rmod.drop_kept()


def test_returned_argument_owns_its_metadata(rmod):
    a = np.arange(4, dtype=np.float32)
    t = rmod.identity(a)
    a.shape = (2, 2)
    assert tuple(t.shape) == (4,)
    assert np.array_equal(np.from_dlpack(t), np.arange(4, dtype=np.float32))
    x = torch.zeros(3)
    t = rmod.identity(x)
    x.unsqueeze_(1)
    assert tuple(t.shape) == (3,)


def test_kept_tensor_keeps_memory_alive(rmod):
    import gc

    a = np.full(8, 2.0, dtype=np.float32)
    rmod.keep(a)
    del a
    gc.collect()
    assert rmod.kept_sum() == 16.0
    rmod.drop_kept()


def test_many_dimensions_are_imported_not_pooled(rmod):
    a = np.zeros((1,) * 20, dtype=np.float32)
    rmod.keep(a)
    a.shape = (1,)
    assert tuple(rmod.kept_shape()) == (1,) * 20
    rmod.drop_kept()


def test_callback_view_does_not_outlive_the_call(rmod):
    kept = []

    def cb(t):
        assert isinstance(t, ffi.Tensor)
        assert np.array_equal(np.from_dlpack(t), np.array([1, 2, 3, 4], dtype=np.float32))
        kept.append(t)
        return rmod.describe_tensor(t)

    assert rmod.call_with_view(cb) == "ndim=1 numel=4 data=set"
    (t,) = kept
    # The caller's buffer is gone: the kept object describes no memory.
    assert tuple(t.shape) == (0,)
    assert t.data_ptr() == 0
    assert rmod.describe_tensor(t) == "ndim=1 numel=0 data=null"
    assert np.from_dlpack(t).size == 0


def test_callback_view_not_kept_is_released(rmod):
    assert rmod.call_with_view(lambda t: t.shape) == ffi.Shape((4,))


def test_read_only_numpy_array_is_refused_as_an_argument(mod):
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        mod.sum_any(a)
    # The same array, made writable again, passes.
    b = np.arange(4, dtype=np.float32)
    assert mod.sum_any(b) == 6.0


def test_read_only_ffi_tensor_is_refused_as_an_argument(mod):
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    t = ffi.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only"):
        mod.sum_any(t)


class ReadOnlyProducer:
    """A DLPack producer whose versioned capsule is flagged read-only (NumPy's own export)."""

    def __init__(self):
        self.array = np.arange(3, dtype=np.float32)
        self.array.flags.writeable = False

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_read_only_dlpack_producer_is_refused_as_an_argument(mod):
    with pytest.raises(BufferError, match="read-only"):
        mod.sum_any(ReadOnlyProducer())


def test_read_only_tensor_is_not_exported_to_a_legacy_consumer():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    t = ffi.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    # A versioned consumer is told, and keeps it read-only.
    back = np.from_dlpack(t)
    assert not back.flags.writeable
