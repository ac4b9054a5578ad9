"""Dataclass-style Python classes for C++ object types, as the reference's ``tvm_ffi.dataclasses``.

``c_class`` binds a class to a C++ type like :func:`ffi.register_object` and, from the type's
reflection (field traits declared with ``refl::default_value``, ``default_factory``, ``kw_only``,
``init(false)``, ``repr(false)``, ``compare(false)``, ``hash(false)``), gives it what
:func:`dataclasses.dataclass` gives a Python class: an ``__init__`` with a real signature, a
``__repr__``, optional equality, ordering and hashing (the runtime's recursive comparisons),
``__match_args__`` and ``__replace__``. :func:`fields`, :func:`asdict`, :func:`astuple`,
:func:`replace` and :func:`is_dataclass` work on such classes and their instances::

    @ffi.dataclasses.c_class("my.Point", eq=True)
    class Point(ffi.Object):
        x: int
        y: float

    p = Point(1, y=2.0)
    ffi.dataclasses.asdict(p)                   # {'x': 1, 'y': 2.0}
    ffi.dataclasses.replace(p, x=3) == Point(3, 2.0)

The C++ type is the source of truth: a ``field(...)`` in the class body only documents the field.
"""

from __future__ import annotations

import copy
import inspect
import json
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from . import _core, registry
from ._core import Function
from .containers import Array, Dict, List, Map

__all__ = [
    "KW_ONLY",
    "MISSING",
    "Field",
    "asdict",
    "astuple",
    "c_class",
    "field",
    "fields",
    "is_dataclass",
    "replace",
]

_T = TypeVar("_T", bound=type)


class _MissingType:
    """The type of :data:`MISSING`."""

    _instance: _MissingType | None = None

    def __new__(cls) -> _MissingType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<MISSING>"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _MissingType()
"""No value given: a field without a default, an argument left to the C++ default."""

try:
    from dataclasses import KW_ONLY
except ImportError:  # Python 3.9

    class KW_ONLY:  # type: ignore[no-redef]
        """Annotations after ``_: KW_ONLY`` are keyword-only (Python 3.10's sentinel)."""


# Field flag bits (TVMFFIFieldFlagBitMask in <ffi/c_reflection_api.h>).
_WRITABLE = 1 << 0
_HAS_DEFAULT = 1 << 1
_DEFAULT_FROM_FACTORY = 1 << 5
_REPR_OFF = 1 << 6
_COMPARE_OFF = 1 << 7
_HASH_OFF = 1 << 8
_INIT_OFF = 1 << 9
_KW_ONLY = 1 << 10


