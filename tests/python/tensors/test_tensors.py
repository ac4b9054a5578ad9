"""Zero-copy tensors: PyTorch, NumPy, ffi.Tensor and any DLPack producer, in both directions."""

import gc
import sys

import numpy as np
import pytest
import torch

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_seed_004_kernel_with_torch(mod):
    x = torch.arange(6.0)
    out = torch.empty(6)
    ws = torch.empty(6)
    mod.scale_add(x, None, out, ws)
    assert torch.equal(out, x * 2)
    bias = torch.ones(6)
    mod.scale_add(x, bias, out, ws)
    assert torch.equal(out, x * 2 + 1)


def test_seed_004_kernel_with_numpy_and_strided_views(mod):
    x = np.arange(12, dtype=np.float32)[::2]  # strided: 6 elements
    out = np.zeros(12, dtype=np.float32)[::2]
    ws = np.empty(6, dtype=np.float32)
    mod.scale_add(x, None, out, ws)
    np.testing.assert_array_equal(out, x * 2)


def test_kernel_checks_dtype_and_shape(mod):
    x = torch.arange(6, dtype=torch.int32)
    with pytest.raises(TypeError, match="x must be float32, got int32"):
        mod.scale_add(x, None, torch.empty(6), torch.empty(6))
    with pytest.raises(ValueError, match=r"out shape \[5\] != \[6\]"):
        mod.scale_add(torch.zeros(6), None, torch.empty(5), torch.empty(6))
    with pytest.raises(TypeError, match=r"argument #0 .* Expected `Tensor` but got `int`"):
        mod.scale_add(1, None, torch.empty(5), torch.empty(6))


def test_tensor_made_in_cpp_shared_with_torch_and_numpy(mod):
    t = mod.make_output(5)
    assert isinstance(t, ffi.Tensor)
    assert t.shape == (5,) and isinstance(t.shape, ffi.Shape)
    assert t.dtype == ffi.float32 and t.device == ffi.Device("cpu")
    tt = torch.from_dlpack(t)
    na = np.from_dlpack(t)
    assert tt.tolist() == [0, 1, 2, 3, 4]
    tt[0] = 42
    assert na[0] == 42  # same memory
    del t
    gc.collect()
    assert na.tolist() == [42, 1, 2, 3, 4]  # memory kept alive by its holders


def test_from_dlpack_shares_memory_and_keeps_owner_alive():
    x = torch.arange(4.0)
    before = sys.getrefcount(x)
    t = ffi.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr()
    assert sys.getrefcount(x) == before + 1
    del t
    gc.collect()
    assert sys.getrefcount(x) == before
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = ffi.from_dlpack(a)
    assert t.shape == (2, 3) and t.strides == (3, 1) and t.dtype == "int64"
    assert np.from_dlpack(t).base is not None


def test_from_dlpack_requirements():
    x = torch.arange(8.0)[::2]
    with pytest.raises(RuntimeError, match="not contiguous"):
        ffi.from_dlpack(x, require_contiguous=True)
    base = np.zeros(17, dtype=np.uint8)
    with pytest.raises(RuntimeError, match="not aligned to 64 bytes"):
        ffi.from_dlpack(base[1:] if base.ctypes.data % 64 == 0 else base, require_alignment=64)
    with pytest.raises(TypeError):
        ffi.from_dlpack(x, bogus=1)
    with pytest.raises(TypeError, match="needs a DLPack producer"):
        ffi.from_dlpack(object())


def test_from_dlpack_takes_capsules():
    """A capsule a producer's __dlpack__ returned (versioned or legacy) is consumed, as the
    reference takes it; a used one is refused, and requirements still apply."""
    a = np.arange(4.0)
    cap = a.__dlpack__()
    t = ffi.from_dlpack(cap)
    a[0] = 7.0
    assert np.from_dlpack(t).tolist() == [7.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="consumed once"):
        ffi.from_dlpack(cap)
    legacy = ffi.from_dlpack(torch.arange(3.0).__dlpack__())
    assert torch.from_dlpack(legacy).tolist() == [0.0, 1.0, 2.0]
    versioned = ffi.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert versioned.shape == (4,)
    with pytest.raises(RuntimeError, match="not contiguous"):
        ffi.from_dlpack(torch.arange(8.0)[::2].__dlpack__(), require_contiguous=True)


def test_ffi_tensor_dlpack_protocol():
    t = ffi.from_dlpack(torch.arange(3.0))
    assert t.__dlpack_device__() == (1, 0)
    cap = t.__dlpack__(max_version=(1, 3))
    assert "dltensor_versioned" in repr(cap)
    legacy = t.__dlpack__()
    assert "dltensor" in repr(legacy)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    # copy=True copies (CPU tensors; see test_dlpack_exchange.py).
    assert torch.from_dlpack(t, copy=True).data_ptr() != t.data_ptr()
    del cap, legacy  # unconsumed capsules release their tensors


def test_ffi_tensors_as_arguments(mod):
    t = ffi.from_dlpack(torch.arange(4.0))
    assert mod.sum_any(t) == 6.0
    assert mod.shape_of(t) == (4,)


def test_dtypes_from_frameworks(mod):
    for np_dtype, name in [(np.float64, "float64"), (np.int64, "int64"), (np.float32, "float32")]:
        a = np.ones(3, dtype=np_dtype)
        assert mod.describe(a).startswith(name)
    assert mod.describe(torch.ones(2, dtype=torch.bfloat16)).startswith("bfloat16")
    assert mod.describe(torch.ones(2, dtype=torch.bool)).startswith("bool")
    assert ffi.dtype(torch.float16) == "float16"
    assert ffi.dtype(np.dtype("int8")) == ffi.int8


