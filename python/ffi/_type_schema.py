"""The package's one model of a type: :class:`TypeSchema`.

Types reach Python spelled several ways: the JSON type schemas of reflection and export metadata
(``{"type": "ffi.Array", "args": [{"type": "int"}]}``, both header sets), the TypeStr names of
this project's older export records (``Array<int>``, ``std::function<int(float)>``) and Python
annotations (``list[int]``). Each reads into a :class:`TypeSchema` (``from_json_obj``,
``from_typestr``, ``from_annotation``), whose origin folds the spellings of one type into one
(``ffi.String``, ``std::string`` and ``String`` are ``"str"``). A schema shows itself as a Python
annotation (:meth:`TypeSchema.repr`), as JSON (:meth:`TypeSchema.to_json`) and as a C++-style
name for signatures (:meth:`TypeSchema.typestr`); stubs render it through ``ffi._stub_types``.
:func:`parse_metadata` and :func:`function_schema` read a function's metadata record with it.
"""

from __future__ import annotations

import collections.abc
import ctypes
import dataclasses
import json
import sys
import types
import typing
from typing import Any, Callable

from . import _core
from ._abi import TypeIndex
from ._core import Device, Function, Object, Tensor, dtype
from .container import Array, Dict, List, Map
from .error import Error

__all__ = [
    "TypeSchema",
    "declared_schema",
    "function_schema",
    "origin_of",
    "parse_metadata",
    "typestr_origin",
]

# Spellings of both header sets and of STL types, folded to the origin Python code sees. Names
# not listed (type keys, "int", "Optional", ...) are origins as they are.
_ORIGIN_OF_KEY = {
    "Variant": "Union",
    "Tuple": "tuple",
    "ffi.Function": "Callable",
    "ffi.Array": "Array",
    "ffi.List": "List",
    "ffi.Map": "Map",
    "ffi.Dict": "Dict",
    "ffi.OpaquePyObject": "Any",
    "ffi.Object": "Object",
    "ffi.Tensor": "Tensor",
    "ffi.BigInt": "int",
    "DLTensor*": "Tensor",
    "void*": "ctypes.c_void_p",
    "TVMFFIByteArray*": "bytes",
    "ffi.SmallBytes": "bytes",
    "ffi.Bytes": "bytes",
    "std::string": "str",
    "const char*": "str",
    "ffi.SmallStr": "str",
    "ffi.String": "str",
    "DataType": "dtype",
    "std::vector": "Array",
    "std::optional": "Optional",
    "std::variant": "Union",
    "std::tuple": "tuple",
    "std::map": "Map",
    "std::unordered_map": "Map",
    "std::function": "Callable",
    "ObjectRValueRef": "Object",
}

# Further spellings TypeStr names use (type schemas do not; a schema keeps them as written).
_TYPESTR_ORIGINS = {
    "void": "None",
    "AnyView": "Any",
    "String": "str",
    "Bytes": "bytes",
    "std::array": "Array",
}

# The type index of each origin that has one.
_INDEX_OF_ORIGIN = {
    "Any": TypeIndex.ANY,
    "None": TypeIndex.NONE,
    "int": TypeIndex.INT,
    "bool": TypeIndex.BOOL,
    "float": TypeIndex.FLOAT,
    "ctypes.c_void_p": TypeIndex.OPAQUE_PTR,
    "dtype": TypeIndex.DATA_TYPE,
    "Device": TypeIndex.DEVICE,
    "Object": TypeIndex.OBJECT,
    "str": TypeIndex.STR,
    "bytes": TypeIndex.BYTES,
    "Callable": TypeIndex.FUNCTION,
    "Tensor": TypeIndex.TENSOR,
    "Array": TypeIndex.ARRAY,
    "Map": TypeIndex.MAP,
    "List": TypeIndex.LIST,
    "Dict": TypeIndex.DICT,
}
_ORIGIN_OF_INDEX = {
    **{index: origin for origin, index in _INDEX_OF_ORIGIN.items()},
    TypeIndex.DLTENSOR_PTR: "Tensor",
    TypeIndex.RAW_STR: "str",
    TypeIndex.BYTE_ARRAY_PTR: "bytes",
    TypeIndex.OBJECT_RVALUE_REF: "Object",
    TypeIndex.SMALL_STR: "str",
    TypeIndex.SMALL_BYTES: "bytes",
    TypeIndex.BIG_INT: "int",
}
_STRUCTURAL = -2  # origin_type_index of Optional and Union: no single type
_UNKNOWN = -3  # origin_type_index of an origin no registered type has


