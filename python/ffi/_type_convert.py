"""What a value must be to pass as a :class:`TypeSchema`'s type, and what it becomes: the
converters behind ``TypeSchema.check_value``/``convert``.

The rules are C++'s (``TryCastFromAnyView``): an ``int`` accepts a ``bool``, a ``float`` an
``int`` or a ``bool``, a ``bool`` an ``int``; containers convert element by element, and a
container that needs no change is kept (so the result shares it). Before a value is matched it
is normalized as a call argument is: ``__tvm_ffi_object__`` first, then ``__tvm_ffi_value__``
(followed, with cycles refused), then ``ObjectConvertible.asobject()``. A mismatch is a
TypeError saying where in a nested value it is (``element [1]: expected int, got str``).

Converters read a schema's ``origin``, ``args`` and ``origin_type_index`` (the schema model,
``ffi._type_schema``, builds on this module), and the classes of the values they make."""

from __future__ import annotations

import ctypes
import functools
import numbers
import os
from collections.abc import Callable
from typing import Any

from . import _core
from ._abi import TypeIndex
from ._core import Device, Function, Object, Tensor, dtype
from .api import ObjectConvertible, Shape
from .container import Array, Dict, List, Map
from .error import Error

Converter = Callable[[Any], Any]

_OBJECT_INDEX = TypeIndex.OBJECT  # object type indices start here
# How many __tvm_ffi_value__ hops a value may take before it counts as a cycle.
_MAX_VALUE_HOPS = 64
# Values no protocol applies to: matched as they are.
_PLAIN = frozenset({int, float, bool, str, bytes, type(None), list, tuple, dict})


def _name(value: Any) -> str:
    """How mismatch messages name a value's type: the type key of an FFI object."""
    if value is None:
        return "None"
    if isinstance(value, Object):
        return value.type_key
    return type(value).__qualname__


def _expected(what: str, value: Any, why: str = "") -> TypeError:
    return TypeError(f"expected {what}, got {_name(value)}{': ' + why if why else ''}")


def _at(where: str, convert: Converter, value: Any) -> Any:
    """``convert(value)``, a TypeError saying `where` the value sits (``element [1]: ...``)."""
    try:
        return convert(value)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None


# ---- normalization -------------------------------------------------------------------------


def _normalize(value: Any) -> Any:
    """`value` as a call would pass it: what its ``__tvm_ffi_object__`` gives, the end of its
    ``__tvm_ffi_value__`` chain (a value whose hook fails or returns the value itself stays as it
    is), or what ``asobject()`` gives for an ObjectConvertible."""
    seen: list[Any] = []  # kept alive, so that the ids compared stay unique
    while True:
        cls = type(value)
        if cls in _PLAIN or isinstance(value, Object):
            return value
        if hasattr(cls, "__tvm_ffi_object__"):
            try:
                return value.__tvm_ffi_object__()
            except Exception as err:
                raise TypeError(f"__tvm_ffi_object__() failed: {err}") from err
        hook = getattr(cls, "__tvm_ffi_value__", None)
        if hook is not None and hook is not ObjectConvertible.__tvm_ffi_value__:
            try:
                nxt = value.__tvm_ffi_value__()
            except Exception:
                return value  # matched as it is: the schema's own error names it
            if nxt is value:
                return value
            seen.append(value)
            if any(nxt is s for s in seen) or len(seen) > _MAX_VALUE_HOPS:
                raise TypeError(
                    f"__tvm_ffi_value__ cycle: {_name(seen[0])} does not reach a value within "
                    f"{_MAX_VALUE_HOPS} steps"
                )
            value = nxt
            continue
        if isinstance(value, ObjectConvertible):
            try:
                return value.asobject()
            except Exception as err:
                raise TypeError(f"asobject() failed: {err}") from err
        return value


def _normalizing(match: Converter) -> Converter:
    def convert(value: Any) -> Any:
        return match(value if type(value) in _PLAIN else _normalize(value))

    return convert


# ---- scalars -------------------------------------------------------------------------------


def _int64(value: int) -> int:
    if not -(2**63) <= value < 2**63:
        raise TypeError(f"expected int, got {value} (outside the int64 range)")
    return value


