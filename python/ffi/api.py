"""The Python-level parts of the API around objects: shapes, devices, conversion protocols, the
missing value and copying or pickling objects.

Everything on the call path is native (``ffi._core``); this module holds the conveniences around
it and never imports PyTorch or NumPy at import time. What it adds to the extension's classes
(``Object.__copy__``, ``Function.__from_extern_c__``, ...) and the value classes it defines for
built-in types (``Shape``, ``OpaquePyObject``) are put in place by ``ffi._bootstrap``.
"""

from __future__ import annotations

import ctypes
import enum
import operator
from collections.abc import Iterable
from typing import Any, Callable, SupportsIndex

from . import _core
from ._abi import DL_DEVICE_TYPE
from ._core import Device, Function, Object, Tensor


class Shape(tuple):
    """The extents of a tensor: a tuple of ints, as FFI Shape objects arrive in Python.

    ``ffi.Shape((2, 3))`` checks its extents as a call would: each must be an integer
    (``TypeError`` otherwise; NumPy integers count) that fits in int64 (``OverflowError``)."""

    __slots__ = ()

    def __new__(cls, content: Iterable[SupportsIndex] = ()) -> Shape:
        dims = []
        for d in content:
            try:
                value = operator.index(d)
            except TypeError:
                raise TypeError(
                    f"a Shape extent must be an int, not `{type(d).__name__}`"
                ) from None
            if not -(2**63) <= value < 2**63:
                raise OverflowError(
                    f"a Shape extent must be in [{-(2**63)}, {2**63 - 1}], got {value}"
                )
            dims.append(value)
        return tuple.__new__(cls, dims)

    def __repr__(self) -> str:
        return f"ffi.Shape({tuple.__repr__(self)})"


class OpaquePyObject(Object):
    """The FFI object holding a Python object that has no FFI form of its own (type key
    ``ffi.OpaquePyObject``): what such an argument becomes on the C++ side, and what
    ``ffi.convert`` shows for it. Calls hand the Python object itself back, not this wrapper."""

    def pyobject(self) -> Any:
        """The Python object held (the same object, not a copy)."""
        return _core._opaque_pyobject(self)


class _MissingType(Object):
    """The type of :data:`MISSING`: the runtime's "missing" object (``ffi.GetInvalidObject``, what
    a lookup that finds nothing returns inside the runtime), shown as ``<MISSING>``."""

    def __repr__(self) -> str:
        return "<MISSING>"

    def __reduce__(self) -> str:
        return "MISSING"

    def __copy__(self) -> _MissingType:
        return self

    def __deepcopy__(self, memo: Any) -> _MissingType:
        return self


MISSING: Any = _core._wrap_as(_core.get_global_func("ffi.GetInvalidObject")(), _MissingType)
"""No value given: a field without a default, an argument left to the C++ default. As in the
reference, an ``ffi.Object`` (the runtime's missing object), which identity tells apart."""


class ObjectConvertible:
    """Base for Python classes that stand for an FFI object: a subclass defines :meth:`asobject`,
    and its instances pass to FFI calls (and to ``ffi.convert``, containers, fields) as the object
    it returns::

        class Point(ffi.ObjectConvertible):
            def __init__(self, x, y):
                self.x, self.y = x, y

            def asobject(self):
                return ffi.Array([self.x, self.y])

        mod.sum_ints(Point(1, 2))   # receives the Array
    """

    def asobject(self) -> Object:
        """The FFI object this value stands for."""
        raise NotImplementedError(f"{type(self).__name__} does not define asobject()")

    def __tvm_ffi_value__(self) -> Object:
        # The conversion protocol calls converts through (docs/python_api.md).
        return self.asobject()


# ---- copying and pickling objects ---------------------------------------------------------------
# Containers define their own (container.py); these serve every other object, registered class or
# not. ffi._bootstrap attaches them to ffi.Object, so objects of unregistered types have them too.


def _object_copy(self: Object) -> Object:
    """``copy.copy``: the type's ``__ffi_shallow_copy__`` (its C++ copy constructor)."""
    copy_fn = _core._type_attr(self.type_index, "__ffi_shallow_copy__")
    if copy_fn is None:
        raise TypeError(
            f"cannot copy a `{self.type_key}`: its type does not support copy (it registers no "
            "copy constructor)"
        )
    return copy_fn(self)


def _object_deepcopy(self: Object, memo: dict) -> Object:
    """``copy.deepcopy``: the runtime's ffi.DeepCopy (keeps sharing and cycles)."""
    return _core.get_global_func("ffi.DeepCopy")(self)


def _object_ctypes_handle(self: Object) -> ctypes.c_void_p:
    """The address of the FFI object as a ``ctypes.c_void_p`` (value None when there is none), as
    the reference's ``__ctypes_handle__``."""
    return ctypes.c_void_p(self.__chandle__() or None)


def _object_reduce(self: Object) -> tuple[Any, ...]:
    """Pickling: the object's JSON graph (``ffi.ToJSONGraphString``, the reference's format);
    objects the graph cannot hold (functions, modules, ...) raise its error."""
    to_json = _core.get_global_func("ffi.ToJSONGraphString", True)
    if to_json is None:
        raise TypeError(f"cannot pickle a `{self.type_key}`: the runtime has no JSON graphs")
    return (_object_from_json_graph, (str(to_json(self, None)),))


