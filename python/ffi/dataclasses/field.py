"""Field descriptions of dataclass-style FFI classes: :class:`Field`, :func:`field`, MISSING."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .._type_info import (
    _COMPARE_OFF,
    _DEFAULT_FROM_FACTORY,
    _HAS_DEFAULT,
    _HASH_OFF,
    _INIT_OFF,
    _KW_ONLY,
    _REPR_OFF,
    _STRUCTURAL_EQ_BITS,
    _WRITABLE,
    MISSING,
    _structural_eq_of,
)

try:
    from dataclasses import KW_ONLY
except ImportError:  # Python 3.9

    class KW_ONLY:  # type: ignore[no-redef]
        """Annotations after ``_: KW_ONLY`` are keyword-only (Python 3.10's sentinel)."""


_STRUCTURAL_EQ_VALUES = frozenset({None, "def", *_STRUCTURAL_EQ_BITS})

_T = TypeVar("_T")

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:

    def dataclass_transform(**kwargs: Any) -> Callable[[_T], _T]:
        """What ``typing.dataclass_transform`` records at run time (Python 3.11+ has it)."""

        def mark(decorator: _T) -> _T:
            decorator.__dataclass_transform__ = {  # type: ignore[attr-defined]
                "eq_default": kwargs.pop("eq_default", True),
                "order_default": kwargs.pop("order_default", False),
                "kw_only_default": kwargs.pop("kw_only_default", False),
                "frozen_default": kwargs.pop("frozen_default", False),
                "field_specifiers": kwargs.pop("field_specifiers", ()),
                "kwargs": kwargs,
            }
            return decorator

        return mark


class init_property(Generic[_T]):  # noqa: N801 (the reference's name)
    """A field of a ``py_class`` computed from the others when an object is made::

        @py_class("my.Rect")
        class Rect(ffi.Object):
            w: int
            h: int

            @init_property
            def area(self) -> int:
                return self.w * self.h

    ``area`` becomes a stored field (not an ``__init__`` parameter, ignored by structural
    equality) typed by the function's return annotation (``Any`` without one), so C++ reads it
    like any other field. The function runs once per object, right after the fields are set by
    the generated ``__init__`` and before ``__post_init__``.
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        if not callable(func):
            raise TypeError(f"init_property needs a function, not {type(func).__name__}")
        self.func = func
        self.name: str | None = None
        self.__doc__ = getattr(func, "__doc__", None)

    def __set_name__(self, owner: type, name: str) -> None:
        # The field's annotation, added to the class body's own so py_class sees a typed field.
        self.name = name
        annotations = owner.__dict__.get("__annotations__")
        if annotations is None:
            annotations = {}
            owner.__annotations__ = annotations
        annotations[name] = getattr(self.func, "__annotations__", {}).get("return", Any)

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self


def _structural_eq_bit(value: str | None) -> int:
    """The flag bit of a ``structural_eq`` value (0 for None)."""
    return _STRUCTURAL_EQ_BITS["def-pattern" if value == "def" else value] if value else 0


def _field_converter(value: Any) -> Any:
    """The `converter` every field has, for type checkers (PEP 681): a constructor argument may be
    anything its annotation converts from (a list for an ``Array[int]`` field); at run time values
    are converted by the field's annotation, so it returns `value` as it is."""
    return value


class Field:
    """One field of a dataclass-style FFI class, as :func:`fields` reports it.

    ``default`` is the default value or :data:`MISSING`; ``default_factory`` a callable making
    it, or :data:`MISSING`. ``init``, ``repr``, ``compare``, ``hash`` and ``kw_only`` say whether
    the field is in the constructor, the repr, comparisons and hashing, and taken by keyword only
    (``hash`` None: as ``compare``; ``kw_only`` None, on a specifier not yet applied: as the
    class says); ``frozen`` whether plain assignment is refused; ``type`` is the class's
    annotation (None when there is none), ``doc`` the field's documentation and ``metadata`` its
    user metadata. Made directly, a Field is left out of comparisons unless `compare` says so (as
    the reference's is); :func:`field` puts it in by default. ``_ty_schema``, the
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


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    kw_only: bool | None = None,
    frozen: bool = False,
    doc: str | None = None,
    metadata: dict[str, Any] | None = None,
    structural_eq: str | None = None,
    converter: Callable[[Any], Any] = _field_converter,
) -> Any:
    """A field specifier for a class body (``x: int = field(kw_only=True)``).

    On a ``py_class`` it declares the field's default (or `default_factory`, called for each
    object), whether it is in ``__init__`` (`init`), keyword-only, in the repr, in comparisons
    and hashing, frozen, its `doc` and how it takes part in structural equality. On a ``c_class``
    the C++ reflection declares the field; the specifier is removed from the class body so that it
    cannot hide the field, and its options are not applied. `hash` None follows `compare`;
    `kw_only` None follows the class (``kw_only=True`` or after ``_: KW_ONLY``), so False makes a
    field positional in a keyword-only class. `converter` is kept on the Field as the reference
    does, a marker for static analysis (see ``_field_converter``); writes are always converted by
    the field's annotation.
    """
    return Field(
        default=default,
        default_factory=default_factory,
        init=init,
        repr=repr,
        hash=hash,
        compare=compare,
        kw_only=kw_only,
        frozen=frozen,
        doc=doc,
        metadata=metadata,
        structural_eq=structural_eq,
        converter=converter,
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
        structural_eq=_structural_eq_of(flags),
    )
    out.type = hints.get(desc.__name__)
    return out


def _enum_member_converter(cls: type) -> Callable[[Any], Any] | None:
    """For a field holding a member of `cls`, when it is an ``IntEnum``/``StrEnum`` class (which
    ``enum`` marks with ``__ffi_enum_payload__``), else None: members pass, an index of the enum's
    payload type becomes its member, anything else is a TypeError."""
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
