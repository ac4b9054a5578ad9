"""What the runtime's type table says of a registered type, as Python values.

:class:`TypeInfo` (key, index, ancestors, own fields and methods), :class:`TypeField`,
:class:`TypeMethod` and :class:`TypeSchema` (the type a field or function declares in its
metadata) carry the reference's ``tvm_ffi.core`` names and attributes. They are descriptions, read
from the runtime's reflection records (``TVMFFIGetTypeInfo``) each time one is asked for, so they
show fields and methods registered after the class was made. ``cls.__tvm_ffi_type_info__`` gives
the one of a class's type.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable

from . import _core
from ._core import Device, Object, dtype

__all__ = ["MISSING", "TypeField", "TypeInfo", "TypeMethod", "TypeSchema", "type_info"]


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


def _missing() -> _MissingType:
    return _core._wrap_as(_core.get_global_func("ffi.GetInvalidObject")(), _MissingType)


MISSING: Any = _missing()
"""No value given: a field without a default, an argument left to the C++ default. As in the
reference, an ``ffi.Object`` (the runtime's missing object), which identity tells apart."""

# Field and method flag bits (TVMFFIFieldFlagBitMask in <ffi/c_reflection_api.h>).
_WRITABLE = 1 << 0
_HAS_DEFAULT = 1 << 1
_STATIC_METHOD = 1 << 2
_DEFAULT_FROM_FACTORY = 1 << 5
_REPR_OFF = 1 << 6
_COMPARE_OFF = 1 << 7
_HASH_OFF = 1 << 8
_INIT_OFF = 1 << 9
_KW_ONLY = 1 << 10

# How a field takes part in structural equality and hashing, and its flag bit: normally (None, no
# bit), not at all, or as a definition region of variables.
_STRUCTURAL_EQ_BITS = {"ignore": 1 << 3, "def-pattern": 1 << 4, "def-simple": 1 << 12}


def _structural_eq_of(flags: int) -> str | None:
    """The ``structural_eq`` value flag bits spell (None: compared normally)."""
    return next((k for k, bit in _STRUCTURAL_EQ_BITS.items() if flags & bit), None)


# ---- type schemas -----------------------------------------------------------------------------

# Type-schema spellings of both header sets, folded to the origin Python code sees.
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

# The type index of each origin that has one (TVMFFITypeIndex).
_INDEX_OF_ORIGIN = {
    "Any": -1, "None": 0, "int": 1, "bool": 2, "float": 3, "ctypes.c_void_p": 4, "dtype": 5,
    "Device": 6, "Object": 64, "str": 65, "bytes": 66, "Callable": 68, "Tensor": 70, "Array": 71,
    "Map": 72, "List": 75, "Dict": 76,
}  # fmt: skip
_ORIGIN_OF_INDEX = {
    **{index: origin for origin, index in _INDEX_OF_ORIGIN.items()},
    7: "Tensor",  # DLTensor*
    8: "str",  # raw C string
    9: "bytes",  # TVMFFIByteArray*
    10: "Object",  # rvalue reference
    11: "str",  # small string
    12: "bytes",  # small bytes
    78: "int",  # big integer
}
_STRUCTURAL = -2  # origin_type_index of Optional and Union: no single type
_UNKNOWN = -3  # origin_type_index of an origin no registered type has


# How many type arguments an origin takes: the counts allowed, and how messages say them.
_ARITY: dict[str, tuple[tuple[int, ...] | None, str]] = {
    "Optional": ((1,), "exactly one"), "Union": (None, "at least two"),  # None: 2 or more
    "Array": ((0, 1), "0 or 1"), "List": ((0, 1), "0 or 1"), "list": ((0, 1), "0 or 1"),
    "Map": ((0, 2), "0 or 2"), "Dict": ((0, 2), "0 or 2"), "dict": ((0, 2), "0 or 2"),
}  # fmt: skip


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
        if origin in ("Array", "List", "list") and not args:
            args = (TypeSchema("Any"),)
        elif origin in ("Map", "Dict", "dict") and not args:
            args = (TypeSchema("Any"), TypeSchema("Any"))
        object.__setattr__(self, "args", None if bare_tuple else args)
        object.__setattr__(self, "named_args", named)
        if self.origin_type_index == _UNKNOWN:
            object.__setattr__(self, "origin_type_index", _origin_index(origin))

    @staticmethod
    def from_json_obj(obj: dict[str, Any]) -> TypeSchema:
        """The schema a parsed JSON object describes: ``{"type": ..., "args": [...]}``, with
        ``named_args`` and ``fallback`` when present. Non-type arguments (``std::array``'s
        length) are skipped."""
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise TypeError(f"expected schema dict with a string 'type', got {obj!r}")
        origin = _ORIGIN_OF_KEY.get(obj["type"], obj["type"])
        raw_args = obj.get("args")
        raw_args = raw_args if isinstance(raw_args, (list, tuple)) else ()
        named = obj.get("named_args")
        if obj["type"] == "std::function" and len(raw_args) == 2 and isinstance(raw_args[1], list):
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
        )

    @staticmethod
    def from_json_str(text: str) -> TypeSchema:
        """The schema JSON text describes (see :meth:`from_json_obj`)."""
        return TypeSchema.from_json_obj(json.loads(text))

    @staticmethod
    def from_type_index(type_index: int, args: tuple[TypeSchema, ...] = ()) -> TypeSchema:
        """The schema of a type index (a TVMFFITypeIndex or a registered object type's)."""
        origin = _ORIGIN_OF_INDEX.get(type_index) or _core._type_key(type_index)
        return TypeSchema(origin, args, origin_type_index=type_index)

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

    @staticmethod
    def from_annotation(annotation: Any) -> TypeSchema:
        """The schema of a Python annotation: ``int``, ``Optional[str]``, ``list[int]`` (a List),
        ``tuple[int, ...]`` (an Array), ``tuple[int, str]``, ``dict[str, float]`` (a Dict),
        ``ffi.Map[K, V]``, ``Callable[[int], str]``, an FFI object class, ... TypeError for
        annotations no FFI value can satisfy."""
        from . import _type_convert

        return _type_convert.from_annotation(annotation)

    def check_value(self, value: Any) -> None:
        """Checks that `value` converts to this type (as :meth:`convert` would); a TypeError
        ``type check failed for <type>: ...`` naming where a nested value does not."""
        from . import _type_convert

        _type_convert.check(self, value, "type check")

    def convert(self, value: Any) -> Any:
        """`value` converted to this type, as C++ would cast it (an int taking a bool, a float an
        int, containers element by element), held as an owned FFI value: a :class:`CAny`
        (``ffi.core._to_py_class_value`` reads it back). TypeError ``type conversion failed for
        <type>: ...`` when it does not convert."""
        from . import _core, _type_convert

        return _core.CAny(_type_convert.check(self, value, "type conversion"))

    def is_subtype_of(self, target_cls: type) -> bool:
        """Whether this schema names an object type that is `target_cls`'s type or derives from
        it (False for values and structural types, and for classes that are not FFI objects)."""
        from . import _type_convert

        return _type_convert.is_subtype_of(self, target_cls)

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