# How many type arguments an origin takes: the counts allowed, and how messages say them.
_ARITY: dict[str, tuple[tuple[int, ...] | None, str]] = {
    "Optional": ((1,), "exactly one"), "Union": (None, "at least two"),  # None: 2 or more
    "Array": ((0, 1), "0 or 1"), "List": ((0, 1), "0 or 1"), "list": ((0, 1), "0 or 1"),
    "Map": ((0, 2), "0 or 2"), "Dict": ((0, 2), "0 or 2"), "dict": ((0, 2), "0 or 2"),
}  # fmt: skip


def origin_of(name: str) -> str:
    """The origin the type name `name` (a type key, or a spelling of the headers or of the STL)
    folds to: ``"ffi.String"`` is ``"str"``, ``"my.Point"`` stays ``"my.Point"``."""
    return _ORIGIN_OF_KEY.get(name, name)


def typestr_origin(name: str) -> str:
    """As :func:`origin_of`, with the spellings of TypeStr names too (``"void"`` is ``"None"``,
    ``"std::array"`` is ``"Array"``): how a TypeStr name, or a stub showing either form, reads
    `name`."""
    return _TYPESTR_ORIGINS.get(name) or _ORIGIN_OF_KEY.get(name, name)


def _conversions() -> Any:
    # The converters load on first use: they (and the `numbers` module) stay off the path of
    # `import ffi`. They sit below this module (they need no schema class), so this is no cycle.
    from . import _type_convert

    return _type_convert


