"""``py_class``: FFI object types defined in Python, their fields stored in the object.

The class's annotated fields are laid out natively (``int``, ``float`` and ``bool`` as such, other
values as a 16-byte Any) in a new type registered with the runtime, so instances are real FFI
objects: C++ reads their fields through reflection, structural equality and JSON graphs work, and
they cross into kernels and back as the same class. Every write, from Python or from C++, goes
through the field's converter, built from its annotation.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from typing import Any, TypeVar

from .. import _core, registry
from .._abi import SIZEOF, FieldFlag, SEqHashKind
from .._core import Object
from .._type_info import MISSING
from ..container import Array, Dict, List, Map
from . import _dunders
from ._dunders import ClassOptions
from ._field_types import _Schema, _schema
from .field import (
    Field,
    _field_converter,
    _is_kw_only_marker,
    _structural_eq_bit,
    dataclass_transform,
    field,
    init_property,
)

_T = TypeVar("_T", bound=type)

_HEADER_SIZE = SIZEOF["TVMFFIObject"]
# TVMFFISEqHashKind per ``structural_eq`` of the class.
_STRUCTURE_KINDS = {
    None: SEqHashKind.UNSUPPORTED,
    "tree": SEqHashKind.TREE_NODE,
    "var": SEqHashKind.FREE_VAR,
    "dag": SEqHashKind.DAG_NODE,
    "const-tree": SEqHashKind.CONST_TREE_NODE,
    "singleton": SEqHashKind.UNIQUE_INSTANCE,
}
# Type attributes the runtime calls as hooks; a py_class body defining one publishes it.
_TYPE_ATTR_NAMES = frozenset(
    {
        "__ffi_repr__",
        "__ffi_hash__",
        "__ffi_eq__",
        "__ffi_compare__",
        "__ffi_convert__",
        "__any_hash__",
        "__any_equal__",
        "__s_equal__",
        "__s_hash__",
        "__s_visit__",
        "__s_mutate__",
        "__s_maybe_inplace_mutate__",
        "__data_to_json__",
        "__data_from_json__",
    }
)
# Converters stay alive as long as the types using them: for the life of the process.
_KEEP_ALIVE: list[Any] = []


class _Spec(typing.NamedTuple):
    """One field as declared in the class body."""

    name: str
    field: Field
    schema: _Schema
    kw_only: bool


def _is_ffi_type_class(base: type) -> bool:
    """Whether `base` stands for an FFI type: ffi.Object, a py_class or a registered class."""
    if base is Object or "__ffi_py_class_size__" in base.__dict__:
        return True
    index = _core._class_type_index(base)
    return index >= 0 and _core._class_for_type_index(index) is base


def _field_owners(cls: type) -> list[type]:
    """The classes whose annotations are `cls`'s new fields, base-most first: the plain Python
    classes between `cls` and the FFI type it extends (as the reference collects them), then
    `cls` itself."""
    between = []
    for base in cls.__mro__[1:]:
        if base is object or _is_ffi_type_class(base):
            break
        between.append(base)
    return [*reversed(between), cls]


def _own_annotations(owner: type) -> dict[str, Any]:
    """The annotations written in `owner`'s body, in order (not evaluated)."""
    if hasattr(inspect, "get_annotations"):
        return inspect.get_annotations(owner)
    return owner.__dict__.get("__annotations__", {})


class _Unresolved(Exception):
    """Annotations of a py_class that do not evaluate yet, as (field name, annotation) pairs."""

    def __init__(self, failures: list[tuple[str, str]]) -> None:
        super().__init__(failures)
        self.failures = failures


def _failing_annotations(
    owner: type, globalns: dict[str, Any], localns: dict[str, Any]
) -> list[tuple[str, str]]:
    """The annotations of `owner`'s body that do not evaluate, as (name, annotation text)."""
    failing = []
    for name, annotation in _own_annotations(owner).items():
        if not isinstance(annotation, str):
            continue
        try:
            eval(annotation, globalns, localns)  # noqa: S307 (what typing.get_type_hints does)
        except Exception:
            failing.append((name, annotation))
    return failing


