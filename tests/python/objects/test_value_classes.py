"""``ffi.core._set_class_tensor`` / ``_set_class_device`` / ``_set_class_dtype``: the reference's
hooks by which a framework (TVM) makes tensors, devices and dtypes arrive as its own subclasses,
from calls, conversions and constructors alike; ``_CLASS_TENSOR`` and friends say which."""

import pickle

import numpy as np
import pytest

import ffi
import ffi.core


class MyTensor(ffi.Tensor):
    def first(self):
        return float(np.from_dlpack(self)[0])


class MyDevice(ffi.Device):
    pass


class MyDType(ffi.dtype):
    pass


@pytest.fixture
def restore():
    saved = ffi.core._CLASS_TENSOR, ffi.core._CLASS_DEVICE, ffi.core._CLASS_DTYPE
    assert saved == (ffi.Tensor, ffi.Device, ffi.dtype)
    yield
    ffi.core._set_class_tensor(saved[0])
    ffi.core._set_class_device(saved[1])
    ffi.core._set_class_dtype(saved[2])


def test_tensors_arrive_as_the_class_set(mod, restore):
    ffi.core._set_class_tensor(MyTensor)
    assert ffi.core._CLASS_TENSOR is MyTensor
    x = ffi.from_dlpack(np.arange(1.0, 5.0, dtype=np.float32))
    assert type(x) is MyTensor and x.first() == 1.0
    assert type(mod.echo(x)) is MyTensor and type(mod.make_output(3)) is MyTensor
    assert type(ffi.Array([x])[0]) is MyTensor
    assert mod.sum_any(x) == 10.0  # a subclass instance passes as a tensor
    with pytest.raises(AttributeError):
        x.note = 1  # the object metaclass gave MyTensor no __dict__
    locked = np.arange(4, dtype=np.float32)
    locked.flags.writeable = False
    t = ffi.from_dlpack(locked)
    assert type(t) is MyTensor
    with pytest.raises(BufferError, match="read-only"):
        mod.sum_any(t)  # the read-only flag holds for subclasses too
    ffi.core._set_class_tensor(ffi.Tensor)
    assert type(mod.echo(x)) is ffi.Tensor and type(x) is MyTensor  # made earlier: unchanged


def test_devices_arrive_as_the_class_set(mod, restore):
    ffi.core._set_class_device(MyDevice)
    d = ffi.device("cuda", 1)
    assert (
        type(d) is MyDevice and d == ffi.Device("cuda:1") and hash(d) == hash(ffi.Device("cuda:1"))
    )
    assert type(mod.echo(d)) is MyDevice and mod.type_of(d) == "Device"
    x = ffi.from_dlpack(np.zeros(2, dtype=np.float32))
    assert type(x.device) is MyDevice and x.device == ffi.Device("cpu", 0)
    assert type(ffi.Device("cpu")) is ffi.Device and type(MyDevice("cpu", 0)) is MyDevice
    assert ffi.device(d) is d
    assert type(pickle.loads(pickle.dumps(d))) is MyDevice


def test_dtypes_arrive_as_the_class_set(mod, restore):
    ffi.core._set_class_dtype(MyDType)
    x = ffi.from_dlpack(np.zeros(2, dtype=np.float32))
    assert type(x.dtype) is MyDType and x.dtype == "float32" and x.dtype.bits == 32
    assert type(mod.echo(ffi.int8)) is MyDType
    assert mod.type_of(MyDType("int8")) == "DataType"  # a dtype, not the str it also is
    assert type(ffi.dtype("float32")) is ffi.dtype and type(MyDType("float32")) is MyDType
    assert type(pickle.loads(pickle.dumps(MyDType("i8")))) is MyDType
    ffi.core._set_class_dtype(ffi.dtype)
    assert x.dtype is ffi.float32  # the shared dtypes are intact


def test_only_subclasses_are_accepted(restore):
    with pytest.raises(TypeError, match=r"must be ffi\.Tensor or a subclass of it"):
        ffi.core._set_class_tensor(ffi.Object)
    with pytest.raises(TypeError, match=r"must be ffi\.Device or a subclass of it"):
        ffi.core._set_class_device(int)
    with pytest.raises(TypeError, match=r"must be ffi\.dtype or a subclass of it"):
        ffi.core._set_class_dtype("float32")
    assert ffi.core._CLASS_TENSOR is ffi.Tensor and ffi.core._CLASS_DEVICE is ffi.Device
    with pytest.raises(AttributeError):
        ffi.core._CLASS_NOTHING  # noqa: B018


def test_register_object_binds_subclasses_of_tensor_and_module(mod, kernels_path, restore):
    # As TVM does at import: @register_object("ffi.Tensor") on its Tensor subclass, and the same
    # for Module.
    assert ffi.register_object("ffi.Tensor")(MyTensor) is MyTensor
    assert ffi.core._CLASS_TENSOR is MyTensor
    assert ffi.from_dlpack(np.arange(1.0, 3.0, dtype=np.float32)).first() == 1.0

    class MyModule(ffi.Module):
        def describe(self):
            return "mine"

    module_index = ffi._core.type_key_to_index("ffi.Module")
    try:
        ffi.register_object("ffi.Module")(MyModule)
        loaded = ffi.load_module(kernels_path)
        assert type(loaded) is MyModule and loaded.describe() == "mine"
        assert loaded.add_int(1, 2) == 3
    finally:
        ffi._core._register_class(module_index, ffi.Module)
    assert type(ffi.load_module(kernels_path)) is ffi.Module
    # Anything else for those keys, and any class for the other built-in keys, is refused.
    with pytest.raises(ValueError, match="only a subclass of ffi.Tensor"):
        ffi.register_object("ffi.Tensor")(type("NotATensor", (ffi.Object,), {}))
    with pytest.raises(ValueError, match="built-in type"):
        ffi.register_object("ffi.Function")(type("F", (ffi.Object,), {}))