def _call_hook(value: Any, what: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as err:
        raise _expected(what, value, str(err)) from err


def _to_int(value: Any) -> Any:
    if type(value) is int:
        return _int64(value)
    if isinstance(value, bool):
        return int(value)
    if hasattr(type(value), "__tvm_ffi_int__"):
        return _int64(_call_hook(value, "int", lambda: int(value.__tvm_ffi_int__())))
    if isinstance(value, numbers.Integral):
        return _int64(_call_hook(value, "int", lambda: int(value)))
    raise _expected("int", value)


def _to_float(value: Any) -> Any:
    if isinstance(value, float):
        return value
    if isinstance(value, (bool, int)):
        return float(value)
    if hasattr(type(value), "__tvm_ffi_float__"):
        return _call_hook(value, "float", lambda: float(value.__tvm_ffi_float__()))
    if isinstance(value, (numbers.Integral, numbers.Real)):
        return _call_hook(value, "float", lambda: float(value))
    raise _expected("float", value)


def _to_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral) or type(value).__name__ == "bool_":  # NumPy's bool_
        return _call_hook(value, "bool", lambda: bool(value))
    raise _expected("bool", value)


def _to_none(value: Any) -> Any:
    if value is not None:
        raise _expected("None", value)
    return None


def _to_str(value: Any) -> Any:
    if not isinstance(value, str):
        raise _expected("str", value)
    return value


def _to_bytes(value: Any) -> Any:
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray):
        return bytes(value)
    raise _expected("bytes", value)


def _to_device(value: Any) -> Any:
    if isinstance(value, Device):
        return value
    if isinstance(value, str) or type(value).__module__.startswith("torch"):  # torch.device
        try:
            return Device(value)
        except (TypeError, ValueError) as err:
            raise _expected("Device", value, f"not a device name ({err})") from None
    cls = type(value)
    if hasattr(cls, "__dlpack_device__") and not hasattr(cls, "__dlpack__"):  # not a tensor
        dev = _call_hook(value, "Device", value.__dlpack_device__)
        return _call_hook(value, "Device", lambda: Device(int(dev[0]), int(dev[1])))
    raise _expected("Device", value)


def _to_dtype(value: Any) -> Any:
    if isinstance(value, dtype):
        return value
    if hasattr(type(value), "__dlpack_data_type__"):
        code = _call_hook(value, "dtype", value.__dlpack_data_type__)
        return _call_hook(value, "dtype", lambda: dtype.from_dlpack_data_type(tuple(code)))
    module = type(value).__module__
    if isinstance(value, str) or module.startswith(("numpy", "torch")):
        try:
            return dtype(value)
        except (TypeError, ValueError) as err:
            raise _expected("dtype", value, f"not a dtype ({err})") from None
    raise _expected("dtype", value)


def _to_opaque_ptr(value: Any) -> Any:
    if value is None:
        return ctypes.c_void_p(None)
    if isinstance(value, ctypes.c_void_p):
        return value
    cls = type(value)
    if hasattr(cls, "__tvm_ffi_opaque_ptr__"):
        return ctypes.c_void_p(_call_hook(value, "ctypes.c_void_p", value.__tvm_ffi_opaque_ptr__))
    if hasattr(cls, "__cuda_stream__"):
        stream = _call_hook(value, "ctypes.c_void_p", value.__cuda_stream__)
        return ctypes.c_void_p(stream[1])
    raise _expected("ctypes.c_void_p", value)


def _to_callable(value: Any) -> Any:
    if isinstance(value, Function) or (callable(value) and not isinstance(value, Object)):
        return value
    raise _expected("Callable", value)


