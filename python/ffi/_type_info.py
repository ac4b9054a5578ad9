"""What the runtime's type table says of a registered type, as Python values.

:class:`TypeInfo` (key, index, ancestors, own fields and methods), :class:`TypeField` and
:class:`TypeMethod` carry the reference's ``tvm_ffi.core`` names and attributes; a field's
declared type is a :class:`TypeSchema` (``ffi._type_schema``) and its dataclass view a
:class:`Field` (what ``ffi.dataclasses.fields`` reports). They are descriptions, read from the
runtime's reflection records (``TVMFFIGetTypeInfo``) each time one is asked for, so they show
fields and methods registered after the class was made. ``cls.__tvm_ffi_type_info__`` (a
:class:`TypeInfoAttribute`, put on ``ffi.Object`` by ``ffi._bootstrap``) gives the one of a
class's type.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from . import _core
from ._abi import FieldFlag, TypeIndex
from ._core import Device, Object, dtype
from ._type_schema import TypeSchema, declared_schema
from .api import MISSING

__all__ = [
    "MISSING",
    "Field",
    "TypeField",
    "TypeInfo",
    "TypeInfoAttribute",
    "TypeMethod",
    "TypeSchema",
    "lookup_type_attr",
    "type_index_of_key",
    "type_info",
    "type_info_of_class",
    "type_info_of_key",
]

# How a field takes part in structural equality and hashing, and its flag bit: normally (None, no
# bit), not at all, or as a definition region of variables.
_STRUCTURAL_EQ_BITS = {
    "ignore": FieldFlag.SEQ_HASH_IGNORE,
    "def-pattern": FieldFlag.SEQ_HASH_DEF_PATTERN,
    "def-simple": FieldFlag.SEQ_HASH_DEF_SIMPLE,
}
_STRUCTURAL_EQ_VALUES = frozenset({None, "def", *_STRUCTURAL_EQ_BITS})


def _structural_eq_of(flags: int) -> str | None:
    """The ``structural_eq`` value flag bits spell (None: compared normally)."""
    return next((k for k, bit in _STRUCTURAL_EQ_BITS.items() if flags & bit), None)


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# ---- the dataclass view of a field -----------------------------------------------------------


def _field_converter(value: Any) -> Any:
    """The `converter` every field has, for type checkers (PEP 681): a constructor argument may be
    anything its annotation converts from (a list for an ``Array[int]`` field); at run time values
    are converted by the field's annotation, so it returns `value` as it is."""
    return value


class Field:
    """One field of a dataclass-style FFI class, as :func:`ffi.dataclasses.fields` reports it.

    ``default`` is the default value or :data:`MISSING`; ``default_factory`` a callable making
    it, or :data:`MISSING`. ``init``, ``repr``, ``compare``, ``hash`` and ``kw_only`` say whether
    the field is in the constructor, the repr, comparisons and hashing, and taken by keyword only
    (``hash`` None: as ``compare``; ``kw_only`` None, on a specifier not yet applied: as the
    class says); ``frozen`` whether plain assignment is refused; ``type`` is the class's
    annotation (None when there is none), ``doc`` the field's documentation and ``metadata`` its
    user metadata. Made directly, a Field is left out of comparisons unless `compare` says so (as
    the reference's is); :func:`ffi.dataclasses.field` puts it in by default. ``_ty_schema``, the
    :class:`TypeSchema` of a field registered step by step (``TypeInfo._register_fields``), is
    not shown.
    """

    __slots__ = (
        "_ty_schema",
        "compare",
        "converter",
        "default",
        "default_factory",
        "doc",
        "frozen",
        "hash",
        "init",
        "kw_only",
        "metadata",
        "name",
        "repr",
        "structural_eq",
        "type",
    )

    def __init__(
        self,
        name: str | None = None,
        *,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,
        hash: bool | None = None,
        compare: bool = False,
        kw_only: bool | None = None,
        frozen: bool = False,
        doc: str | None = None,
        metadata: dict[str, Any] | None = None,
        structural_eq: str | None = None,
        converter: Callable[[Any], Any] = _field_converter,
        _ty_schema: Any = None,
    ) -> None:
        if structural_eq not in _STRUCTURAL_EQ_VALUES:
            raise ValueError(
                f"structural_eq must be one of {sorted(map(str, _STRUCTURAL_EQ_VALUES))}, "
                f"not {structural_eq!r}"
            )
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        if default_factory is not MISSING and not callable(default_factory):
            raise TypeError(
                f"default_factory must be a callable, not {type(default_factory).__name__}"
            )
        self.name = name
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash  # None: as `compare` says
        self.compare = compare
        self.kw_only = kw_only
        self.frozen = frozen
        self.doc = doc
        self.metadata = dict(metadata or {})
        self.structural_eq = structural_eq
        self.converter = converter
        self._ty_schema = _ty_schema

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{slot}={getattr(self, slot)!r}" for slot in self.__slots__ if slot != "_ty_schema"
        )
        return f"Field({shown})"