def _origin_index(origin: str) -> int:
    if origin in ("Optional", "Union"):
        return _STRUCTURAL
    if origin in _INDEX_OF_ORIGIN:
        return _INDEX_OF_ORIGIN[origin]
    try:
        return _core.type_key_to_index(origin)
    except KeyError:
        return _UNKNOWN


def _schema_of(metadata: dict[str, Any]) -> TypeSchema | None:
    raw = metadata.get("type_schema")
    try:
        if isinstance(raw, str):
            return TypeSchema.from_json_str(raw)
        return TypeSchema.from_json_obj(raw) if isinstance(raw, dict) else None
    except (TypeError, ValueError):
        return None  # a schema this package cannot read describes nothing here


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# ---- type information -------------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class TypeField:
    """A reflected field of a type (its own: an ancestor's fields are on the ancestor's
    :class:`TypeInfo`). The ``c_*`` attributes are what the reflection flags declare."""

    name: str
    doc: str | None
    size: int
    """Bytes the field takes in the object."""
    alignment: int
    offset: int
    """Where the field starts, in bytes from the start of the object (its header included)."""
    field_static_type_index: int
    """The type index of what the field stores (-1: an Any)."""
    frozen: bool
    """Whether assigning the attribute is refused (read-only in C++, or a frozen class)."""
    metadata: dict[str, Any]
    getter: Callable[[Object], Any]
    """Reads the field of an object."""
    setter: Callable[[Object, Any], None]
    """Writes the field of an object, even a frozen one."""
    ty: TypeSchema | None = None
    """The declared type, when the metadata has a ``type_schema``."""
    c_init: bool = True
    c_kw_only: bool = False
    c_has_default: bool = False
    c_default: Any = MISSING
    c_default_factory: Any = MISSING
    c_repr: bool = True
    c_compare: bool = True
    c_hash: bool = True
    c_structural_eq: str | None = None
    dataclass_field: Any = None
    """The :class:`ffi.dataclasses.Field` describing the field."""