def test_describe_strides_and_zero_size(mod):
    a = np.zeros((3, 4), dtype=np.float32).T
    assert mod.describe(a) == "float32 cpu [4, 3] strides [1, 4] contiguous 0"
    assert mod.describe(np.zeros((0, 3), dtype=np.float32)).startswith("float32 cpu [0, 3]")
    assert mod.describe(torch.tensor(1.0)) == "float32 cpu [] strides [] contiguous 1"


def test_generic_dlpack_producer(mod):
    class Producer:
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kwargs):
            return self.arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    p = Producer(np.arange(5, dtype=np.float64))
    assert mod.sum_any(p) == 10.0
    assert ffi.from_dlpack(p).shape == (5,)


def test_env_alloc_inside_torch_call(mod):
    x = torch.ones(3, 2)
    y = mod.alloc_like(x)  # a torch.Tensor: the call received one (test_framework_results.py)
    assert y.shape == (3, 2) and y.dtype == torch.float32


def test_device_and_dtype_objects():
    d = ffi.device("cuda:2")
    assert (d.type, d.index, str(d), d.dlpack_device_type()) == ("cuda", 2, "cuda:2", 2)
    assert repr(d) == "device(type='cuda', index=2)"
    assert ffi.Device(torch.device("cuda", 1)) == ffi.device("cuda", 1)
    assert hash(ffi.device("cpu")) == hash(ffi.Device("cpu", 0))
    assert str(ffi.device("cpu")) == "cpu:0" and ffi.device(str(ffi.device("cpu"))) == ffi.device(
        "cpu"
    )
    with pytest.raises(ValueError, match="Unknown device: gpu"):
        ffi.device("gpu")
    assert ffi.float32.bits == 32 and ffi.float32.lanes == 1 and ffi.float32.itemsize == 4
    assert repr(ffi.bfloat16) == "dtype('bfloat16')"
    with pytest.raises(ValueError, match="unknown dtype `floaty`"):
        ffi.dtype("floaty")
    assert ffi.DLDeviceType.kDLCUDA == 2


def test_streams_default_and_raw(mod):
    assert ffi.get_raw_stream("cuda:0") == 0
    with ffi.use_raw_stream(ffi.device("cuda:0"), 0x1234):
        assert ffi.get_raw_stream("cuda:0") == 0x1234
        assert mod.stream_of(2, 0).value == 0x1234
    assert ffi.get_raw_stream("cuda:0") == 0
    assert mod.stream_of(2, 0).value is None  # a null void* is a null ctypes.c_void_p


def test_stream_contexts_nest_and_take_void_pointers(mod):
    import ctypes

    ctx = ffi.StreamContext("cuda:1", ctypes.c_void_p(0x10))
    with ctx:
        assert ffi.get_raw_stream("cuda:1") == 0x10
        with ffi.use_raw_stream("cuda:1", 0x20):
            assert mod.stream_of(2, 1).value == 0x20
        assert ffi.get_raw_stream("cuda:1") == 0x10
    with pytest.raises(KeyError), ctx:  # restored on an exception too; entered again
        raise KeyError("inside")
    assert ffi.get_raw_stream("cuda:1") == 0
    with pytest.raises(TypeError, match="stream handle"):
        ffi.StreamContext("cuda:0", "fast")
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        ctx.__exit__(None, None, None)
    assert ffi.get_raw_stream("cuda:1") == 0


def test_cpu_tensor_calls_leave_streams_alone(mod):
    assert mod.stream_of_tensor(torch.zeros(2)).value is None


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
def test_torch_cuda_stream_is_current_inside_calls(mod):
    x = torch.zeros(4, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert mod.stream_of_tensor(x).value == s.cuda_stream
    # An explicitly set stream wins over PyTorch's.
    with ffi.use_raw_stream(ffi.device("cuda", x.device.index), 0x10):
        assert mod.stream_of_tensor(x).value == 0x10
    with ffi.use_torch_stream(s):
        assert ffi.get_raw_stream(ffi.device("cuda", x.device.index)) == s.cuda_stream


def test_read_only_numpy_arrays_stay_read_only():
    a = np.arange(4, dtype=np.float32)
    a.setflags(write=False)
    back = np.from_dlpack(ffi.from_dlpack(a))
    assert not back.flags.writeable
    w = np.from_dlpack(ffi.from_dlpack(np.zeros(2)))
    assert w.flags.writeable


def test_read_only_tensors_inside_arguments_are_refused_like_arguments(mod):
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    ro_ffi = ffi.from_dlpack(ro)
    for arg in (ro, [ro], (1, ro), [np.ones(2)] * 9 + [ro], {"k": ro}, [ro_ffi], {"k": [ro_ffi]}):
        with pytest.raises(BufferError, match="read-only"):
            mod.echo(arg)
    assert not ro.any()
    # Outside a call a read-only tensor may be held (the kernel that gets it is what is refused).
    held = ffi.Array([ro])
    assert ffi.Array([ro_ffi])[0].shape == (3,) and len(held) == 1
    # And writable ones nested in arguments still pass.
    assert mod.echo([np.ones(2, np.float32)])[0].shape == (2,)


def test_framework_tensors_compare_as_tensors_in_containers():
    t = torch.ones(3)
    a = np.ones(2)
    assert t in ffi.Array([1, t]) and a in ffi.List([2.0, a])
    assert torch.zeros(3) not in ffi.Array([1, t])
    assert ffi.Array([1, t]).index(t) == 1
    assert ffi.Map({"k": t}).items() >= {("k", t)}
