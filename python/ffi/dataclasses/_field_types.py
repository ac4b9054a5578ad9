"""What a ``py_class`` field's annotation means: its type schema (the JSON the runtime's
``TypeSchema`` reads), the converter every write goes through, and its native layout."""

from __future__ import annotations

import collections.abc
import ctypes
import operator
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from .. import _core
from .._core import Device, Object, dtype
from .._type_info import MISSING
from ..container import Array, Dict, List, Map
from .field import _enum_member_converter

# Native field layouts: (size, alignment, field_static_type_index); type indices of <ffi/c_api.h>.
_INT, _BOOL, _FLOAT, _PTR, _ANY = (8, 8, 1), (1, 1, 2), (8, 8, 3), (8, 8, 4), (16, 8, -1)


class _Schema(typing.NamedTuple):
    """What an annotation means for a field: its type schema (JSON-able), the converter every
    write goes through (None: any value as it is) and the native layout."""

    json: dict[str, Any]
    convert: Callable[[Any], Any] | None
    layout: tuple[int, int, int]


def _expected(what: str, value: Any) -> TypeError:
    got = "None" if value is None else type(value).__name__
    return TypeError(f"expected {what}, got {got}")


def _at(where: str, convert: Callable[[Any], Any], value: Any) -> Any:
    """``convert(value)``, a TypeError saying `where` the value sits (``element [1]: ...``)."""
    try:
        return convert(value)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None


def _scalar(check: Callable[[Any], Any], what: str) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        try:
            return check(value)
        except (TypeError, ValueError):
            raise _expected(what, value) from None

    return convert


def _to_int(value: Any) -> int:
    return value if type(value) is int else operator.index(value)


def _to_float(value: Any) -> float:
    if type(value) is float:
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__float__"):
        raise TypeError  # ints and NumPy scalars have __float__; strings are not numbers here
    return float(value)


def _to_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    if type(value).__name__ == "bool_":  # NumPy's
        return bool(value)
    raise TypeError


def _to_callable(value: Any) -> Any:
    if not callable(value):
        raise TypeError
    return value


def _to_dtype(value: Any) -> Any:
    # An ffi.dtype, or what names one: "float32", a numpy.dtype, a torch.dtype.
    return value if isinstance(value, dtype) else dtype(value)


def _to_device(value: Any) -> Any:
    # An ffi.Device, or what names one: "cuda:1", a torch.device. Not an int: Device(2) would read
    # it as a device type code.
    if isinstance(value, int):
        raise TypeError
    return value if isinstance(value, Device) else Device(value)


def _instance(cls: type | tuple[type, ...], what: str) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if not isinstance(value, cls):
            raise _expected(what, value)
        return value

    return convert


def _sequence(container: type, item: Callable[[Any], Any] | None, what: str) -> Callable:
    """Sequences become `container`; one that already is, with every item as it was, is kept (so
    the field shares it)."""

    def convert(value: Any) -> Any:
        if not isinstance(value, (list, tuple, Array, List)):
            raise _expected(what, value)
        if item is None:
            return value if isinstance(value, container) else container(value)
        old = list(value)
        new = [_at(f"element [{i}]", item, v) for i, v in enumerate(old)]
        if isinstance(value, container) and all(a is b for a, b in zip(new, old)):
            return value
        return container(new)

    return convert


def _mapping(container: type, key: Callable | None, val: Callable | None, what: str) -> Callable:
    """Mappings become `container`; one that already is, unchanged, is kept."""

    def convert(value: Any) -> Any:
        if not isinstance(value, (dict, Map, Dict)):
            raise _expected(what, value)
        old = list(value.items())
        new = [
            (_at(f"key {k!r}", key, k) if key else k, _at(f"value at {k!r}", val, v) if val else v)
            for k, v in old
        ]
        same = all(a is c and b is d for (a, b), (c, d) in zip(new, old))
        if isinstance(value, container) and same:
            return value
        return container(dict(new))

    return convert


def _union(alternatives: list[_Schema], what: str) -> Callable[[Any], Any]:
    """The value as it is when an alternative takes it unchanged (True stays a bool in
    ``Union[int, bool]``), else as the first alternative that converts it."""

    def convert(value: Any) -> Any:
        first: Any = MISSING  # what the first alternative that converts the value made of it
        for alt in alternatives:
            if alt.convert is None:
                return value
            try:
                out = alt.convert(value)
            except TypeError:
                continue
            if out is value:
                return out
            if first is MISSING:
                first = out
        if first is MISSING:
            raise _expected(what, value)
        return first

    return convert


