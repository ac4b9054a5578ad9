"""Tensors returned by calls that received PyTorch tensors come back as ``torch.Tensor``
(zero-copy, also inside returned containers); ``ffi.set_tensor_results("ffi")`` switches back."""

import gc
import sys
import weakref

import numpy as np
import pytest
import torch

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


@pytest.fixture
def ffi_results():
    previous = ffi.set_tensor_results("ffi")
    yield
    assert ffi.set_tensor_results(previous) == "ffi"


def test_returned_input_is_a_torch_tensor_sharing_memory(fmod):
    x = torch.arange(4.0)
    base = sys.getrefcount(x)
    y = fmod.keep(x)
    assert type(y) is torch.Tensor
    assert y.data_ptr() == x.data_ptr() and y.shape == x.shape and y.dtype == x.dtype
    y[1] = 42.0  # writing through the result is seen by the input
    assert x[1].item() == 42.0
    # One reference to x for the tensor the library keeps (the result shares that object).
    assert sys.getrefcount(x) == base + 1
    del y
    assert sys.getrefcount(x) == base + 1
    fmod.release_kept()
    assert sys.getrefcount(x) == base


def test_result_keeps_the_input_memory_alive(fmod):
    x = torch.arange(3.0)
    alive = weakref.ref(x)
    y = fmod.keep(x)
    fmod.release_kept()
    del x
    gc.collect()
    assert alive() is not None  # the result still uses its memory
    assert y.tolist() == [0.0, 1.0, 2.0]
    del y
    gc.collect()
    assert alive() is None


def test_new_tensor_result_is_freed_exactly_once(fmod):
    x = torch.zeros(1)
    y = fmod.counted(x, 5, 1)
    assert type(y) is torch.Tensor and y.shape == (5,) and y.dtype == torch.float32
    assert fmod.live_buffers() == 1
    del y
    assert fmod.live_buffers() == 0


def test_result_the_framework_cannot_take_stays_ffi_tensor(fmod):
    # PyTorch has no 4-lane float32: the result falls back to ffi.Tensor, nothing leaks or
    # is freed twice, and no error is left behind.
    x = torch.zeros(1)
    y = fmod.counted(x, 3, 4)
    assert type(y) is ffi.Tensor and str(y.dtype) == "float32x4"
    assert fmod.live_buffers() == 1
    del y
    assert fmod.live_buffers() == 0
    assert type(fmod.counted(x, 2, 1)) is torch.Tensor


def test_imported_result_goes_to_the_framework_once(fmod):
    # A result only the call holds, imported from a DLPack producer: handed to PyTorch as the
    # producer's own tensor, whose deleter runs once, when PyTorch's tensor goes.
    x = torch.zeros(1)
    y = fmod.counted_dlpack(x, 5, 1, False)
    assert type(y) is torch.Tensor and y.shape == (5,) and y.dtype == torch.float32
    y += 2.0  # writable, and the memory is the producer's
    assert y.tolist() == [2.0] * 5
    assert fmod.live_buffers() == 1
    del y
    assert fmod.live_buffers() == 0


def test_imported_result_the_framework_cannot_take_stays_ffi_tensor(fmod):
    x = torch.zeros(1)
    y = fmod.counted_dlpack(x, 3, 4, False)
    assert type(y) is ffi.Tensor and str(y.dtype) == "float32x4" and y.shape == (3,)
    assert fmod.live_buffers() == 1
    del y
    assert fmod.live_buffers() == 0
    assert type(fmod.counted_dlpack(x, 2, 1, False)) is torch.Tensor
    assert fmod.live_buffers() == 0


def test_read_only_imported_result_is_released_once(fmod):
    # The flag goes to PyTorch with the tensor, as it would in an export (PyTorch 2.13 takes
    # it as an ordinary tensor); the producer's deleter runs once either way.
    x = torch.zeros(1)
    y = fmod.counted_dlpack(x, 4, 1, True)
    assert y.shape == (4,)
    assert fmod.live_buffers() == 1
    del y
    gc.collect()
    assert fmod.live_buffers() == 0


def test_result_the_library_keeps_is_shared_not_handed_over(fmod):
    # The library holds a reference to its result: PyTorch gets a view of it, and the library's
    # reference stays valid after PyTorch's tensor is gone.
    x = torch.zeros(4)
    y = fmod.keep_new(x)
    assert type(y) is torch.Tensor and y.tolist() == [0.0, 1.0, 2.0, 3.0]
    y[2] = 42.0
    assert fmod.kept_at(2) == 42.0
    del y
    gc.collect()
    assert fmod.kept_at(3) == 3.0
    fmod.release_kept()


def test_allocated_results_in_a_loop_stay_distinct(fmod):
    # Results handed back one after another: each its own memory, values intact.
    x = torch.arange(3.0)
    ys = [fmod.add_one_from_map({"x": [x + i]}) for i in range(50)]
    assert all(type(y) is torch.Tensor for y in ys)
    assert len({y.data_ptr() for y in ys}) == 50
    assert [y.tolist() for y in ys] == [[i + 1.0, i + 2.0, i + 3.0] for i in range(50)]