def _field_from_reflection(desc: Any, hints: dict[str, Any], frozen: bool) -> Field:
    """A :class:`Field` describing the reflected field behind descriptor `desc`."""
    flags = desc.flags
    default: Any = MISSING
    factory: Any = MISSING
    if flags & FieldFlag.HAS_DEFAULT:
        if flags & FieldFlag.DEFAULT_FROM_FACTORY:
            factory = desc._default
        else:
            default = desc._default
    metadata = json.loads(desc.metadata) if desc.metadata else {}
    metadata.pop("type_schema", None)
    out = Field(
        desc.__name__,
        default=default,
        default_factory=factory,
        init=not flags & FieldFlag.INIT_OFF,
        repr=not flags & FieldFlag.REPR_OFF,
        hash=not flags & FieldFlag.HASH_OFF,
        compare=not flags & FieldFlag.COMPARE_OFF,
        kw_only=bool(flags & FieldFlag.KW_ONLY),
        frozen=frozen or not flags & FieldFlag.WRITABLE,
        doc=desc.__doc__,
        metadata=metadata,
        structural_eq=_structural_eq_of(flags),
    )
    out.type = hints.get(desc.__name__)
    return out


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

    # A TypeInfo from ``core._register_py_class`` (its type made, its fields not yet) also has
    # ``_register_fields(fields)``, set on it by ffi.dataclasses._py_class_steps.


_OBJECT_INDEX = TypeIndex.OBJECT
# The Python classes standing for the types no registered class is bound to: values that arrive
# as plain Python values (str, bytes), dtype and Device, and ffi.Object itself.
_BUILTIN_CLASSES: dict[int, type] = {
    TypeIndex.DATA_TYPE: dtype,
    TypeIndex.DEVICE: Device,
    TypeIndex.OBJECT: Object,
    TypeIndex.STR: str,
    TypeIndex.BYTES: bytes,
}


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
        TypeMethod(name, mdoc, func, _json_dict(meta), bool(flags & FieldFlag.IS_STATIC_METHOD))
        for name, mdoc, meta, flags, func in method_records
    ]
    parent = type_info(ancestors[-1]) if ancestors else None
    return TypeInfo(cls, type_index, key, list(ancestors), fields, methods, parent, doc, total_size)


def _type_field(
    cls: type | None, desc: Any, size: int, alignment: int, offset: int, static_index: int
) -> TypeField:
    on_class = cls.__dict__.get(desc.__name__) if cls is not None else None
    if type(on_class) is type(desc):
        desc = on_class  # the class's own descriptor knows whether the class froze the field
    flags = desc.flags
    metadata = _json_dict(desc.metadata)
    has_default = bool(flags & FieldFlag.HAS_DEFAULT)
    from_factory = has_default and bool(flags & FieldFlag.DEFAULT_FROM_FACTORY)
    ty = declared_schema(metadata)
    dataclass_field = _dataclass_field(cls, desc)
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
        c_init=not flags & FieldFlag.INIT_OFF,
        c_kw_only=bool(flags & FieldFlag.KW_ONLY),
        c_has_default=has_default,
        c_default=desc._default if has_default and not from_factory else MISSING,
        c_default_factory=desc._default if from_factory else MISSING,
        c_repr=not flags & FieldFlag.REPR_OFF,
        c_compare=not flags & FieldFlag.COMPARE_OFF,
        c_hash=not flags & FieldFlag.HASH_OFF,
        c_structural_eq=_structural_eq_of(flags),
        dataclass_field=dataclass_field,
    )


def _dataclass_field(cls: type | None, desc: Any) -> Field:
    """The class's own :class:`Field` for `desc` (its ``type`` resolved from the annotation),
    else one made from the reflection alone."""
    own = cls.__dict__.get("__ffi_dataclass_fields__", ()) if cls is not None else ()
    for f in own:
        if f.name == desc.__name__:
            return f  # type: ignore[no-any-return]
    return _field_from_reflection(desc, {}, not desc.writable)


class TypeInfoAttribute:
    """``cls.__tvm_ffi_type_info__`` (also read on an instance): the :class:`TypeInfo` of the type
    the class is bound to, or of its nearest bound base (``ffi.Object``'s when none is). Built on
    each read, so it shows what was registered since."""

    def __get__(self, obj: Any, owner: type | None = None) -> TypeInfo:
        if obj is not None:
            return type_info(obj.type_index)
        index = _core._class_type_index(owner)
        return type_info(index if index >= 0 else _OBJECT_INDEX)


# ---- lookups by key, by class and of type attributes (the reference's ffi.core helpers) --------


def type_index_of_key(type_key: str) -> int | None:
    """The type index registered for `type_key`, or None."""
    try:
        return _core.type_key_to_index(type_key)
    except KeyError:
        return None


def type_info_of_key(type_key: str) -> TypeInfo:
    """The TypeInfo of the registered type `type_key` (a KeyError when none is)."""
    return type_info(_core.type_key_to_index(type_key))


def type_info_of_class(type_cls: type) -> TypeInfo | None:
    """The TypeInfo of the type `type_cls` stands for (``str`` for ``ffi.String``, ``ffi.dtype``
    for ``DataType``, ...), or None for a class bound to none."""
    for index, cls in _BUILTIN_CLASSES.items():
        if cls is type_cls:
            return type_info(index)
    if not isinstance(type_cls, type):
        return None
    index = _core._class_type_index(type_cls)
    return None if index < 0 else type_info(index)


def lookup_type_attr(type_index: int, attr_key: str, ancestor: bool = False) -> Any:
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