def _to_tensor(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value
    cls = type(value)
    exchange = hasattr(cls, "__dlpack_c_exchange_api__") and not os.environ.get(
        "TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API"
    )
    if exchange or hasattr(cls, "__dlpack__"):
        try:
            return _core.from_dlpack(value)
        except Exception as err:
            raise _expected("Tensor", value, str(err)) from None
    raise _expected("Tensor", value)


# Values the FFI stores by value, never as an object.
_NOT_OBJECTS = (type(None), bool, int, float, str, bytes, bytearray, Device, dtype)


def _to_object(value: Any) -> Any:
    # What a call converts to an object: FFI objects, sequences and mappings, callables,
    # exceptions, and any other Python value (held as an opaque object).
    if isinstance(value, _NOT_OBJECTS) or isinstance(value, numbers.Number):
        raise _expected("Object", value)
    return value


def _to_error(value: Any) -> Any:
    if isinstance(value, (Error, BaseException)):
        return value
    raise _expected("ffi.Error", value)


def _to_any(value: Any) -> Any:
    if hasattr(type(value), "__tvm_ffi_value__") and not isinstance(value, ObjectConvertible):
        # its chain stalled on a value of its own
        raise TypeError(
            f"failed to convert Any from {_name(value)}: its __tvm_ffi_value__() gives no "
            "convertible value"
        )
    return value


# ---- object types --------------------------------------------------------------------------


@functools.cache
def _ancestors(type_index: int) -> frozenset[int]:
    return frozenset(_core._type_info(type_index)[1]) | {type_index}


def _is_instance_of(value: Any, type_index: int) -> bool:
    return isinstance(value, Object) and type_index in _ancestors(value.type_index)


def enum_member_converter(cls: type) -> Callable[[Any], Any] | None:
    """For a value that must be a member of `cls`, when it is an ``IntEnum``/``StrEnum`` class
    (which ``ffi.dataclasses.enum`` marks with ``__ffi_enum_payload__``), else None: members pass,
    an index of the enum's payload type becomes its member, anything else is a TypeError."""
    payload = getattr(cls, "__ffi_enum_payload__", None)
    if payload is None:
        return None

    def convert(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, payload):
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise TypeError(
                f"{value!r} is not a valid {cls.__name__}: expected one of its entries "
                "(outside the int64 range)"
            )
        try:
            return cls.get(value)  # type: ignore[attr-defined]
        except (KeyError, OverflowError):
            entries = ", ".join(repr(m.value) for m in cls)  # type: ignore[attr-defined]
            raise TypeError(
                f"{value!r} is not a valid {cls.__name__}: expected one of its entries ({entries})"
            ) from None

    return convert


def _to_object_type(key: str, type_index: int) -> Converter:
    cls = _core._class_for_type_index(type_index)
    enum = enum_member_converter(cls) if _core._class_type_index(cls) == type_index else None

    def convert(value: Any) -> Any:
        if _is_instance_of(value, type_index):
            return value
        if enum is not None:
            try:
                return enum(value)
            except TypeError as err:
                raise _expected(key, value, str(err)) from None
        if key == "ffi.Shape" and isinstance(value, (list, tuple, Array, List)):
            try:
                return Shape(value)
            except (TypeError, ValueError) as err:
                raise _expected(key, value, f"it does not convert to ffi.Shape ({err})") from None
        raise _expected(key, value)

    return convert


# ---- containers ----------------------------------------------------------------------------


def _sequence_input(value: Any, what: str) -> list[Any]:
    if not isinstance(value, (list, tuple, Array, List)):
        raise _expected(what, value)
    return list(value)


def _sequence(container: type, item: Converter | None, what: str) -> Converter:
    """Sequences become `container`; one that already is, with every item as it was, is kept."""

    def convert(value: Any) -> Any:
        old = _sequence_input(value, what)
        if item is None:
            return value if isinstance(value, container) else container(old)
        new = [_at(f"element [{i}]", item, v) for i, v in enumerate(old)]
        if isinstance(value, container) and all(a is b for a, b in zip(new, old)):
            return value
        return container(new)

    return convert


def _fixed_tuple(items: tuple[Converter, ...] | None) -> Converter:
    def convert(value: Any) -> Any:
        old = _sequence_input(value, "tuple")
        if items is None:  # a bare tuple: any elements
            return value if isinstance(value, Array) else Array(old)
        if len(old) != len(items):
            raise TypeError(
                f"expected tuple of length {len(items)}, got {_name(value)} of length {len(old)}"
            )
        new = [_at(f"element [{i}]", c, v) for i, (c, v) in enumerate(zip(items, old))]
        if isinstance(value, Array) and all(a is b for a, b in zip(new, old)):
            return value
        return Array(new)

    return convert


def _mapping(container: type, key: Converter | None, val: Converter | None, what: str) -> Converter:
    """Mappings become `container`; one that already is, unchanged, is kept."""

    def convert(value: Any) -> Any:
        if not isinstance(value, (dict, Map, Dict)):
            raise _expected(what, value)
        old = list(value.items())
        new = [
            (
                _at(f"key {k!r}", key, k) if key else k,
                _at(f"value for key {k!r}", val, v) if val else v,
            )
            for k, v in old
        ]
        if isinstance(value, container) and all(
            a is c and b is d for (a, b), (c, d) in zip(new, old)
        ):
            return value
        return container(dict(new))

    return convert


def _union(alternatives: list[Converter], what: str) -> Converter:
    """The value as the first alternative that converts it; one an alternative takes unchanged is
    kept as it is (True stays a bool in ``Union[int, bool]``)."""

    def convert(value: Any) -> Any:
        first: list[Any] = []
        for alt in alternatives:
            try:
                out = alt(value)
            except TypeError:
                continue
            if out is value:
                return out
            if not first:
                first.append(out)
        if not first:
            raise _expected(what, value)
        return first[0]

    return convert


def _optional(inner: Converter) -> Converter:
    def convert(value: Any) -> Any:
        return None if value is None else inner(value)

    return convert


# ---- building ------------------------------------------------------------------------------

_SCALARS: dict[str, Converter] = {
    "Any": _to_any,
    "None": _to_none,
    "int": _to_int,
    "float": _to_float,
    "bool": _to_bool,
    "str": _to_str,
    "bytes": _to_bytes,
    "Device": _to_device,
    "dtype": _to_dtype,
    "ctypes.c_void_p": _to_opaque_ptr,
    "Callable": _to_callable,
    "Tensor": _to_tensor,
    "Object": _to_object,
    "ffi.Error": _to_error,
}


def converter(schema: Any) -> Converter:
    """The converter of the TypeSchema `schema` (built once and kept on it): the value to store,
    or a TypeError. A schema naming no type known here is a TypeError on first use."""
    cached = schema.__dict__.get("_converter_fn")
    if cached is None:
        cached = _normalizing(_build(schema))
        object.__setattr__(schema, "_converter_fn", cached)
    return cached


def _build(schema: Any) -> Converter:  # noqa: PLR0911
    origin, args = schema.origin, schema.args
    if origin in _SCALARS:
        return _SCALARS[origin]
    if origin in ("Array", "List", "list"):
        item = None if args[0].origin == "Any" else converter(args[0])
        what = "Array" if origin == "Array" else "List"
        return _sequence(Array if origin == "Array" else List, item, what)
    if origin in ("Map", "Dict", "dict"):
        k, v = (None if a.origin == "Any" else converter(a) for a in args)
        what = "Map" if origin == "Map" else "Dict"
        return _mapping(Map if origin == "Map" else Dict, k, v, what)
    if origin == "tuple":
        return _fixed_tuple(None if args is None else tuple(converter(a) for a in args))
    if origin == "Optional":
        return _optional(converter(args[0]))
    if origin == "Union":
        return _union([converter(a) for a in args], schema.repr())
    index = schema.origin_type_index
    if index >= _OBJECT_INDEX:  # a registered object type
        return _to_object_type(origin, index)
    raise TypeError(f"unknown TypeSchema origin {origin!r}: no type of that name is registered")


def check(schema: Any, value: Any, action: str) -> Any:
    """The TypeSchema `schema`'s conversion of `value`; a TypeError ``{action} failed for
    {schema}: ...``."""
    try:
        return converter(schema)(value)
    except RecursionError:
        raise TypeError(
            f"{action} failed for {schema.repr()}: nested too deeply (a cycle?)"
        ) from None
    except TypeError as err:
        raise TypeError(f"{action} failed for {schema.repr()}: {err}") from None


# ---- subtypes ----------------------------------------------------------------------------


def is_subtype_of(schema: Any, target_cls: type) -> bool:
    """Whether the TypeSchema `schema` names an object type that is `target_cls`'s type or derives
    from it."""
    if not (isinstance(target_cls, type) and issubclass(target_cls, Object)):
        return False
    index = schema.origin_type_index
    target = _OBJECT_INDEX if target_cls is Object else _core._class_type_index(target_cls)
    if index < _OBJECT_INDEX or target < 0:
        return False
    return target in _ancestors(index)
