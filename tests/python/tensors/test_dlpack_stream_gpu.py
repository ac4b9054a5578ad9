"""``ffi.Tensor.__dlpack__(stream=...)`` orders the consumer's stream after the producer's (this
thread's FFI stream): a PyTorch consumer on another stream reads what a slow kernel wrote.

The kernel library is built with nvcc wherever nvcc exists (a compile check on machines without a
GPU); the ordering itself needs an NVIDIA GPU and a CUDA build of PyTorch."""

import os

import pytest
import torch
from support.markers import needs_nvcc, on_gpu
from support.paths import TESTS_DIR

import ffi
import ffi.cpp

SPIN_MS = 100  # far longer than launching the consumer's copy: unordered, it reads zeros
N = 1 << 16


@pytest.fixture(scope="module")
def spin_path(tmp_path_factory):
    return ffi.cpp.build(
        "stream_spin_kernels",
        cuda_files=[os.path.join(TESTS_DIR, "kernels", "stream_spin_kernels.cu")],
        build_directory=tmp_path_factory.mktemp("stream_spin"),
    )


@needs_nvcc
def test_spin_kernel_compiles(spin_path):
    assert os.path.isfile(spin_path)


def _produce(smod, producer):
    """A zeroed CUDA tensor as ffi.Tensor, filled with 7 by a slow kernel on `producer`."""
    out = torch.zeros(N, device="cuda")
    torch.cuda.synchronize()
    t = ffi.from_dlpack(out)
    dev = ffi.device("cuda", out.device.index)
    with ffi.use_raw_stream(dev, producer.cuda_stream):
        smod.spin_fill(t, 7.0, SPIN_MS)  # an ffi.Tensor argument: the FFI stream is `producer`
    return t, dev


@on_gpu
def test_consumer_stream_waits_for_the_producer_stream(spin_path):
    smod = ffi.load_module(spin_path)
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    t, dev = _produce(smod, a)
    with ffi.use_raw_stream(dev, a.cuda_stream):  # A is still the producer's stream
        with torch.cuda.stream(b):
            y = torch.from_dlpack(t)  # __dlpack__(stream=B): B waits for A
            seen = y.clone()  # read on B
    b.synchronize()  # B only
    assert seen.min().item() == 7.0 and seen.max().item() == 7.0
    torch.cuda.synchronize()


@on_gpu
def test_without_ordering_the_consumer_reads_early(spin_path):
    """The control: stream=-1 asks for no ordering, and B reads before A has written. This is
    what the test above would see if __dlpack__ ignored the consumer's stream."""
    smod = ffi.load_module(spin_path)
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    t, dev = _produce(smod, a)
    with ffi.use_raw_stream(dev, a.cuda_stream):
        with torch.cuda.stream(b):
            y = torch.utils.dlpack.from_dlpack(t.__dlpack__(stream=-1))
            seen = y.clone()
    b.synchronize()
    assert seen.max().item() == 0.0
    torch.cuda.synchronize()
    assert y.min().item() == 7.0


@on_gpu
def test_default_producer_stream_and_protocol_values(spin_path):
    smod = ffi.load_module(spin_path)
    out = torch.zeros(N, device="cuda")
    torch.cuda.synchronize()
    t = ffi.from_dlpack(out)
    # No FFI stream set: the kernel runs on the legacy default stream; B is ordered after it.
    smod.spin_fill(t, 3.0, SPIN_MS)
    b = torch.cuda.Stream()
    with torch.cuda.stream(b):
        seen = torch.from_dlpack(t).clone()
    b.synchronize()
    assert seen.min().item() == 3.0
    with pytest.raises(ValueError, match="stream=0 is ambiguous"):
        t.__dlpack__(stream=0)
    for ok in (None, 1, 2, -1):  # legacy, legacy, per-thread default, no ordering
        assert "dltensor" in repr(t.__dlpack__(stream=ok))
    with pytest.raises(BufferError, match="copies CPU tensors only"):
        t.__dlpack__(copy=True)
    torch.cuda.synchronize()