def _declared_fields(cls: type, key: str, kw_only: bool, localns: dict[str, Any]) -> list[_Spec]:
    """The class's new fields: annotated names in order (ClassVar skipped, names after
    ``_: KW_ONLY`` keyword-only), those of plain Python base classes first (see _field_owners),
    each with its Field (from ``field(...)``, a plain default or none) and its schema.
    Annotations are resolved in each class's module, the class itself and `localns` (the names
    where the class is defined). Bad annotations and mutable defaults are TypeError /
    ValueError."""
    names = {**localns, cls.__name__: cls}
    declared: dict[str, _Spec] = {}  # by name: a later class's declaration replaces, in place
    for owner in _field_owners(cls):
        module = sys.modules.get(owner.__module__)
        globalns = vars(module) if module is not None else {}
        annotations = _own_annotations(owner)
        # The KW_ONLY marker is not a type: typing.get_type_hints refuses it on Python 3.10
        # (dataclasses.KW_ONLY is an instance there), so the marker is set aside first.
        markers = {n for n, a in annotations.items() if _is_kw_only_marker(a, globalns, names)}
        try:
            # Only the owner's own annotations: get_type_hints on the class itself would evaluate
            # every base's too, in this module's names (a C++-bound base's own annotations need
            # its module's).
            typed = {n: a for n, a in annotations.items() if n not in markers}
            own = type("_Annotations", (), {"__annotations__": typed})
            hints = typing.get_type_hints(own, globalns=globalns, localns=names)
        except Exception as exc:
            # Names defined later (a class referring to one below it, two classes referring to
            # each other): the type is made once they exist (see _define).
            failures = _failing_annotations(owner, globalns, names) or [("?", str(exc))]
            raise _Unresolved(failures) from exc
        after_marker = False
        for name in annotations:
            if name in markers:
                after_marker = True
                continue
            hint = hints.get(name, Any)
            if typing.get_origin(hint) is typing.ClassVar or hint is typing.ClassVar:
                continue
            spec = _declared_field(cls, key, owner, name, hint)
            # An explicit field(kw_only=...) wins over the class's kw_only and the KW_ONLY marker.
            explicit = spec.field.kw_only
            keyword = explicit if explicit is not None else (kw_only or after_marker)
            declared[name] = _Spec(name, spec.field, spec.schema, keyword)
    return list(declared.values())


def _declared_field(cls: type, key: str, owner: type, name: str, hint: Any) -> _Spec:
    """The field `name` annotated `hint` in the body of `owner` (`cls` or a plain base of it)."""
    if hasattr(Object, name) or (name.startswith("__") and name.endswith("__")):
        raise TypeError(
            f"py_class `{cls.__qualname__}`: a field cannot be named `{name}` (it would hide "
            "an attribute every FFI object needs)"
        )
    value = owner.__dict__.get(name, MISSING)
    if isinstance(value, init_property):
        spec = Field(init=False, compare=True, structural_eq="ignore", doc=value.__doc__)
    else:
        spec = value if isinstance(value, Field) else Field(default=value, compare=True)
    if spec.doc is not None and not isinstance(spec.doc, str):
        raise TypeError(f"py_class `{cls.__qualname__}`, field `{name}`: doc must be a str")
    if isinstance(spec.default, (list, dict, set, Array, List, Map, Dict)):
        raise ValueError(
            f"py_class `{cls.__qualname__}`: mutable default for field `{name}` is shared by "
            "every object; use field(default_factory=...)"
        )
    try:
        schema = _schema(hint, cls, key)
    except TypeError as exc:
        raise TypeError(f"py_class `{cls.__qualname__}`, field `{name}`: {exc}") from None
    if spec.default is not MISSING and schema.convert is not None:
        try:
            spec.default = schema.convert(spec.default)
        except TypeError as exc:
            raise TypeError(
                f"py_class `{cls.__qualname__}`, default of field `{name}`: {exc}"
            ) from None
    spec.name = name
    return _Spec(name, spec, schema, bool(spec.kw_only))


