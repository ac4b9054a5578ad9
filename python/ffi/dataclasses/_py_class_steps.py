"""``py_class`` one step at a time, under the reference's private names: a type registered for a
class (``core._register_py_class``), its fields from :class:`Field` objects carrying a
:class:`TypeSchema` (``TypeInfo._register_fields``), the class bound to it
(``registry._add_class_attrs``) and the dataclass methods (``_dunder._install_dataclass_dunders``).
Code generators and the reference's tests build classes so; each step is the one ``py_class``
takes, on the same primitives (``py_class._make_type`` does them in one go from annotations)."""

from __future__ import annotations

import functools
from typing import Any

from .. import _core, registry
from .._type_convert import check
from .._type_info import MISSING, Field, TypeInfo, type_info
from .._type_schema import TypeSchema
from . import _dunders
from ._field_types import _ANY, _BOOL, _FLOAT, _INT, _PTR, _Schema
from .py_class import _lay_out, _parent, _Spec

# Native layouts by type-schema origin (after TypeSchema folds the spellings); others: an Any.
_LAYOUT_OF_ORIGIN = {"int": _INT, "bool": _BOOL, "float": _FLOAT, "ctypes.c_void_p": _PTR}


def register_py_class(parent_info: TypeInfo, type_key: str, cls: type) -> TypeInfo:
    """Registers the type `type_key` deriving from `parent_info`'s for `cls` (a subclass of the
    parent's class) and returns its TypeInfo, whose ``fields`` are None until its
    ``_register_fields(fields)`` (:func:`register_fields`). A key already registered is a
    ValueError (the registered type stays)."""
    if not (isinstance(cls, type) and issubclass(cls, _core.Object)):
        raise TypeError(f"_register_py_class: {cls!r} must inherit from ffi.Object")
    if not isinstance(parent_info, TypeInfo):
        raise TypeError(f"_register_py_class: expected the parent's TypeInfo, not {parent_info!r}")
    index = _core._py_class_new_type(type_key, parent_info.type_index)
    ancestors = [*parent_info.type_ancestors, parent_info.type_index]
    info = TypeInfo(cls, index, type_key, ancestors, None, [], parent_info)  # type: ignore[arg-type]
    # The reference's next step is a method of this TypeInfo: the type awaits its fields.
    info._register_fields = functools.partial(register_fields, info)  # type: ignore[attr-defined]
    return info


def _field_schema(f: Field) -> _Schema:
    """What `f`'s TypeSchema means for its storage: the same conversion a call applies."""
    schema = f._ty_schema
    if schema is None:
        return _Schema({"type": "Any"}, None, _ANY)
    if not isinstance(schema, TypeSchema):
        raise TypeError(f"field `{f.name}`: _ty_schema must be a TypeSchema, not {schema!r}")
    if schema.origin == "Any":
        return _Schema(schema.to_json(), None, _ANY)

    def convert(value: Any) -> Any:
        return check(schema, value, "type check")

    layout = _LAYOUT_OF_ORIGIN.get(schema.origin, _ANY)
    return _Schema(schema.to_json(), convert, layout)  # check() applies the value protocols


def register_fields(info: TypeInfo, fields: list[Field]) -> None:
    """Lays out and registers `fields` (named :class:`Field` objects with a ``_ty_schema``) in
    the type of `info`, after its parent's, and fills ``info.fields``; once per type."""
    if info.fields is not None:
        raise RuntimeError(f"the fields of `{info.type_key}` are registered already")
    cls = info.type_cls
    assert cls is not None
    specs = []
    for f in fields:
        if not isinstance(f, Field) or not isinstance(f.name, str):
            raise TypeError(f"_register_fields: expected named Field objects, not {f!r}")
        schema = _field_schema(f)
        if f.default is not MISSING and schema.convert is not None:
            f.default = schema.convert(f.default)
        specs.append(_Spec(f.name, f, schema, bool(f.kw_only)))
    _, parent_size, start = _parent(cls)
    size = _lay_out(cls, info.type_index, start, parent_size, specs, "tree")
    cls.__ffi_init_properties__ = ()  # type: ignore[attr-defined]
    info.fields = type_info(info.type_index).fields
    info.total_size = size


def install_dataclass_dunders(
    cls: type,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    frozen: bool = False,
    match_args: bool = True,
) -> None:
    """Adds ``__init__``, ``__repr__``, comparisons and hashing to `cls`, bound to its type by
    ``registry._add_class_attrs``, as ``py_class`` does; what the class body defines stays."""
    options = _dunders.ClassOptions(frozen, init, repr, eq, order, unsafe_hash, match_args)
    index = _core._class_type_index(cls)
    if index < 0 or _core._class_for_type_index(index) is not cls:
        raise TypeError(f"{cls!r} is not bound to a type (call _add_class_attrs first)")
    key = _core._type_key(index)
    bound = registry._bound_by_add_class_attrs(cls)
    ffi_init, body = bound or (_core._type_attr(index, "__ffi_init__"), set())
    _dunders.finish_class(cls, key, body, ffi_init, options, py_class_mode=True)