class Field:
    """One field of a dataclass-style FFI class, as :func:`fields` reports it.

    ``default`` is the default value or :data:`MISSING`; ``default_factory`` a callable making
    it, or :data:`MISSING`. ``init``, ``repr``, ``compare``, ``hash`` and ``kw_only`` say whether
    the field is in the constructor, the repr, comparisons and hashing, and taken by keyword only;
    ``frozen`` whether plain assignment is refused; ``type`` is the class's annotation (None when
    there is none), ``doc`` the field's documentation and ``metadata`` its user metadata.
    """

    __slots__ = (
        "compare",
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
        compare: bool = True,
        kw_only: bool = False,
        frozen: bool = False,
        doc: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        if default_factory is not MISSING and not callable(default_factory):
            raise TypeError(
                f"default_factory must be callable, not {type(default_factory).__name__}"
            )
        self.name = name
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = compare if hash is None else hash
        self.compare = compare
        self.kw_only = kw_only
        self.frozen = frozen
        self.doc = doc
        self.metadata = dict(metadata or {})

    def __repr__(self) -> str:
        shown = ", ".join(f"{slot}={getattr(self, slot)!r}" for slot in self.__slots__)
        return f"Field({shown})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    kw_only: bool = False,
    doc: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Any:
    """A field specifier for a class body (``x: int = field(kw_only=True)``).

    On a ``c_class`` the C++ reflection declares the field; the specifier is removed from the
    class body so that it cannot hide the field, and its options are not applied.
    """
    return Field(
        default=default,
        default_factory=default_factory,
        init=init,
        repr=repr,
        hash=hash,
        compare=compare,
        kw_only=kw_only,
        doc=doc,
        metadata=metadata,
    )


def _field_from_reflection(desc: Any, hints: dict[str, Any], frozen: bool) -> Field:
    """A :class:`Field` describing the reflected field behind descriptor `desc`."""
    flags = desc.flags
    default: Any = MISSING
    factory: Any = MISSING
    if flags & _HAS_DEFAULT:
        if flags & _DEFAULT_FROM_FACTORY:
            factory = desc._default
        else:
            default = desc._default
    metadata = json.loads(desc.metadata) if desc.metadata else {}
    metadata.pop("type_schema", None)
    out = Field(
        desc.__name__,
        default=default,
        default_factory=factory,
        init=not flags & _INIT_OFF,
        repr=not flags & _REPR_OFF,
        hash=not flags & _HASH_OFF,
        compare=not flags & _COMPARE_OFF,
        kw_only=bool(flags & _KW_ONLY),
        frozen=frozen or not flags & _WRITABLE,
        doc=desc.__doc__,
        metadata=metadata,
    )
    out.type = hints.get(desc.__name__)
    return out


def _init_signature(fs: tuple[Field, ...]) -> inspect.Signature:
    """The generated constructor's signature: required positional fields, then defaulted ones,
    then keyword-only ones (required first); defaults show as MISSING (C++ fills them in)."""
    init = [f for f in fs if f.init]

    def has_default(f: Field) -> bool:
        return f.default is not MISSING or f.default_factory is not MISSING

    positional = [f for f in init if not f.kw_only]
    keyword = [f for f in init if f.kw_only]
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for group, kind in (
        (positional, inspect.Parameter.POSITIONAL_OR_KEYWORD),
        (keyword, inspect.Parameter.KEYWORD_ONLY),
    ):
        for f in sorted(group, key=has_default):  # stable: required first, order kept
            default = MISSING if has_default(f) else inspect.Parameter.empty
            params.append(inspect.Parameter(f.name, kind, default=default, annotation=_annot(f)))
    return inspect.Signature(params)


def _annot(f: Field) -> Any:
    return f.type if f.type is not None else inspect.Parameter.empty


def _install_init(
    cls: type, own_body: set[str], ffi_init: Function | None, fs: tuple[Field, ...], init: bool
) -> None:
    """``__ffi_init__`` and, unless the class body defines one, ``__init__``: through the type's
    constructor, with a signature from the fields when the runtime generated that constructor
    (no ``refl::init<...>``); keyword arguments given as MISSING are left to their default.
    Without a constructor, or with ``init=False``, ``__init__`` refuses."""
    registry._install_init(cls, ffi_init)
    if "__init__" in own_body:
        return
    if not init or ffi_init is None:
        name = cls.__name__
        reason = "init=False" if not init else "its C++ type registers no constructor"

        def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
            raise TypeError(
                f"`{name}` cannot be constructed directly ({reason}): define __init__ or use a "
                "factory function"
            )

        refuse.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = refuse  # type: ignore[misc]
        return
    construct = cls.__ffi_init__  # type: ignore[attr-defined]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            kwargs = {k: v for k, v in kwargs.items() if v is not MISSING}
        construct(self, *args, **kwargs)

    generated = _core._type_attr(_core._class_type_index(cls), "__ffi_init__")
    if generated is not None and generated.same_as(ffi_init):
        __init__.__signature__ = _init_signature(fs)  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = ffi_init.__doc__
    cls.__init__ = __init__  # type: ignore[misc]


def _comparable(a: Any, b: Any) -> bool:
    return isinstance(b, type(a)) or isinstance(a, type(b))


def _install_comparisons(cls: type, eq: bool, order: bool, unsafe_hash: bool, frozen: bool) -> None:
    """``__eq__``/``__ne__``, the orderings and ``__hash__`` through the runtime's recursive
    comparison (``ffi.RecursiveEq``, ``RecursiveLt``, ..., ``RecursiveHash``), which skip fields
    declared ``compare(false)`` / ``hash(false)``; unrelated types give NotImplemented. Hashing
    follows :func:`dataclasses.dataclass`: by the fields with ``unsafe_hash``, or ``eq`` and
    ``frozen``; with ``eq`` alone instances are unhashable (equal ones would hash apart)."""
    own = set(cls.__dict__)  # after register_object: what it sets is never a comparison

    def make(global_name: str, negate: bool = False) -> Callable[[Any, Any], Any]:
        impl = _core.get_global_func(global_name)

        def compare(self: Any, other: Any) -> Any:
            if not _comparable(self, other):
                return NotImplemented
            result = bool(impl(self, other))
            return not result if negate else result

        return compare

    if eq and not own & {"__eq__", "__ne__"}:
        cls.__eq__ = make("ffi.RecursiveEq")  # type: ignore[method-assign,assignment]
        cls.__ne__ = make("ffi.RecursiveEq", negate=True)  # type: ignore[method-assign,assignment]
    if order and not own & {"__lt__", "__le__", "__gt__", "__ge__"}:
        for op in ("lt", "le", "gt", "ge"):
            setattr(cls, f"__{op}__", make(f"ffi.Recursive{op.capitalize()}"))
    if "__hash__" in own:
        return
    if unsafe_hash or (eq and frozen):
        recursive_hash = _core.get_global_func("ffi.RecursiveHash")
        cls.__hash__ = lambda self: recursive_hash(self)  # type: ignore[method-assign,assignment]
    elif eq:
        cls.__hash__ = None  # type: ignore[assignment]


def _replace(self: Any, **changes: Any) -> Any:
    """A shallow copy (the C++ copy constructor) with `changes` written into it, frozen and
    read-only fields included."""
    by_name = {f.__name__: f for f in _core._type_fields(self.type_index)}
    unknown = [name for name in changes if name not in by_name]
    if unknown:
        raise TypeError(f"{type(self).__name__}.__replace__() got unknown field(s) {unknown}")
    out = copy.copy(self)
    for name, value in changes.items():
        by_name[name].set(out, value)
    return out


def c_class(
    type_key: str,
    *,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    match_args: bool = True,
) -> Callable[[_T], _T]:
    """Bind a class to the C++ type `type_key` (as :func:`ffi.register_object`) with dataclass
    behaviour from the type's reflection.

    - ``init``: an ``__init__`` through the reflected constructor; for the constructor the runtime
      generates from the fields its signature honours ``kw_only``, defaults and ``init(false)``.
      With ``init=False`` the class cannot be constructed directly.
    - ``repr``: ``__repr__`` prints the fields (``ffi.ReprPrint``), leaving out ``repr(false)``.
    - ``eq`` / ``order`` / ``unsafe_hash``: equality, ordering and hashing by the runtime's
      recursive comparison of the fields (``compare(false)``/``hash(false)`` ones left out).
    - ``frozen``: the type's own fields refuse assignment; ``type(obj).name.set(obj, value)``
      still writes (and :func:`replace` uses it).
    - ``match_args``: ``__match_args__`` lists the positional constructor fields.

    What the class body defines itself is kept. An unknown `type_key` is a ValueError.
    """

    def decorate(cls: _T) -> _T:
        for name, value in list(cls.__dict__.items()):
            if isinstance(value, Field):
                delattr(cls, name)
        own_body = set(cls.__dict__)
        ffi_init = registry._bind_class(cls, type_key)
        descriptors = _core._type_fields(_core.type_key_to_index(type_key))
        # Frozen: this type's own fields, and those an ancestor class froze.
        frozen_names = set().union(*(getattr(b, "__ffi_frozen_fields__", ()) for b in cls.__mro__))
        if frozen:
            frozen_names |= {d.__name__ for d in descriptors if d._owner == type_key}
        for d in descriptors:
            if d.__name__ in frozen_names and d.__name__ not in own_body and d.writable:
                setattr(cls, d.__name__, d._frozen())
        cls.__ffi_frozen_fields__ = frozenset(frozen_names)  # type: ignore[attr-defined]
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # unresolvable annotations only lose Field.type
            hints = {}
        fs = tuple(
            _field_from_reflection(d, hints, d.__name__ in frozen_names) for d in descriptors
        )
        cls.__ffi_dataclass_fields__ = fs  # type: ignore[attr-defined]
        _install_init(cls, own_body, ffi_init, fs, init)
        if repr and "__repr__" not in own_body:
            cls.__repr__ = _repr  # type: ignore[method-assign,assignment]
        _install_comparisons(cls, eq, order, unsafe_hash, frozen)
        if "__replace__" not in own_body:
            cls.__replace__ = _replace  # type: ignore[attr-defined]
        if match_args and "__match_args__" not in own_body:
            cls.__match_args__ = tuple(  # type: ignore[attr-defined]
                f.name for f in fs if f.init and not f.kw_only
            )
        cls.__ffi_is_dataclass__ = True  # type: ignore[attr-defined]
        return cls

    return decorate


def _repr(self: Any) -> str:
    return str(_core.get_global_func("ffi.ReprPrint")(self))


# ---- the helpers over dataclass classes and instances --------------------------------------------


def is_dataclass(obj: Any) -> bool:
    """Whether `obj` is a ``c_class`` class or an instance of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return getattr(cls, "__ffi_is_dataclass__", False) is True


def fields(obj_or_cls: Any) -> tuple[Field, ...]:
    """The :class:`Field` of every field of a ``c_class`` class or instance, inherited ones first
    (the constructor's order). Anything else is a TypeError."""
    if not is_dataclass(obj_or_cls):
        raise TypeError(
            "fields() needs a c_class class or instance, not "
            f"{type(obj_or_cls).__name__ if not isinstance(obj_or_cls, type) else obj_or_cls}"
        )
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    return cls.__ffi_dataclass_fields__  # type: ignore[no-any-return]


def replace(obj: Any, /, **changes: Any) -> Any:
    """A copy of the ``c_class`` instance `obj` with the given fields replaced (frozen ones too):
    :func:`dataclasses.replace` for FFI objects. Needs the type's copy constructor."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("replace() needs a c_class instance")
    return obj.__replace__(**changes)


_ATOMIC = (bool, bytes, complex, float, int, str, type(None))


def _plain(value: Any, as_dict: bool, factory: Callable[..., Any]) -> Any:
    """`value` as plain Python data: dataclass instances become dicts (or tuples) made by
    `factory`, FFI sequences lists, FFI maps dicts; built-in containers are rebuilt around
    converted items; anything else is deep-copied."""

    def conv(v: Any) -> Any:
        return _plain(v, as_dict, factory)

    t = type(value)
    if t in _ATOMIC:
        return value
    if isinstance(value, (Array, List)):
        return [conv(v) for v in value]
    if isinstance(value, (Map, Dict)):
        pairs = [(conv(k), conv(v)) for k, v in value.items()]
        return factory(pairs) if as_dict else dict(pairs)
    if is_dataclass(value) and not isinstance(value, type):
        items = [(f.name, conv(getattr(value, f.name))) for f in fields(value)]
        return factory(items) if as_dict else factory([v for _, v in items])
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return t(*[conv(v) for v in value])
    if isinstance(value, (list, tuple)):
        return t(conv(v) for v in value)
    if isinstance(value, dict):
        items = [(conv(k), conv(v)) for k, v in value.items()]
        if hasattr(t, "default_factory"):  # a defaultdict
            out = t(value.default_factory)
            out.update(items)
            return out
        return t(items)
    return copy.deepcopy(value)


def asdict(obj: Any, *, dict_factory: Callable[..., Any] = dict) -> Any:
    """The fields of a ``c_class`` instance as a new dict, recursively: nested dataclass instances
    become dicts (made by `dict_factory`), FFI sequences lists and FFI maps dicts."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("asdict() needs a c_class instance")
    return _plain(obj, True, dict_factory)


def astuple(obj: Any, *, tuple_factory: Callable[..., Any] = tuple) -> Any:
    """The field values of a ``c_class`` instance as a new tuple, recursively: nested dataclass
    instances become tuples (made by `tuple_factory`), FFI sequences lists and FFI maps dicts."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("astuple() needs a c_class instance")
    return _plain(obj, False, tuple_factory)