def _schema(annotation: Any, owner: type, key: str) -> _Schema:  # noqa: PLR0911, PLR0912
    """The schema of a field annotated `annotation` in class `owner` (type key `key`); TypeError
    for annotations no FFI value can satisfy."""
    if annotation is Any or annotation is object:
        return _Schema({"type": "Any"}, None, _ANY)
    if annotation is None or annotation is type(None):
        return _Schema({"type": "None"}, _instance(type(None), "None"), _ANY)
    if annotation is bool:
        return _Schema({"type": "bool"}, _scalar(_to_bool, "bool"), _BOOL)
    if annotation is int:
        return _Schema({"type": "int"}, _scalar(_to_int, "int"), _INT)
    if annotation is float:
        return _Schema({"type": "float"}, _scalar(_to_float, "float"), _FLOAT)
    if annotation is str:
        return _Schema({"type": "ffi.String"}, _instance(str, "str"), _ANY)
    if annotation is dtype:
        return _Schema({"type": "DataType"}, _scalar(_to_dtype, "dtype"), _ANY)
    if annotation is Device:
        return _Schema({"type": "Device"}, _scalar(_to_device, "Device"), _ANY)
    if annotation is ctypes.c_void_p:  # an opaque pointer, stored as void* (None: null)
        return _Schema(
            {"type": "void*"}, _instance((ctypes.c_void_p, type(None)), "ctypes.c_void_p"), _PTR
        )
    if annotation is bytes:
        return _Schema({"type": "ffi.Bytes"}, _instance((bytes, bytearray), "bytes"), _ANY)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union or (
        sys.version_info >= (3, 10) and isinstance(annotation, types.UnionType)
    ):
        alts = [_schema(a, owner, key) for a in args]
        none = [a for a in alts if a.json["type"] == "None"]
        rest = [a for a in alts if a.json["type"] != "None"]
        what = " | ".join(_describe(a) for a in args)
        if none and len(rest) == 1:
            schema = {"type": "Optional", "args": [rest[0].json]}
        else:
            schema = {"type": "Variant", "args": [a.json for a in alts]}
        return _Schema(schema, _union(none + rest, what), _ANY)
    if annotation in (list, List) or origin in (list, List):
        item = _schema(args[0], owner, key) if args else None
        return _container("ffi.List", List, [item], "list", _sequence)
    if annotation in (tuple, Array, collections.abc.Sequence) or origin in (
        tuple,
        collections.abc.Sequence,
        Array,
    ):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise TypeError("only tuple[T, ...] (an Array) can be a field type, not fixed tuples")
        item = _schema(args[0], owner, key) if args else None
        return _container("ffi.Array", Array, [item], "a sequence", _sequence)
    if annotation in (dict, Dict) or origin in (dict, Dict):
        parts = [_schema(a, owner, key) for a in args] if args else [None, None]
        return _container("ffi.Dict", Dict, parts, "dict", _mapping)
    if annotation in (Map, collections.abc.Mapping) or origin in (collections.abc.Mapping, Map):
        parts = [_schema(a, owner, key) for a in args] if args else [None, None]
        return _container("ffi.Map", Map, parts, "a mapping", _mapping)
    if annotation is collections.abc.Callable or origin is collections.abc.Callable:
        return _Schema({"type": "ffi.Function"}, _scalar(_to_callable, "a callable"), _ANY)
    if isinstance(annotation, type) and issubclass(annotation, Object):
        # An IntEnum/StrEnum field also takes a member's index.
        convert = _enum_member_converter(annotation) or _instance(annotation, annotation.__name__)
        if annotation is not owner:
            # A py_class still waiting for its type (two classes naming each other) has its key.
            key = annotation.__dict__.get("__ffi_waiting_type_key__")
            if key is None:
                index = _core._class_type_index(annotation)
                key = _core._type_key(index) if index >= 0 else "ffi.Object"
        return _Schema({"type": key}, convert, _ANY)
    raise TypeError(f"no FFI value has type {_describe(annotation)}")


def _describe(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else repr(annotation)


def _container(
    key: str, cls: type, parts: list[_Schema | None], what: str, make: Callable
) -> _Schema:
    converters = [p.convert if p is not None else None for p in parts]
    schema: dict[str, Any] = {"type": key}
    if any(p is not None for p in parts):
        schema["args"] = [p.json if p is not None else {"type": "Any"} for p in parts]
    return _Schema(schema, make(cls, *converters, what), _ANY)
