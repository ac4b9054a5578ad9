"""PyTorch tensors through a Rust kernel library on our runtime: written in place without a copy,
refused with clear errors, results handed back as ``torch.Tensor`` (Rust-owned buffers freed once
by PyTorch), and ``Tensor::alloc`` allocating through PyTorch's allocator inside a PyTorch
call."""

import ctypes
import gc
import sys

import numpy as np
import pytest
import torch
from support.threads import run_in_threads


def torch_allocator_address() -> int:
    """The address of the allocator in PyTorch's DLPack exchange table
    (``torch.Tensor.__dlpack_c_exchange_api__``: version, ``prev_api``, then the allocator)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    table = get(torch.Tensor.__dlpack_c_exchange_api__, b"dlpack_exchange_api")
    return ctypes.c_void_p.from_address(table + 8 + ctypes.sizeof(ctypes.c_void_p)).value


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (1, 1, 9), ()])
def test_add_one_writes_torch_output_in_place(rust_mod, shape):
    """``add_one`` on PyTorch tensors: y's own storage is written (no copy), x is only read."""
    x = torch.randn(shape, dtype=torch.float32)
    y = torch.full(shape, -7.0)
    before, address = x.clone(), y.data_ptr()
    assert rust_mod.add_one(x, y) is None
    assert torch.equal(y, x + 1) and torch.equal(x, before)
    assert y.data_ptr() == address


def test_add_one_into_a_torch_slice(rust_mod):
    """A contiguous slice of a larger tensor: the base tensor sees the write."""
    base = torch.zeros(4, 3)
    rust_mod.add_one(torch.ones(2, 3), base[1:3])
    assert base.tolist() == [[0, 0, 0], [2, 2, 2], [2, 2, 2], [0, 0, 0]]


def test_add_one_torch_errors(rust_mod):
    """Wrong dtype, wrong shape, a strided view and a non-tensor: each refused with its own
    exception type and message, the output untouched."""
    y = torch.zeros(2, 3)
    with pytest.raises(TypeError, match="the tensor holds float64 elements, not float32"):
        rust_mod.add_one(torch.zeros(2, 3, dtype=torch.float64), y)
    with pytest.raises(TypeError, match="the tensor holds int64 elements, not float32"):
        rust_mod.add_one(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"shapes differ: \[2, 3\] and \[6\]"):
        rust_mod.add_one(torch.zeros(2, 3), torch.zeros(6))
    with pytest.raises(ValueError, match="the tensor is not contiguous"):
        rust_mod.add_one(torch.zeros(3, 2).t(), y)
    with pytest.raises(TypeError, match=r"argument #0 .*Expected `Tensor` but got `float`"):
        rust_mod.add_one(1.0, y)
    assert not y.any()


def test_torch_and_numpy_in_one_call(rust_mod):
    """One argument from each library: both are borrowed, the NumPy output written."""
    y = np.zeros(4, np.float32)
    rust_mod.add_one(torch.arange(4.0), y)
    assert y.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_torch_tensor_through_any_shares_memory(rust_mod):
    """A tensor returned unchanged by an ``Any`` kernel comes back a ``torch.Tensor`` over the
    same memory, and the input's reference count is restored once the result is gone."""
    x = torch.arange(5.0)
    before = sys.getrefcount(x)
    y = rust_mod.echo(x)
    assert type(y) is torch.Tensor and y.data_ptr() == x.data_ptr()
    y[0] = 9.0
    assert x[0].item() == 9.0
    del y
    gc.collect()
    assert sys.getrefcount(x) == before
    dev, dtype = rust_mod.device_and_dtype(x.to(torch.float16))
    assert (str(dev), str(dtype)) == ("cpu:0", "float16")


def test_rust_buffer_becomes_a_torch_tensor_freed_once(rust_mod):
    """In a call that received a PyTorch tensor, a ``Tensor::from_vec`` result comes back as a
    ``torch.Tensor`` over the Rust ``Vec``; PyTorch frees it exactly once when done."""
    gc.collect()
    live, freed = rust_mod.live_buffers()
    t = rust_mod.make_tensor(5, torch.empty(0))
    assert type(t) is torch.Tensor and t.dtype == torch.float32
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert rust_mod.live_buffers() == (live + 1, freed)
    view = t[1:3]
    del t
    gc.collect()
    assert rust_mod.live_buffers() == (live + 1, freed)  # the slice still holds the buffer
    assert view.tolist() == [1.0, 2.0]
    del view
    gc.collect()
    assert rust_mod.live_buffers() == (live, freed + 1)


def test_alloc_inside_a_torch_call_uses_torchs_allocator(rust_mod):
    """``Tensor::alloc`` in a call that received a PyTorch tensor allocates through PyTorch: the
    allocator the call sees is PyTorch's (and none after the call), PyTorch's profiler records the
    allocation, and the result is a ``torch.Tensor`` holding what Rust wrote."""
    like = torch.zeros(1)
    assert rust_mod.env_allocator(like) == torch_allocator_address() != 0
    assert rust_mod.env_allocator() == 0
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True
    ) as prof:
        mine = rust_mod.alloc_tensor([1000, 3], like)  # 12000 bytes through PyTorch
        other = rust_mod.alloc_tensor([1000, 5])  # 20000 bytes, not PyTorch's
    sizes = [e.cpu_memory_usage for e in prof.events() if e.cpu_memory_usage > 0]
    assert 12000 in sizes and 20000 not in sizes, sizes
    assert type(mine) is torch.Tensor and mine.shape == (1000, 3)
    assert torch.equal(mine.flatten(), torch.arange(3000, dtype=torch.float32))
    assert type(other) is not torch.Tensor and other.shape == (1000, 5)


def test_threads_with_torch_tensors(rust_mod):
    """Threads call the Rust kernels on PyTorch tensors at once, results and errors their own."""

    def work(t):
        for k in range(20):
            x = torch.full((t + 1, 3), float(k))
            y = torch.empty_like(x)
            rust_mod.add_one(x, y)
            assert torch.equal(y, x + 1)
            made = rust_mod.make_tensor(k, x)
            assert type(made) is torch.Tensor and made.sum().item() == sum(range(k))
            with pytest.raises(ValueError, match="shapes differ"):
                rust_mod.add_one(x, torch.empty(t + 2))

    live = rust_mod.live_buffers()[0]
    run_in_threads(work, 8)
    gc.collect()
    assert rust_mod.live_buffers()[0] == live