def _parent(cls: type) -> tuple[int, int, int]:
    """(type index, size, data size) of the type `cls` derives from: ffi.Object, another py_class,
    or a C++ type whose whole state is plain reflected fields (``ffi.Enum``). The data size is
    where a derived class's fields may start: a py_class's size without its tail padding, which C++
    (the Itanium ABI) reuses in derived classes, so that a C++ class mirroring the hierarchy has
    the same layout; MSVC does not reuse it."""
    for base in cls.__mro__[1:]:
        if base is Object:
            index, size = _core.type_key_to_index("ffi.Object"), _HEADER_SIZE
            break
        if "__ffi_py_class_size__" in base.__dict__:
            index, size = _core._class_type_index(base), base.__ffi_py_class_size__
            data_size = base.__ffi_py_class_data_size__
            return index, size, size if sys.platform == "win32" else data_size
        index = _core._class_type_index(base)
        if index >= 0 and _core._class_for_type_index(index) is base:
            size = _core._py_class_parent_size(index)
            if size < 0:
                raise TypeError(
                    f"py_class `{cls.__qualname__}` derives from `{_core._type_key(index)}`, a "
                    "type defined in C++ with state reflection does not describe; a class "
                    "defined in Python can derive from ffi.Object, another py_class or a C++ "
                    "type whose fields are all reflected"
                )
            break
    else:
        raise TypeError(f"py_class: {cls!r} must inherit from ffi.Object")
    return index, size, size


def _register_fields(index: int, start: int, specs: list[_Spec]) -> int:
    """Registers the fields after `start` bytes; returns where the last one ends."""
    convert_fn = _core._py_class_converter_address()
    make_getter = _core.get_global_func("ffi.MakeFieldGetter")
    make_setter = _core.get_global_func("ffi.MakeFieldSetter")
    offset = start
    for spec in specs:
        f, (size, align, static_index) = spec.field, spec.schema.layout
        offset = (offset + align - 1) // align * align
        conv = spec.schema.convert
        if conv is not None:
            _KEEP_ALIVE.append(conv)
        # convert_fn for every field (a NULL converter stores the value as it is): the reference's
        # runtime, serving the process when tvm_ffi came first, calls it unconditionally.
        setter = make_setter(static_index, id(conv) if conv else 0, convert_fn)
        flags = FieldFlag.WRITABLE | _structural_eq_bit(f.structural_eq)
        default: Any = None
        if f.default_factory is not MISSING:
            flags |= FieldFlag.HAS_DEFAULT | FieldFlag.DEFAULT_FROM_FACTORY
            default = f.default_factory
        elif f.default is not MISSING:
            flags |= FieldFlag.HAS_DEFAULT
            default = f.default
        for on, off_bit in (
            (f.init, FieldFlag.INIT_OFF),
            (f.repr, FieldFlag.REPR_OFF),
            (f.compare, FieldFlag.COMPARE_OFF),
        ):
            flags |= 0 if on else off_bit
        hashed = f.compare if f.hash is None else f.hash
        flags |= (0 if hashed else FieldFlag.HASH_OFF) | (FieldFlag.KW_ONLY if spec.kw_only else 0)
        metadata = json.dumps({**f.metadata, "type_schema": json.dumps(spec.schema.json)})
        _core._py_class_add_field(
            index, spec.name, f.doc, metadata, flags, size, align, offset, static_index,
            make_getter(static_index), setter, default,
        )  # fmt: skip
        offset += size
    return offset