def test_tensors_in_returned_containers_are_torch_tensors(fmod):
    x = torch.arange(2.0)
    a, b = fmod.pair(x)
    assert type(a) is torch.Tensor and type(b) is torch.Tensor
    assert a.data_ptr() == x.data_ptr() and b.shape == x.shape
    twice = fmod.twice(x)
    assert isinstance(twice, ffi.Array)
    assert [type(t) for t in twice] == [torch.Tensor, torch.Tensor]
    assert type(twice[-1]) is torch.Tensor and type(twice[0:1][0]) is torch.Tensor
    assert type(fmod.nested(x)[0][0]) is torch.Tensor
    for m in (fmod.as_map(x), fmod.as_dict(x)):
        assert type(m["x"]) is torch.Tensor and type(m.get("x")) is torch.Tensor
        assert [type(v) for v in m.values()] == [torch.Tensor]
        assert [type(v) for _, v in m.items()] == [torch.Tensor]
    m["x"][0] = 7.0
    assert x[0].item() == 7.0


def test_tensors_nested_in_arguments_count_as_tensor_arguments(fmod):
    # A PyTorch tensor inside a list or dict argument makes the results PyTorch's too, and the
    # call allocates with PyTorch's allocator, as a tensor argument does.
    x = torch.arange(3.0)
    y = fmod.add_one_from_map({"x": [x]})
    assert type(y) is torch.Tensor
    assert y.tolist() == [1.0, 2.0, 3.0]
    first = fmod.first([x, torch.zeros(1)])
    assert type(first) is torch.Tensor and first.data_ptr() == x.data_ptr()
    first = fmod.first((x,))  # a tuple too
    assert type(first) is torch.Tensor
    # A container a PyTorch call returned, passed back, hands out PyTorch tensors again.
    returned = fmod.twice(x)
    first = fmod.first(returned)
    assert type(first) is torch.Tensor and first.data_ptr() == x.data_ptr()
    # NumPy arrays nested the same way have no exchange API: ffi.Tensor.
    a = np.arange(3.0, dtype=np.float32)
    assert type(fmod.add_one_from_map({"x": [a]})) is ffi.Tensor
    assert type(fmod.first([a])) is ffi.Tensor


def test_calls_without_framework_tensors_return_ffi_tensors(fmod):
    ft = ffi.from_dlpack(torch.zeros(2))
    assert type(fmod.keep(ft)) is ffi.Tensor
    assert type(fmod.pair(ft)[0]) is ffi.Tensor
    fmod.release_kept()
    # NumPy has no exchange API: its results stay ffi.Tensor too.
    assert type(fmod.keep(np.zeros(2, dtype=np.float32))) is ffi.Tensor
    fmod.release_kept()
    # An ffi.Array made in Python hands out ffi.Tensor.
    assert type(ffi.Array([ft])[0]) is ffi.Tensor


def test_switch_returns_ffi_tensors(fmod, ffi_results):
    x = torch.arange(3.0)
    y = fmod.keep(x)
    assert type(y) is ffi.Tensor
    assert y.data_ptr() == x.data_ptr()
    assert type(fmod.pair(x)[0]) is ffi.Tensor
    assert type(fmod.as_map(x)["x"]) is ffi.Tensor
    del y
    fmod.release_kept()


def test_switch_values():
    assert ffi.set_tensor_results("framework") == "framework"
    assert ffi.set_tensor_results("ffi") == "framework"
    assert ffi.set_tensor_results("framework") == "ffi"
    for bad in ("torch", None, 1):
        with pytest.raises(ValueError, match="framework"):
            ffi.set_tensor_results(bad)
    assert ffi.set_tensor_results("framework") == "framework"


def test_container_read_in_ffi_mode_still_converts_what_it_remembers(fmod):
    # The container made in framework mode keeps handing out framework tensors.
    x = torch.arange(2.0)
    pair = fmod.pair(x)
    previous = ffi.set_tensor_results("ffi")
    try:
        assert type(pair[0]) is torch.Tensor
    finally:
        ffi.set_tensor_results(previous)


def test_convert_func_delivers_framework_tensors_to_callbacks(mod):
    received = []

    def double(x):
        received.append(type(x))
        x.mul_(2)  # the caller's memory: zero-copy
        return x.shape[0]

    t = torch.ones(3)
    f = ffi.convert_func(double, tensor_cls=torch.Tensor)
    assert isinstance(f, ffi.Function)
    assert mod.call_with(f, t) == 3
    assert received == [torch.Tensor] and t.tolist() == [2.0, 2.0, 2.0]
    # Without tensor_cls: as ffi.convert makes it (tensors arrive as ffi.Tensor); other arguments
    # pass unchanged.
    kinds = []
    plain = ffi.convert_func(lambda x: kinds.append(type(x)) or 0)
    mod.call_with(plain, t)
    mod.call_with(ffi.convert_func(lambda x: kinds.append(x), tensor_cls=torch.Tensor), 5)
    assert kinds == [ffi.Tensor, 5]
    with pytest.raises(TypeError, match="__dlpack_c_exchange_api__"):
        ffi.convert_func(double, tensor_cls=list)
    with pytest.raises(TypeError, match="callable"):
        ffi.convert_func(3)  # type: ignore[arg-type]
