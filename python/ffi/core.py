"""The reference's ``tvm_ffi.core`` names, for code that imports them from there: the core
classes (:class:`Object`, :class:`Function`, :class:`Tensor`, :class:`Device`, ``DataType``) and
the type descriptions (:class:`TypeInfo`, :class:`TypeField`, :class:`TypeMethod`,
:class:`TypeSchema`, :data:`MISSING`). Each is the same object as under its ``ffi`` name."""

from ._core import Device, Function, Object, ObjectRValueRef, Tensor, from_dlpack
from ._core import dtype as DataType
from ._type_info import MISSING, TypeField, TypeInfo, TypeMethod, TypeSchema
from .api import DLDeviceType, ObjectConvertible
from .error import Error

String = str
"""FFI strings arrive in Python as ``str``."""
Bytes = bytes
"""FFI byte strings arrive in Python as ``bytes``."""

__all__ = [
    "MISSING",
    "Bytes",
    "DLDeviceType",
    "DataType",
    "Device",
    "Error",
    "Function",
    "Object",
    "ObjectConvertible",
    "ObjectRValueRef",
    "String",
    "Tensor",
    "TypeField",
    "TypeInfo",
    "TypeMethod",
    "TypeSchema",
    "from_dlpack",
]
