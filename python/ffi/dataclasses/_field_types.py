"""What a ``py_class`` field's annotation means: its type schema (the JSON the runtime's
``TypeSchema`` reads), the converter every write goes through, and its native layout."""

from __future__ import annotations

import collections.abc
import ctypes
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from .. import _core
from .. import _type_convert as _tc
from .._abi import ALIGNOF, SIZEOF, TypeIndex
from .._core import Device, Object, dtype
from ..container import Array, Dict, List, Map


def _layout(c_type: str, type_index: int) -> tuple[int, int, int]:
    return (SIZEOF[c_type], ALIGNOF[c_type], type_index)


# Native field layouts: (size, alignment, field_static_type_index); other values are an Any.
_INT = _layout("int64_t", TypeIndex.INT)
_BOOL = _layout("bool", TypeIndex.BOOL)
_FLOAT = _layout("double", TypeIndex.FLOAT)
_PTR = _layout("void*", TypeIndex.OPAQUE_PTR)
_ANY = _layout("TVMFFIAny", TypeIndex.ANY)


class _Schema(typing.NamedTuple):
    """What an annotation means for a field: its type schema (JSON-able), the converter every
    write goes through (None: any value as it is) and the native layout."""

    json: dict[str, Any]
    convert: Callable[[Any], Any] | None
    layout: tuple[int, int, int]


def _instance(cls: type, what: str) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if not isinstance(value, cls):
            raise _tc._expected(what, value)
        return value

    return convert


def _schema(annotation: Any, owner: type, key: str) -> _Schema:
    """The schema of a field annotated `annotation` in class `owner` (type key `key`): the value
    protocols of a call apply to each value written, then the conversion ``TypeSchema.convert``
    applies (one set of rules, in ``ffi._type_convert``); TypeError for annotations no FFI value
    can satisfy."""
    out = _schema_of(annotation, owner, key)
    if out.convert is None:
        return out
    return out._replace(convert=_tc._normalizing(out.convert))


def _identity(value: Any) -> Any:
    return value


def _schema_of(annotation: Any, owner: type, key: str) -> _Schema:  # noqa: PLR0911, PLR0912
    if annotation is Any or annotation is object:
        return _Schema({"type": "Any"}, None, _ANY)
    if annotation is None or annotation is type(None):
        return _Schema({"type": "None"}, _tc._to_none, _ANY)
    if annotation is bool:
        return _Schema({"type": "bool"}, _tc._to_bool, _BOOL)
    if annotation is int:
        return _Schema({"type": "int"}, _tc._to_int, _INT)
    if annotation is float:
        return _Schema({"type": "float"}, _tc._to_float, _FLOAT)
    if annotation is str:
        return _Schema({"type": "ffi.String"}, _tc._to_str, _ANY)
    if annotation is dtype:
        return _Schema({"type": "DataType"}, _tc._to_dtype, _ANY)
    if annotation is Device:
        return _Schema({"type": "Device"}, _tc._to_device, _ANY)
    if annotation is ctypes.c_void_p:  # an opaque pointer, stored as void* (None: null)
        return _Schema({"type": "void*"}, _tc._to_opaque_ptr, _PTR)
    if annotation is bytes:
        return _Schema({"type": "ffi.Bytes"}, _tc._to_bytes, _ANY)
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
        return _Schema(
            schema, _tc._union([a.convert or _identity for a in none + rest], what), _ANY
        )
    if annotation in (list, List) or origin in (list, List):
        item = _schema(args[0], owner, key) if args else None
        return _container("ffi.List", List, [item], "List", _tc._sequence)
    if annotation in (tuple, Array, collections.abc.Sequence) or origin in (
        tuple,
        collections.abc.Sequence,
        Array,
    ):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise TypeError("only tuple[T, ...] (an Array) can be a field type, not fixed tuples")
        item = _schema(args[0], owner, key) if args else None
        return _container("ffi.Array", Array, [item], "Array", _tc._sequence)
    if annotation in (dict, Dict) or origin in (dict, Dict):
        parts = [_schema(a, owner, key) for a in args] if args else [None, None]
        return _container("ffi.Dict", Dict, parts, "Dict", _tc._mapping)
    if annotation in (Map, collections.abc.Mapping) or origin in (collections.abc.Mapping, Map):
        parts = [_schema(a, owner, key) for a in args] if args else [None, None]
        return _container("ffi.Map", Map, parts, "Map", _tc._mapping)
    if annotation is collections.abc.Callable or origin is collections.abc.Callable:
        return _Schema({"type": "ffi.Function"}, _tc._to_callable, _ANY)
    if isinstance(annotation, type) and issubclass(annotation, Object):
        # An IntEnum/StrEnum field also takes a member's index.
        convert = _tc.enum_member_converter(annotation) or _instance(
            annotation, annotation.__name__
        )
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
