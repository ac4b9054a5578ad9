"""The reference's ``tvm_ffi.core`` names, for code that imports them from there: the core
classes (:class:`Object`, :class:`Function`, :class:`Tensor`, :class:`Device`, ``DataType``), the
type descriptions (:class:`TypeInfo`, :class:`TypeField`, :class:`TypeMethod`,
:class:`TypeSchema`, :data:`MISSING`), :class:`CAny` (what ``TypeSchema.convert`` returns) and
``FFIProperty``, the descriptor a reflected field is on its class (``fget``/``fset`` as a
``property`` has them). Each is the same object as under its ``ffi`` name."""

from typing import Any

from . import _core
from ._core import CAny, Device, Function, Object, ObjectRValueRef, Tensor, from_dlpack
from ._core import _Field as FFIProperty
from ._core import _to_py_class_value as _to_py_class_value
from ._core import dtype as DataType
from ._type_info import (
    _BUILTIN_CLASSES,
    MISSING,
    TypeField,
    TypeInfo,
    TypeMethod,
    TypeSchema,
    type_info,
)
from .api import DLDeviceType, ObjectConvertible, OpaquePyObject
from .error import Error

_get_kwargs_object = _core.get_global_func("ffi.GetKwargsObject", True)
KWARGS: Object | None = _get_kwargs_object() if _get_kwargs_object is not None else None
"""The runtime's keyword-argument marker: ``f(KWARGS, "name", value, ...)`` passes ``name=value``
to a function that reads keywords (a reflected ``__ffi_init__``). None on a runtime without it."""


CObject = Object
"""The reference's name for the base of every FFI object class (here the same class as
:class:`Object`)."""


def _object_type_key_to_index(type_key: str) -> int | None:
    """The type index registered for `type_key`, or None."""
    try:
        return _core.type_key_to_index(type_key)
    except KeyError:
        return None


def _lookup_type_attr(type_index: int, attr_key: str, ancestor: bool = False) -> Any:
    """The type attribute `attr_key` of the type at `type_index` (a reflected ``__ffi_init__``,
    ``__ffi_repr__``, ...), or None. With `ancestor`, the nearest ancestor's when the type has
    none of its own."""
    value = _core._type_attr(type_index, attr_key)
    if value is None and ancestor:
        for base in reversed(_core._type_info(type_index)[1]):
            value = _core._type_attr(base, attr_key)
            if value is not None:
                break
    return value


def _type_cls_to_type_info(type_cls: type) -> TypeInfo | None:
    """The TypeInfo of the type `type_cls` stands for (``str`` for ``ffi.String``, ``ffi.dtype``
    for ``DataType``, ...), or None for a class bound to none."""
    for index, cls in _BUILTIN_CLASSES.items():
        if cls is type_cls:
            return type_info(index)
    if not isinstance(type_cls, type):
        return None
    index = _core._class_type_index(type_cls)
    return None if index < 0 else type_info(index)


def _lookup_or_register_type_info_from_type_key(type_key: str) -> TypeInfo:
    """The TypeInfo of the registered type `type_key` (a KeyError when none is)."""
    return type_info(_core.type_key_to_index(type_key))


def _register_py_class(parent_info: TypeInfo, type_key: str, cls: type) -> TypeInfo:
    """A new type `type_key` deriving from `parent_info`'s, for `cls`: the first step of making a
    ``py_class`` by hand (then ``info._register_fields``, ``registry._add_class_attrs``,
    ``_dunder._install_dataclass_dunders``). A registered key is a ValueError."""
    from .dataclasses._py_class_steps import register_py_class

    return register_py_class(parent_info, type_key, cls)


def _set_class_tensor(cls: type) -> None:
    """Make tensors arrive as `cls` (``ffi.Tensor`` or a subclass): call results, ``from_dlpack``
    and tensors in containers. The reference's hook, by which a framework (TVM's ``Tensor``)
    puts its own class on every tensor; ``_CLASS_TENSOR`` is the class now."""
    _core._set_value_class(Tensor, cls)


def _set_class_device(cls: type) -> None:
    """Make devices arrive as `cls` (``ffi.Device`` or a subclass): call results and
    ``ffi.device()``; ``_CLASS_DEVICE`` is the class now."""
    _core._set_value_class(Device, cls)


def _set_class_dtype(cls: type) -> None:
    """Make dtypes arrive as `cls` (``ffi.dtype`` or a subclass): call results and
    ``Tensor.dtype``; ``_CLASS_DTYPE`` is the class now."""
    _core._set_value_class(DataType, cls)


_VALUE_BASES = {"_CLASS_TENSOR": Tensor, "_CLASS_DEVICE": Device, "_CLASS_DTYPE": DataType}


def __getattr__(name: str) -> Any:
    # _CLASS_TENSOR, _CLASS_DEVICE, _CLASS_DTYPE: read from the extension, so always current.
    base = _VALUE_BASES.get(name)
    if base is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _core._value_class(base)


def _convert_to_opaque_object(pyobject: Any) -> OpaquePyObject:
    """An :class:`OpaquePyObject` holding `pyobject`, whatever it is (even an int or a str, which
    would otherwise convert to FFI values)."""
    return _core._convert_to_opaque_object(pyobject)


String = str
"""FFI strings arrive in Python as ``str``."""
Bytes = bytes
"""FFI byte strings arrive in Python as ``bytes``."""

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