@dataclasses.dataclass(frozen=True)
class TypeSchema:
    """A type as reflection metadata declares it: an `origin` (``"int"``, ``"Array"``,
    ``"Optional"``, ``"Callable"``, a type key, ...) with positional type `args`; a typed function
    names its groups in `named_args` (``"params"`` and ``"return"``)::

        s = TypeSchema.from_json_str('{"type": "ffi.Map", "args": [{"type": "ffi.String"},
                                                                    {"type": "int"}]}')
        s.origin, s.repr()      # ("Map", "Map[str, int]")
    """

    origin: str
    """The type, folded to one spelling (``ffi.String`` and ``std::string`` are ``"str"``)."""
    args: tuple[TypeSchema, ...] = None  # type: ignore[assignment]
    """Positional type arguments (element types; Any filled in for a bare container). None only
    for a bare ``tuple`` (any length), which ``tuple[()]`` (``args == ()``) is not."""
    named_args: dict[str, tuple[TypeSchema, ...]] | None = dataclasses.field(
        default=None, hash=False
    )
    """Named groups of type arguments: a function's ``"params"`` and ``"return"``."""
    fallback: TypeSchema | None = None
    """The schema to show where `origin` names no type known here."""
    origin_type_index: int = dataclasses.field(default=_UNKNOWN, repr=False, compare=False)
    """The type index of `origin`: -2 for Optional and Union, -3 when no registered type has it."""
    spelling: str | None = dataclasses.field(default=None, repr=False, compare=False)
    """The type's name as the metadata or TypeStr text wrote it (``ffi.String``), before folding;
    None for a schema made otherwise. :meth:`typestr` shows it."""

    def __post_init__(self) -> None:
        if not isinstance(self.origin, str) or not self.origin:
            raise ValueError("a type schema's origin must be a nonempty string")
        origin = self.origin
        bare_tuple = self.args is None and origin == "tuple"  # keeps args None: any length
        args = tuple(self.args or ())
        if any(not isinstance(a, TypeSchema) for a in args):
            raise TypeError("type schema arguments must be TypeSchema instances")
        named = self.named_args
        if named is not None:
            named = {k: tuple(v) for k, v in named.items()}
            if any(not isinstance(s, TypeSchema) for v in named.values() for s in v):
                raise TypeError("named type schema arguments must be TypeSchema instances")
        if origin == "Callable" and args and named is None:  # flat form: return, then params
            named = {"return": args[:1], **({"params": args[1:]} if len(args) > 1 else {})}
            args = ()
        allowed, text = _ARITY.get(origin, ((len(args),), ""))
        fits = len(args) >= 2 if allowed is None else len(args) in allowed  # noqa: PLR2004
        if not fits:
            noun = "argument" if allowed == (1,) else "arguments"
            raise ValueError(f"{origin} takes {text} type {noun}, not {len(args)}")
        if origin in ("Array", "List", "list", "Map", "Dict", "dict") and not args:
            args = (TypeSchema("Any"),) * (2 if origin in ("Map", "Dict", "dict") else 1)
            # Not a field: only typestr() asks, to show the type as it was written (ffi.Array).
            object.__setattr__(self, "_implicit_args", True)
        object.__setattr__(self, "args", None if bare_tuple else args)
        object.__setattr__(self, "named_args", named)
        if self.origin_type_index == _UNKNOWN:
            object.__setattr__(self, "origin_type_index", _origin_index(origin))

    # ---- reading ------------------------------------------------------------------------------

    @staticmethod
    def from_json_obj(obj: dict[str, Any]) -> TypeSchema:
        """The schema a parsed JSON object describes: ``{"type": ..., "args": [...]}``, with
        ``named_args`` and ``fallback`` when present. Non-type arguments (``std::array``'s
        length) are skipped."""
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise TypeError(f"expected schema dict with a string 'type', got {obj!r}")
        key = obj["type"]
        origin = origin_of(key)
        raw_args = obj.get("args")
        raw_args = raw_args if isinstance(raw_args, (list, tuple)) else ()
        named = obj.get("named_args")
        if key == "std::function" and len(raw_args) == 2 and isinstance(raw_args[1], list):
            named = {"return": [raw_args[0]], "params": raw_args[1]}  # R, [A...]
            raw_args = ()
        if named is not None and not isinstance(named, dict):
            raise TypeError("a type schema's named_args must map names to lists of schemas")
        args = tuple(TypeSchema.from_json_obj(a) for a in raw_args if isinstance(a, dict))
        return TypeSchema(
            origin,
            None if origin == "tuple" and "args" not in obj else args,
            named_args=None
            if named is None
            else {k: tuple(TypeSchema.from_json_obj(s) for s in v) for k, v in named.items()},
            fallback=TypeSchema.from_json_obj(obj["fallback"]) if "fallback" in obj else None,
            spelling=key,
        )

    @staticmethod
    def from_json_str(text: str) -> TypeSchema:
        """The schema JSON text describes (see :meth:`from_json_obj`)."""
        return TypeSchema.from_json_obj(json.loads(text))

    @staticmethod
    def from_typestr(text: str) -> TypeSchema:
        """The schema of a TypeStr name, as this project's older export records write types:
        ``Map<str, Array<int>>``, ``Optional<my.Point>``, ``std::function<int(float)>``
        (``std::array``'s length is skipped, ``Variant<T>`` is ``T``). ValueError for text that
        is no such name."""
        try:
            schema, end = _parse_typestr(text, 0)
        except IndexError:
            raise ValueError(f"not a TypeStr type name: {text!r}") from None
        if end != len(text):
            raise ValueError(f"not a TypeStr type name: {text!r}")
        return schema

    @staticmethod
    def from_type_index(type_index: int, args: tuple[TypeSchema, ...] = ()) -> TypeSchema:
        """The schema of a type index (a TVMFFITypeIndex or a registered object type's)."""
        origin = _ORIGIN_OF_INDEX.get(type_index) or _core._type_key(type_index)
        return TypeSchema(origin, args, origin_type_index=type_index)

    @staticmethod
    def from_annotation(annotation: Any) -> TypeSchema:
        """The schema of a Python annotation: ``int``, ``Optional[str]``, ``list[int]`` (a List),
        ``tuple[int, ...]`` (an Array), ``tuple[int, str]``, ``dict[str, float]`` (a Dict),
        ``ffi.Map[K, V]``, ``Callable[[int], str]``, an FFI object class, ... TypeError for
        annotations no FFI value can satisfy."""
        return _from_annotation(annotation)

    # ---- showing ------------------------------------------------------------------------------

    def repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The type in Python's annotation syntax: ``Array[int]``, ``int | None``,
        ``Callable[[str], int]``; `ty_map` renames each origin first."""
        if self.fallback is not None and self.origin_type_index == _UNKNOWN:
            return self.fallback.repr(ty_map)
        origin = self.origin if ty_map is None else ty_map(self.origin)
        args = [a.repr(ty_map) for a in self.args or ()]
        if self.origin == "Callable":
            named = self.named_args or {}
            if "return" not in named:
                return "Callable[..., Any]"
            ret = named["return"][0].repr(ty_map)
            if "params" not in named:
                return f"Callable[..., {ret}]"
            return f"Callable[[{', '.join(p.repr(ty_map) for p in named['params'])}], {ret}]"
        if self.origin == "Union":
            return " | ".join(args)
        if self.origin == "Optional":
            return f"{args[0]} | None"
        if self.origin == "tuple" and not args:
            return "tuple" if self.args is None else "tuple[()]"
        return f"{origin}[{', '.join(args)}]" if args else origin

    def __repr__(self) -> str:
        return self.repr()

    def input_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The type as a parameter annotation: what a caller may pass (see :meth:`repr`)."""
        return self.repr(ty_map)

    def output_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The type as a return annotation: what a caller gets back (see :meth:`repr`)."""
        return self.repr(ty_map)

    def typestr(self) -> str:
        """The type as a C++-style name, the form signatures show (``Optional<int>``,
        ``ffi.Array<ffi.String>``): each name as the metadata spelled it, with the positional
        type arguments it gave (none for a bare ``ffi.Array``)."""
        name = self.spelling or self.origin
        if self.__dict__.get("_implicit_args"):
            return name
        args = [a.typestr() for a in self.args or ()]
        return f"{name}<{', '.join(args)}>" if args else name

    def to_json(self) -> dict[str, Any]:
        """The schema as a JSON object (the form :meth:`from_json_obj` reads)."""
        out: dict[str, Any] = {"type": self.origin}
        if self.args or (self.origin == "tuple" and self.args is not None):
            out["args"] = [a.to_json() for a in self.args]
        if self.named_args is not None:
            out["named_args"] = {k: [s.to_json() for s in v] for k, v in self.named_args.items()}
        if self.fallback is not None:
            out["fallback"] = self.fallback.to_json()
        return out

    # ---- values -------------------------------------------------------------------------------

    def check_value(self, value: Any) -> None:
        """Checks that `value` converts to this type (as :meth:`convert` would); a TypeError
        ``type check failed for <type>: ...`` naming where a nested value does not."""
        _conversions().check(self, value, "type check")

    def convert(self, value: Any) -> Any:
        """`value` converted to this type, as C++ would cast it (an int taking a bool, a float an
        int, containers element by element), held as an owned FFI value: a :class:`CAny`
        (``ffi.core._to_py_class_value`` reads it back). TypeError ``type conversion failed for
        <type>: ...`` when it does not convert."""
        return _core.CAny(_conversions().check(self, value, "type conversion"))

    def is_subtype_of(self, target_cls: type) -> bool:
        """Whether this schema names an object type that is `target_cls`'s type or derives from
        it (False for values and structural types, and for classes that are not FFI objects)."""
        return bool(_conversions().is_subtype_of(self, target_cls))


def _origin_index(origin: str) -> int:
    if origin in ("Optional", "Union"):
        return _STRUCTURAL
    if origin in _INDEX_OF_ORIGIN:
        return _INDEX_OF_ORIGIN[origin]
    try:
        return _core.type_key_to_index(origin)
    except KeyError:
        return _UNKNOWN


# ---- TypeStr names ----------------------------------------------------------------------------


def _typestr_schema(name: str, args: list[TypeSchema]) -> TypeSchema:
    origin = typestr_origin(name)
    if origin == "Union" and len(args) == 1:
        return args[0]  # a variant of one type is that type
    return TypeSchema(origin, tuple(args), spelling=name)


def _parse_typestr(text: str, i: int) -> tuple[TypeSchema, int]:
    """The schema of the name starting at `i`, and where it ends; IndexError or ValueError for
    text that is no name."""
    start = i
    while i < len(text) and text[i] not in "<>,()":
        i += 1
    name = text[start:i].strip()
    if not name:
        raise ValueError(text)
    args: list[TypeSchema] = []
    if i < len(text) and text[i] == "<":
        i += 1
        while True:
            while text[i] == " ":
                i += 1
            if text[i].isdigit():  # std::array<T, N>: the length is no type
                while text[i].isdigit():
                    i += 1
            else:
                arg, i = _parse_typestr(text, i)
                args.append(arg)
            if text[i] == ">":
                i += 1
                break
            if text[i] != ",":
                raise ValueError(text)
            i += 1
    if i < len(text) and text[i] == "(":  # R(A, B) inside std::function<...>
        params: list[TypeSchema] = []
        i += 1
        while text[i] != ")":
            param, i = _parse_typestr(text, i)
            params.append(param)
            if text[i] == ",":
                i += 1
        ret = _typestr_schema(name, args)
        return TypeSchema("Callable", named_args={"return": (ret,), "params": tuple(params)}), i + 1
    if typestr_origin(name) == "Callable" and len(args) == 1:
        if args[0].origin == "Callable":
            return args[0], i  # std::function<R(A)> parsed its signature as the argument
    return _typestr_schema(name, args), i


# ---- annotations ------------------------------------------------------------------------------


def _arity(name: str, args: tuple[Any, ...], allowed: tuple[int, ...]) -> None:
    if len(args) not in allowed:
        want = " or ".join(str(n) for n in allowed)
        raise TypeError(f"{name} requires {want} type arguments, got {len(args)}")


def _from_annotation(annotation: Any) -> TypeSchema:  # noqa: PLR0911, PLR0912
    A = _from_annotation
    if annotation is Any:
        return TypeSchema("Any")
    if annotation is None or annotation is type(None):
        return TypeSchema("None")
    simple = {int: "int", float: "float", bool: "bool", str: "str", bytes: "bytes",
              Device: "Device", dtype: "dtype", ctypes.c_void_p: "ctypes.c_void_p",
              Tensor: "Tensor", Object: "Object", Function: "Callable",
              collections.abc.Callable: "Callable", typing.Callable: "Callable",
              Error: "ffi.Error"}  # fmt: skip
    if isinstance(annotation, collections.abc.Hashable) and annotation in simple:
        return TypeSchema(simple[annotation])
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union or (
        sys.version_info >= (3, 10) and isinstance(annotation, types.UnionType)
    ):
        alts = [A(a) for a in args]
        rest = [a for a in alts if a.origin != "None"]
        if len(rest) == 1 and len(alts) == 2:  # noqa: PLR2004
            return TypeSchema("Optional", (rest[0],))
        return TypeSchema("Union", tuple(alts))
    if origin is collections.abc.Callable:
        params, ret = args[0], args[1]
        return TypeSchema(
            "Callable", (A(ret),) + (() if params is Ellipsis else tuple(map(A, params)))
        )
    if annotation is tuple:
        return TypeSchema("tuple")
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:  # noqa: PLR2004
            return TypeSchema("Array", (A(args[0]),))
        if args == ((),):  # typing.Tuple[()]
            args = ()
        return TypeSchema("tuple", tuple(A(a) for a in args))
    for cls, key, python_name, n in (
        (list, "List", "list", 1), (dict, "Dict", "dict", 2),
        (Array, "Array", None, 1), (List, "List", None, 1),
        (Map, "Map", None, 2), (Dict, "Dict", None, 2),
    ):  # fmt: skip
        if annotation is cls:
            return TypeSchema(key)
        if origin is cls:
            if python_name == "list" and len(args) > 1:
                raise TypeError(f"list takes at most 1 type argument, got {len(args)}")
            if python_name is not None:
                _arity(python_name, args, (0, n))
            else:
                _arity(key, args, (n,))
            return TypeSchema(key, tuple(A(a) for a in args))
    if isinstance(annotation, type) and issubclass(annotation, Object):
        index = _core._class_type_index(annotation)
        if index < 0 or _core._class_for_type_index(index) is not annotation:
            raise TypeError(f"{annotation.__qualname__} is not registered with the FFI")
        return TypeSchema(_core._type_key(index), origin_type_index=index)
    raise TypeError(f"Cannot convert {annotation!r} to TypeSchema")


# ---- metadata records -------------------------------------------------------------------------


def _read(raw: Any) -> TypeSchema | None:
    """The schema of a ``type_schema`` entry (JSON text or a parsed object); None when it is
    neither, or is one this package cannot read."""
    try:
        if isinstance(raw, str):
            return TypeSchema.from_json_str(raw)
        return TypeSchema.from_json_obj(raw) if isinstance(raw, dict) else None
    except (TypeError, ValueError):
        return None


def declared_schema(metadata: dict[str, Any]) -> TypeSchema | None:
    """The schema a field's or function's metadata declares in its ``type_schema`` (None when it
    declares none this package can read)."""
    return _read(metadata.get("type_schema"))


def _typestr_of(obj: Any) -> str:
    """One parameter's type of a function schema as a signature shows it ("Any" when it is no
    schema this package can read)."""
    schema = _read(obj)
    return "Any" if schema is None else schema.typestr()


def parse_metadata(text: str) -> dict[str, Any]:
    """A function's metadata (JSON), with "arg_types" and "return_type" (TypeStr names) read from
    the reference's "type_schema" when only that is there (exports built with the reference's
    headers, global functions), so that every function with a schema has a signature."""
    meta: dict[str, Any] = json.loads(text)
    if "arg_types" not in meta and isinstance(meta.get("type_schema"), str):
        try:
            named = json.loads(meta["type_schema"]).get("named_args") or {}
        except (ValueError, AttributeError):
            named = {}
        meta["arg_types"] = [_typestr_of(p) for p in named.get("params") or ()]
        returns = named.get("return") or ()
        meta["return_type"] = _typestr_of(returns[0]) if returns else "Any"
    return meta


def function_schema(meta: dict[str, Any] | None) -> TypeSchema | None:
    """The ``Callable`` schema (``named_args`` ``"params"`` and ``"return"``) a function's metadata
    record describes: its ``type_schema`` when present, else ``arg_types``/``return_type`` (this
    project's older records, TypeStr names; one that does not read is ``Any``); None when it has
    neither."""
    if not meta:
        return None
    schema = _read(meta.get("type_schema"))
    if (
        schema is not None
        and schema.origin == "Callable"
        and (schema.named_args or {}).get("return")
    ):
        return schema
    if isinstance(meta.get("arg_types"), list) and isinstance(meta.get("return_type"), str):
        params = tuple(_typestr_or_any(t) for t in meta["arg_types"])
        ret = _typestr_or_any(meta["return_type"])
        return TypeSchema("Callable", named_args={"return": (ret,), "params": params})
    return None


def _typestr_or_any(text: Any) -> TypeSchema:
    try:
        return TypeSchema.from_typestr(text)
    except (TypeError, ValueError):
        return TypeSchema("Any")