def _lay_out(
    cls: type,
    index: int,
    start: int,
    parent_size: int,
    specs: list[_Spec],
    structural_eq: str | None,
) -> int:
    """Registers `specs` after `start` bytes in the new type `index` of `cls`, then its size
    (whole 8-byte words, at least its parent's), structural kind and type attribute columns;
    records the size on the class (for derived py_classes) and returns it."""
    data_size = _register_fields(index, start, specs)
    size = max((data_size + 7) // 8 * 8, parent_size, _HEADER_SIZE)
    _core._py_class_set_metadata(index, size, _STRUCTURE_KINDS[structural_eq], cls.__doc__)
    _core.get_global_func("ffi._PyClassRegisterTypeAttrColumns")(index, size)
    cls.__ffi_py_class_size__ = size  # type: ignore[attr-defined]
    cls.__ffi_py_class_data_size__ = data_size  # type: ignore[attr-defined]
    return size


def method(fn: Any) -> Any:
    """Mark a method of a ``py_class`` body to be published in the type's reflection table, so
    that C++ (or another package) finds it by name; a ``staticmethod`` is published as static.
    The class keeps the method as it is. Hooks the runtime calls (``__ffi_repr__``,
    ``__s_equal__``, ``__data_to_json__``, ...) need no mark: defining them publishes them."""
    if isinstance(fn, classmethod):
        raise TypeError(
            "@ffi.method: @classmethod is not supported (its first argument is the class); "
            "use a staticmethod or an instance method"
        )
    target = fn.__func__ if isinstance(fn, staticmethod) else fn
    if not callable(target):
        raise TypeError(f"@ffi.method expected a callable, not {type(fn).__name__}")
    target.__ffi_method__ = True
    return fn


def _collect_methods(cls: type) -> list[tuple[str, Any, bool | None]]:
    """The class body's hook type attributes and marked methods, as (name, value, is_static; None
    for a type attribute), checked before the type is registered."""
    out: list[tuple[str, Any, bool | None]] = []
    for name, value in cls.__dict__.items():
        target = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        if name in _TYPE_ATTR_NAMES:
            _core.convert(target)  # a value no FFI value can hold is a TypeError now
            out.append((name, target, None))
        elif getattr(target, "__ffi_method__", False) is True:
            if isinstance(value, classmethod):
                raise TypeError(
                    f"py_class `{cls.__qualname__}`: method `{name}` is wrapped by @classmethod, "
                    "which cannot be published (its first argument is the class)"
                )
            out.append((name, target, isinstance(value, staticmethod)))
    return out


def _publish_methods(index: int, methods: list[tuple[str, Any, bool | None]]) -> None:
    for name, value, is_static in methods:
        if is_static is None:
            _core._py_class_set_type_attr(index, name, value)
        else:
            _core._py_class_add_method(index, name, value, is_static, value.__doc__)


def _frame_names(depth: int) -> dict[str, Any]:
    """The local names of the frame `depth` levels above the caller: where a class is defined,
    for annotations naming classes local to a function."""
    return dict(sys._getframe(depth + 1).f_locals)


class _Deferred(typing.NamedTuple):
    """A py_class whose type is made once the names its annotations use exist."""

    key: str
    localns: dict[str, Any]
    options: ClassOptions
    type_options: dict[str, Any]  # _make_type's keywords
    own_new: Any  # the body's own __new__ (None: none), back in place once the type is made


# Classes waiting for the names their annotations use, in definition order.
_DEFERRED: dict[type, _Deferred] = {}


def _define(
    cls: _T,
    key: str,
    localns: dict[str, Any],
    options: ClassOptions,
    *,
    defer: bool = False,
    **type_options: Any,
) -> _T:
    """Makes `cls` the new object type `key`: what ``py_class`` does, with `localns` for the
    annotations, ``py_class``'s `options` and `type_options` (``kw_only``, ``structural_eq``).
    With `defer`, a class whose annotations name
    classes not defined yet (or whose base class waits so) waits for them: it is made when a
    later py_class definition makes them exist, or when it is first instantiated."""
    if not (isinstance(cls, type) and issubclass(cls, Object)):
        raise TypeError(f"py_class: {cls!r} must inherit from ffi.Object")
    try:
        _make_type(cls, key, localns, options, **type_options)
    except _Unresolved:
        if not defer:
            raise
        _wait(cls, key, localns, options, type_options)
        return cls
    _make_waiting_types({**localns, cls.__name__: cls})
    return cls


def _wait(
    cls: type,
    key: str,
    localns: dict[str, Any],
    options: ClassOptions,
    type_options: dict[str, Any],
) -> None:
    """Records `cls` as waiting; instantiating it first tries to make its type."""
    own_new = cls.__dict__.get("__new__")

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        _make_waiting_type(cls, sys._getframe(1).f_locals)
        return klass.__new__(klass, *args, **kwargs)  # the type's now (then its __init__)

    cls.__new__ = __new__  # type: ignore[method-assign]
    cls.__ffi_waiting_type_key__ = key  # type: ignore[attr-defined]
    _DEFERRED[cls] = _Deferred(key, localns, options, type_options, own_new)


def _try_waiting(cls: type, names: dict[str, Any]) -> None:
    """Makes the type of waiting `cls` with `names` visible too; _Unresolved when it still
    cannot be made (the class keeps waiting)."""
    waiting = _DEFERRED[cls]
    placeholder = cls.__dict__["__new__"]
    if waiting.own_new is None:
        del cls.__new__
    else:
        cls.__new__ = waiting.own_new  # type: ignore[method-assign]
    try:
        localns = {**waiting.localns, **names}
        _make_type(cls, waiting.key, localns, waiting.options, **waiting.type_options)
    except BaseException:
        cls.__new__ = placeholder  # type: ignore[method-assign]
        raise
    del _DEFERRED[cls]
    del cls.__ffi_waiting_type_key__  # type: ignore[attr-defined]


def _make_waiting_types(names: dict[str, Any]) -> None:
    """Makes every waiting type whose names now exist (`names`: those where a class was just
    defined), until no more can be made."""
    progress = True
    while progress and _DEFERRED:
        progress = False
        for cls in list(_DEFERRED):
            try:
                _try_waiting(cls, names)
            except Exception:  # still unresolved (or failing): reported when it is instantiated
                continue
            progress = True


def _make_waiting_type(cls: type, names: dict[str, Any]) -> None:
    """Makes the type of waiting `cls` (first instantiation); TypeError naming the annotations
    that still do not evaluate."""
    _make_waiting_types(names)
    if cls not in _DEFERRED:
        return
    try:
        _try_waiting(cls, names)
    except _Unresolved as exc:
        shown = "; ".join(f"{name}: {text}" for name, text in exc.failures)
        raise TypeError(
            f"Cannot instantiate {cls.__name__}: its type is not made yet because these "
            f"annotations do not resolve: {shown}"
        ) from None
    _make_waiting_types(names)


def _make_type(
    cls: type,
    key: str,
    localns: dict[str, Any],
    options: ClassOptions,
    *,
    kw_only: bool = False,
    structural_eq: str | None = "tree",
) -> None:
    """Registers the type of `cls` and finishes the class; _Unresolved (nothing registered)
    when an annotation or a base class waits for a name."""
    waiting_bases = [b.__name__ for b in cls.__mro__[1:] if b in _DEFERRED]
    if waiting_bases:
        raise _Unresolved([("base class", name) for name in waiting_bases])
    parent_index, parent_size, start = _parent(cls)
    specs = _declared_fields(cls, key, kw_only, localns)  # every check before the type exists
    inherited = {d.__name__: d for d in _core._type_fields(parent_index)}
    # An init_property redefining a base's init_property field recomputes that field.
    inherited_computed = {
        name
        for base in cls.__mro__[1:]
        for name, _ in base.__dict__.get("__ffi_init_properties__", ())
    }
    declared_in = {}  # the value each field name has in the body that declares it last
    for owner in _field_owners(cls):
        declared_in.update(
            {s.name: owner.__dict__[s.name] for s in specs if s.name in owner.__dict__}
        )
    overrides = {
        name
        for name, value in declared_in.items()
        if name in inherited_computed and isinstance(value, init_property)
    }
    declared = [s.name for s in specs]
    specs = [s for s in specs if s.name not in overrides]
    for spec in specs:
        if spec.name in inherited:
            raise TypeError(
                f"py_class `{cls.__qualname__}`: field `{spec.name}` is already a field of "
                f"`{_core._type_key(parent_index)}` (or its ancestors); a subclass cannot declare "
                "it again"
            )
    methods = _collect_methods(cls)
    index = _core._py_class_new_type(key, parent_index)
    _lay_out(cls, index, start, parent_size, specs, structural_eq)
    _publish_methods(index, methods)
    computed = tuple(
        (name, value.func)
        for name, value in declared_in.items()
        if isinstance(value, init_property)
    )
    cls.__ffi_init_properties__ = computed  # type: ignore[attr-defined]
    for name in declared:
        if name in cls.__dict__:
            delattr(cls, name)  # defaults live in the type now
    own_body = set(cls.__dict__)
    ffi_init = registry._bind_class(cls, key)
    frozen_fields = frozenset(s.name for s in specs if s.field.frozen)
    _dunders.finish_class(
        cls, key, own_body, ffi_init, options, frozen_fields=frozen_fields, py_class_mode=True
    )
    # fields() shows the defaults as the class body gave them (`list`, not the ffi.Function the
    # runtime holds for it).
    given = {spec.name: spec.field for spec in specs}
    for f in cls.__ffi_dataclass_fields__:  # type: ignore[attr-defined]
        spec_field = given.get(f.name)
        if spec_field is not None and spec_field.default_factory is not MISSING:
            f.default_factory = spec_field.default_factory


@dataclass_transform(eq_default=False, field_specifiers=(Field, field), converter=_field_converter)
def py_class(
    cls_or_type_key: Any = None,
    /,
    *,
    type_key: str | None = None,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    structural_eq: str | None = "tree",
    slots: bool = True,
) -> Any:
    """Define an FFI object type in Python: the class's annotated fields are stored in the object.

    Use bare (``@py_class``, type key ``<module>.<qualname>``) or with the type key
    (``@py_class("my.Node")``) and options. Fields take ``int``, ``float``, ``bool``, ``str``,
    ``bytes``, ``Optional``/unions, ``list[T]`` (an ``ffi.List``), ``tuple[T, ...]`` (an
    ``ffi.Array``), ``dict[K, V]`` (an ``ffi.Dict``), ``Callable``, ``ffi.dtype``,
    ``ffi.Device``, ``ffi.Object`` subclasses and ``Any``; each write (in ``__init__``, by
    assignment, from C++) is converted or refused with a TypeError. Defaults are plain values
    or ``field(default_factory=...)``; ``_: KW_ONLY`` and ``kw_only=True`` make fields
    keyword-only. The class derives from ``ffi.Object`` or another ``py_class``.

    The options are ``c_class``'s (``init``, ``repr``, ``eq``, ``order`` (needs ``eq``),
    ``unsafe_hash``, ``frozen``, ``match_args``), plus ``kw_only`` and ``structural_eq``: how
    :func:`ffi.structural_equal` treats the type (``"tree"``, ``"var"``, ``"dag"``,
    ``"const-tree"``, ``"singleton"`` or None). ``__post_init__`` runs after the generated
    ``__init__``; an ``__init__`` of the class body gets a fresh object whose fields it sets.
    ``slots`` is accepted for compatibility. A type key already registered is a ValueError.
    """
    del slots
    localns = _frame_names(1)
    options = ClassOptions(frozen, init, repr, eq, order, unsafe_hash, match_args)
    if structural_eq not in _STRUCTURE_KINDS:
        raise ValueError(
            f"structural_eq must be one of {sorted(k for k in _STRUCTURE_KINDS if k)} or None, "
            f"not {structural_eq!r}"
        )

    def decorate(cls: _T) -> _T:
        key = type_key or f"{cls.__module__}.{cls.__qualname__}"
        type_options = {"kw_only": kw_only, "structural_eq": structural_eq}
        return _define(cls, key, localns, options, defer=True, **type_options)

    if isinstance(cls_or_type_key, str):
        type_key = cls_or_type_key
        return decorate
    if cls_or_type_key is None:
        return decorate
    if isinstance(cls_or_type_key, type):
        return decorate(cls_or_type_key)
    raise TypeError(f"py_class: expected a class or a type key, not {cls_or_type_key!r}")
