"""The reference's ``tvm_ffi.core`` names, for code that imports them from there: the core
classes (:class:`Object`, :class:`Function`, :class:`Tensor`, :class:`Device`, ``DataType``), the
type descriptions (:class:`TypeInfo`, :class:`TypeField`, :class:`TypeMethod`,
:class:`TypeSchema`, :data:`MISSING`), :class:`CAny` (what ``TypeSchema.convert`` returns) and
``FFIProperty``, the descriptor a reflected field is on its class (``fget``/``fset`` as a
``property`` has them). Each is the same object as under its ``ffi`` name: ``CObject`` is
:class:`Object`, ``String`` and ``Bytes`` are ``str`` and ``bytes`` (as FFI strings arrive in
Python), ``KWARGS`` is the runtime's keyword-argument marker (``ffi.registry.KWARGS``). The
reference's private helpers are here too: ``_CLASS_TENSOR``, ``_CLASS_DEVICE`` and
``_CLASS_DTYPE`` (the classes values arrive as, always current) with ``_set_class_tensor`` and
its siblings, the type lookups (``_lookup_type_attr``, ``_type_cls_to_type_info``, ...) and
``_register_py_class``, the first step of making a ``py_class`` by hand.

Only re-exports (the private names under the reference's names: F401 is silenced for them):
nothing in the package imports this module, and each name is defined where it belongs
(``ffi._core``, ``ffi._type_info``, ``ffi.registry``, ...)."""

from builtins import bytes as Bytes
from builtins import str as String
from typing import Any

from . import _core
from ._core import CAny, Device, Function, Object, ObjectRValueRef, Tensor, from_dlpack
from ._core import Object as CObject
from ._core import _convert_to_opaque_object as _convert_to_opaque_object
from ._core import _Field as FFIProperty
from ._core import _to_py_class_value as _to_py_class_value
from ._core import dtype as DataType
from ._type_info import TypeField, TypeInfo, TypeMethod
from ._type_info import lookup_type_attr as _lookup_type_attr  # noqa: F401
from ._type_info import type_index_of_key as _object_type_key_to_index  # noqa: F401
from ._type_info import type_info_of_class as _type_cls_to_type_info  # noqa: F401
from ._type_info import (  # noqa: F401
    type_info_of_key as _lookup_or_register_type_info_from_type_key,
)
from ._type_schema import TypeSchema
from .api import MISSING, DLDeviceType, ObjectConvertible, OpaquePyObject
from .api import set_device_class as _set_class_device  # noqa: F401
from .api import set_dtype_class as _set_class_dtype  # noqa: F401
from .api import set_tensor_class as _set_class_tensor  # noqa: F401
from .error import Error
from .registry import KWARGS

# Which class values of each kind arrive as (``_CLASS_TENSOR``, ...): read from the extension on
# each access, so always current.
_VALUE_BASES = {"_CLASS_TENSOR": Tensor, "_CLASS_DEVICE": Device, "_CLASS_DTYPE": DataType}


def __getattr__(name: str) -> Any:
    base = _VALUE_BASES.get(name)
    if base is not None:
        return _core._value_class(base)
    if name == "_register_py_class":
        # Loaded on first use: ffi.dataclasses (several milliseconds) stays off `import ffi.core`.
        from .dataclasses._py_class_steps import register_py_class

        return register_py_class
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MISSING",
    "Bytes",
    "CAny",
    "CObject",
    "KWARGS",
    "DLDeviceType",
    "DataType",
    "Device",
    "Error",
    "FFIProperty",
    "Function",
    "Object",
    "ObjectConvertible",
    "ObjectRValueRef",
    "OpaquePyObject",
    "String",
    "Tensor",
    "TypeField",
    "TypeInfo",
    "TypeMethod",
    "TypeSchema",
    "from_dlpack",
]
