"""A framework's DLPack exchange API under either name: ``__dlpack_c_exchange_api__`` (a capsule)
or the older ``__c_dlpack_exchange_api__`` (a capsule, or the table's address as an int, as
PyTorch's first extension and Paddle spell it). Through the API, tensors a kernel returns come back
as the framework's own; without it, as ``ffi.Tensor`` (the ``__dlpack__`` protocol)."""

import ctypes

import pytest
import torch

import ffi

CAPSULE = torch.Tensor.__dlpack_c_exchange_api__

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
ADDRESS = _get_pointer(CAPSULE, b"dlpack_exchange_api")


def tensor_of(cls):
    """A PyTorch tensor whose type is `cls` (a subclass of torch.Tensor)."""
    return torch.arange(4.0).as_subclass(cls)


class Hidden(torch.Tensor):
    __dlpack_c_exchange_api__ = None  # as a PyTorch before 2.10: no exchange API


class OldCapsule(torch.Tensor):
    __dlpack_c_exchange_api__ = None
    __c_dlpack_exchange_api__ = CAPSULE


class OldAddress(torch.Tensor):
    __dlpack_c_exchange_api__ = None
    __c_dlpack_exchange_api__ = ADDRESS


class NewNameAsAddress(torch.Tensor):
    __dlpack_c_exchange_api__ = ADDRESS  # an address is taken under the old name only


# Values under the old name that cannot be a table (named: the address differs by process).
BOGUS = {
    "zero": 0,
    "small": 12345,
    "misaligned": ADDRESS + 1,
    "negative": -1,
    "too large": 1 << 70,
    "str": "x",
    "float": 1.5,
}


@pytest.mark.parametrize("bogus", sorted(BOGUS))
def test_an_old_name_value_that_cannot_be_a_table_is_not_read(fmod, bogus):
    class Bogus(torch.Tensor):
        __dlpack_c_exchange_api__ = None
        __c_dlpack_exchange_api__ = BOGUS[bogus]

    x = tensor_of(Bogus)
    y = fmod.keep(x)
    fmod.release_kept()
    assert type(y) is ffi.Tensor
    assert y.shape == (4,) and torch.from_dlpack(y).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_without_the_api_results_are_ffi_tensors(fmod):
    y = fmod.keep(tensor_of(Hidden))
    fmod.release_kept()
    assert type(y) is ffi.Tensor


@pytest.mark.parametrize("cls", [OldCapsule, OldAddress])
def test_the_old_name_gives_framework_tensors(fmod, cls):
    x = tensor_of(cls)
    y = fmod.keep(x)
    fmod.release_kept()
    assert type(y) is torch.Tensor
    assert y.data_ptr() == x.data_ptr()
    # A tensor the kernel makes is handed to PyTorch through the API, and freed once.
    z = fmod.counted(x, 5, 1)
    assert type(z) is torch.Tensor and z.shape == (5,)
    del z
    assert fmod.live_buffers() == 0


def test_an_address_under_the_new_name_is_not_taken(fmod):
    y = fmod.keep(tensor_of(NewNameAsAddress))
    fmod.release_kept()
    assert type(y) is ffi.Tensor