def _object_from_json_graph(text: str) -> Any:
    """Unpickling: the object a JSON graph describes (``ffi.FromJSONGraphString``)."""
    return _core.get_global_func("ffi.FromJSONGraphString")(text)


class DLDeviceType(enum.IntEnum):
    """DLPack device types."""

    kDLCPU = DL_DEVICE_TYPE["kDLCPU"]
    kDLCUDA = DL_DEVICE_TYPE["kDLCUDA"]
    kDLCUDAHost = DL_DEVICE_TYPE["kDLCUDAHost"]
    kDLOpenCL = DL_DEVICE_TYPE["kDLOpenCL"]
    kDLVulkan = DL_DEVICE_TYPE["kDLVulkan"]
    kDLMetal = DL_DEVICE_TYPE["kDLMetal"]
    kDLVPI = DL_DEVICE_TYPE["kDLVPI"]
    kDLROCM = DL_DEVICE_TYPE["kDLROCM"]
    kDLROCMHost = DL_DEVICE_TYPE["kDLROCMHost"]
    kDLExtDev = DL_DEVICE_TYPE["kDLExtDev"]
    kDLCUDAManaged = DL_DEVICE_TYPE["kDLCUDAManaged"]
    kDLOneAPI = DL_DEVICE_TYPE["kDLOneAPI"]
    kDLWebGPU = DL_DEVICE_TYPE["kDLWebGPU"]
    kDLHexagon = DL_DEVICE_TYPE["kDLHexagon"]
    kDLMAIA = DL_DEVICE_TYPE["kDLMAIA"]
    kDLTrn = DL_DEVICE_TYPE["kDLTrn"]


def set_tensor_class(cls: type) -> None:
    """Make tensors arrive as `cls` (``ffi.Tensor`` or a subclass): call results, ``from_dlpack``
    and tensors in containers. The reference's hook (``core._set_class_tensor``), by which a
    framework (TVM's ``Tensor``) puts its own class on every tensor."""
    _core._set_value_class(Tensor, cls)


def set_device_class(cls: type) -> None:
    """Make devices arrive as `cls` (``ffi.Device`` or a subclass): call results and
    :func:`device` (``core._set_class_device``)."""
    _core._set_value_class(Device, cls)


def set_dtype_class(cls: type) -> None:
    """Make dtypes arrive as `cls` (``ffi.dtype`` or a subclass): call results and
    ``Tensor.dtype`` (``core._set_class_dtype``)."""
    _core._set_value_class(_core.dtype, cls)


def device(device_type: str | int | Any, index: int | None = None) -> Device:
    """Make a Device: ``device("cuda:1")``, ``device("cuda", 1)``, ``device(torch.device(...))``.

    Of the class devices arrive as: ``ffi.Device`` unless :func:`set_device_class`
    (``ffi.core._set_class_device``) chose a subclass."""
    return _core._value_class(Device)(device_type, index)


def _from_extern_c(c_symbol: int, *, keep_alive_object: object = None) -> Function:
    """``Function.__from_extern_c__``: an ffi.Function calling the C safe-call function at address
    `c_symbol` (``int f(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result)``,
    as a DSL or JIT compiler emits it; `self` is ignored). The Function keeps `keep_alive_object`
    (the engine that owns the code) alive."""
    return _core._function_from_c_symbol(c_symbol, keep_alive_object, False)


def _from_mlir_packed_safe_call(
    mlir_packed_symbol: int, *, keep_alive_object: object = None
) -> Function:
    """``Function.__from_mlir_packed_safe_call__``: as ``__from_extern_c__``, for a safe call an
    MLIR execution engine compiled with its packed interface (``void f(void** args)``, args
    pointing at self, args, num_args, result and the int32 return code)."""
    return _core._function_from_c_symbol(mlir_packed_symbol, keep_alive_object, True)


def convert_func(pyfunc: Callable[..., Any], tensor_cls: type | None = None) -> Function:
    """`pyfunc` as an ``ffi.Function`` (as ``ffi.convert`` makes it), whose tensor arguments
    arrive as instances of `tensor_cls` when given: a class exposing
    ``__dlpack_c_exchange_api__`` (``torch.Tensor``), converted zero-copy at the C level::

        double = ffi.convert_func(lambda x: x.mul_(2), tensor_cls=torch.Tensor)
        mod.call_with(double, t)   # the callback receives a torch.Tensor

    A tensor the caller borrowed to the call is valid only during it.
    """
    if not callable(pyfunc):
        raise TypeError(f"convert_func needs a callable, not {type(pyfunc).__name__}")
    if tensor_cls is None:
        return _core.convert(pyfunc)
    if not isinstance(tensor_cls, type) or not hasattr(tensor_cls, "__dlpack_c_exchange_api__"):
        raise TypeError(
            f"tensor_cls must be a class exposing __dlpack_c_exchange_api__, not {tensor_cls!r}"
        )

    def with_framework_tensors(*args: Any) -> Any:
        return pyfunc(*(_core._tensor_as(a, tensor_cls) if type(a) is Tensor else a for a in args))

    return _core.convert(with_framework_tensors)