@dataclasses.dataclass(eq=False)
class TypeMethod:
    """A reflected method of a type: `func` takes the object first unless `is_static`."""

    name: str
    doc: str | None
    func: Any
    metadata: dict[str, Any]
    is_static: bool


@dataclasses.dataclass(eq=False)
class TypeInfo:
    """A registered type: its key and index, the indices of its ancestors (root first), its own
    fields and methods, its parent's TypeInfo and the Python class bound to it (None when no
    class is)."""

    type_cls: type | None
    type_index: int
    type_key: str
    type_ancestors: list[int]
    fields: list[TypeField]
    methods: list[TypeMethod]
    parent_type_info: TypeInfo | None
    doc: str | None = None
    """The type's documentation, from its metadata."""
    total_size: int = 0
    """The object's size in bytes, header included, from its metadata (0 when unknown)."""

    def _register_fields(self, fields: list[Any]) -> None:
        """Registers the fields of a type made by ``core._register_py_class``: named
        :class:`ffi.dataclasses.Field` objects with a ``_ty_schema``; fills :attr:`fields`."""
        from .dataclasses._py_class_steps import register_fields

        register_fields(self, fields)


_OBJECT_INDEX = 64  # kTVMFFIObject
# The Python classes standing for the types no registered class is bound to: values that arrive
# as plain Python values (str, bytes), dtype and Device, and ffi.Object itself.
_BUILTIN_CLASSES: dict[int, type] = {5: dtype, 6: Device, _OBJECT_INDEX: Object, 65: str, 66: bytes}


def type_info(type_index: int) -> TypeInfo:
    """The TypeInfo of the type registered at `type_index` (ValueError when none is)."""
    key, ancestors, doc, field_records, method_records, total_size = _core._type_info(type_index)
    cls: type | None = _BUILTIN_CLASSES.get(type_index)
    if cls is None:
        cls = _core._class_for_type_index(type_index)
        if cls is Object or _core._class_type_index(cls) != type_index:
            cls = None  # the class of a base or a generated one: no class is bound to this type
    fields = [_type_field(cls, *record) for record in field_records]
    methods = [
        TypeMethod(name, mdoc, func, _json_dict(meta), bool(flags & _STATIC_METHOD))
        for name, mdoc, meta, flags, func in method_records
    ]
    parent = type_info(ancestors[-1]) if ancestors else None
    return TypeInfo(cls, type_index, key, list(ancestors), fields, methods, parent, doc, total_size)


def _type_field(
    cls: type | None, desc: Any, size: int, alignment: int, offset: int, static_index: int
) -> TypeField:
    from .dataclasses.field import _field_from_reflection

    on_class = cls.__dict__.get(desc.__name__) if cls is not None else None
    if type(on_class) is type(desc):
        desc = on_class  # the class's own descriptor knows whether the class froze the field
    flags = desc.flags
    metadata = _json_dict(desc.metadata)
    has_default = bool(flags & _HAS_DEFAULT)
    from_factory = has_default and bool(flags & _DEFAULT_FROM_FACTORY)
    ty = _schema_of(metadata)
    dataclass_field = _dataclass_field(cls, desc, _field_from_reflection)
    dataclass_field._ty_schema = ty  # the Field's schema is the reflection's, as the reference's
    return TypeField(
        name=desc.__name__,
        doc=desc.__doc__ or None,
        size=size,
        alignment=alignment,
        offset=offset,
        field_static_type_index=static_index,
        frozen=not desc.writable,
        metadata=metadata,
        getter=desc.__get__,
        setter=desc.set,
        ty=ty,
        c_init=not flags & _INIT_OFF,
        c_kw_only=bool(flags & _KW_ONLY),
        c_has_default=has_default,
        c_default=desc._default if has_default and not from_factory else MISSING,
        c_default_factory=desc._default if from_factory else MISSING,
        c_repr=not flags & _REPR_OFF,
        c_compare=not flags & _COMPARE_OFF,
        c_hash=not flags & _HASH_OFF,
        c_structural_eq=_structural_eq_of(flags),
        dataclass_field=dataclass_field,
    )


def _dataclass_field(cls: type | None, desc: Any, from_reflection: Any) -> Any:
    """The class's own :class:`ffi.dataclasses.Field` for `desc` (its ``type`` resolved from the
    annotation), else one made from the reflection alone."""
    own = cls.__dict__.get("__ffi_dataclass_fields__", ()) if cls is not None else ()
    for f in own:
        if f.name == desc.__name__:
            return f
    return from_reflection(desc, {}, not desc.writable)
