"""CUDA arrays of PyTorch, CuPy and JAX as kernel arguments and DLPack peers, on a real GPU: a
kernel compiled by nvcc reads and writes them in place, tensors it allocates come back in the
caller's framework (PyTorch) or the missing allocator is a clear error (others), and ffi.Tensor
views of them pass to each framework without copies.

The library is built wherever nvcc exists (a compile check on machines without a GPU); the rest
needs an NVIDIA GPU and the framework's CUDA build, and skips without them."""

import os

import pytest
import torch
from support.build import shared_build_dir
from support.markers import needs_nvcc, on_gpu
from support.paths import TESTS_DIR

import ffi
import ffi.cpp


@pytest.fixture(scope="module")
def cuda_path(tmp_path_factory):
    return ffi.cpp.build(
        "cuda_framework_kernels",
        cuda_files=[os.path.join(TESTS_DIR, "kernels", "cuda_framework_kernels.cu")],
        build_directory=shared_build_dir("cuda_framework")
        or tmp_path_factory.mktemp("cuda_framework"),
    )


@pytest.fixture(scope="module")
def cmod(cuda_path):
    return ffi.load_module(cuda_path)


@needs_nvcc
def test_cuda_library_builds_and_checks_arguments_without_a_gpu(cmod):
    # Checked before any CUDA call: the same error with or without a GPU.
    with pytest.raises(ValueError, match="x must be a CUDA tensor, got one on cpu"):
        cmod.add_one(torch.zeros(3), torch.zeros(3))


@on_gpu
def test_torch_cuda_tensors_in_place_on_the_current_stream(cmod):
    x = torch.arange(1 << 12, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        assert cmod.stream_of(x).value == s.cuda_stream
        cmod.add_one(x, y)
    s.synchronize()
    assert torch.equal(y, x + 1)


@on_gpu
def test_torch_cuda_result_is_a_torch_tensor_from_torchs_allocator(cmod):
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    before = torch.cuda.memory_allocated(x.device)
    y = cmod.add_one_alloc(x)
    assert isinstance(y, torch.Tensor)
    assert y.device == x.device and y.shape == x.shape and y.dtype == torch.float32
    assert torch.cuda.memory_allocated(x.device) >= before + 4000  # PyTorch's caching allocator
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)
    del y
    assert torch.cuda.memory_allocated(x.device) == before


@on_gpu
def test_ffi_tensor_of_a_cuda_tensor_is_a_view_both_ways(cmod):
    x = torch.arange(8, dtype=torch.float32, device="cuda")
    t = ffi.from_dlpack(x)
    assert t.device == ffi.device("cuda", x.device.index)
    assert t.data_ptr() == x.data_ptr()
    back = torch.from_dlpack(t)
    assert back.data_ptr() == x.data_ptr() and back.device == x.device
    y = torch.zeros_like(x)
    cmod.add_one(t, y)  # an ffi.Tensor argument: no PyTorch stream, the legacy default stream
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)


def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("CuPy sees no GPU")
    return cp


@on_gpu
def test_cupy_arrays_are_kernel_arguments_in_place(cmod):
    cp = _cupy()
    x = cp.arange(1 << 12, dtype=cp.float32)
    y = cp.zeros_like(x)
    cmod.add_one(x, y)
    cp.cuda.runtime.deviceSynchronize()
    assert bool((y == x + 1).all())
    t = ffi.from_dlpack(x)
    assert t.data_ptr() == x.data.ptr
    assert t.device == ffi.device("cuda", x.device.id)
    with pytest.raises(TypeError, match="x must be float32, got int32"):
        cmod.add_one(cp.zeros(4, dtype=cp.int32), cp.zeros(4, dtype=cp.float32))


@on_gpu
def test_cupy_arguments_get_no_cuda_allocator(cmod):
    cp = _cupy()
    with pytest.raises(RuntimeError, match="No tensor allocator is installed for device cuda:0"):
        cmod.add_one_alloc(cp.zeros(4, dtype=cp.float32))


@on_gpu
def test_ffi_tensor_into_cupy_without_a_copy(cmod):
    cp = _cupy()
    x = torch.arange(16, dtype=torch.float32, device="cuda")
    t = ffi.from_dlpack(x)
    c = cp.from_dlpack(t)  # CuPy passes its current stream: ordered after the producer's
    assert c.data.ptr == x.data_ptr()
    assert c.shape == (16,)
    assert float(c.sum()) == float(x.sum())


def _jax_gpu():
    jax = pytest.importorskip("jax")
    try:
        devices = jax.devices("cuda")
    except RuntimeError:
        pytest.skip("JAX has no CUDA backend here")
    return jax, devices[0]


@on_gpu
def test_jax_cuda_arrays_are_kernel_arguments(cmod):
    jax, dev = _jax_gpu()
    x = jax.device_put(jax.numpy.arange(64, dtype=jax.numpy.float32), dev)
    x.block_until_ready()
    y = torch.zeros(64, device="cuda")
    cmod.add_one(x, y)
    torch.cuda.synchronize()
    assert y.tolist() == [float(i + 1) for i in range(64)]
    t = ffi.from_dlpack(x)
    assert t.data_ptr() == x.unsafe_buffer_pointer()
    assert t.device.type == "cuda"


@on_gpu
def test_ffi_tensor_into_jax_on_the_gpu(cmod):
    jax, dev = _jax_gpu()
    x = torch.arange(32, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    cmod.add_one(x, y)  # on PyTorch's current stream; JAX orders its stream after it
    j = jax.numpy.from_dlpack(ffi.from_dlpack(y))
    assert j.devices() == {dev}
    assert j.tolist() == [float(i + 1) for i in range(32)]
