"""Field descriptions of dataclass-style FFI classes: :class:`Field`, :func:`field`, MISSING.

:class:`Field` itself is a type description (``TypeField.dataclass_field`` is one), defined with
the others in ``ffi._type_info``; this module adds what class bodies write."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .._type_info import (
    _STRUCTURAL_EQ_BITS,
    MISSING,
    Field,
    _field_converter,
)

try:
    from dataclasses import KW_ONLY
except ImportError:  # Python 3.9

    class KW_ONLY:  # type: ignore[no-redef]
        """Annotations after ``_: KW_ONLY`` are keyword-only (Python 3.10's sentinel)."""


def _is_kw_only_marker(annotation: Any, globalns: dict[str, Any], localns: dict[str, Any]) -> bool:
    """Whether `annotation` is the ``KW_ONLY`` marker, written as itself or as text naming it."""
    if annotation is KW_ONLY:
        return True
    if not isinstance(annotation, str) or "KW_ONLY" not in annotation:
        return False
    try:
        return eval(annotation, globalns, localns) is KW_ONLY  # noqa: S307 (as get_type_hints)
    except Exception:
        return False


def _type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, less the ``_: KW_ONLY`` markers. Python 3.10's typing
    refuses the marker (dataclasses.KW_ONLY is an instance there, not a type; 3.11 accepts it,
    3.9 has our class): there each class of the MRO is evaluated again without them, with the
    names get_type_hints gives it (the class's own, then its module's). Raises what
    get_type_hints raises."""
    try:
        return typing.get_type_hints(cls)
    except TypeError:
        if sys.version_info[:2] != (3, 10):
            raise
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        annotations = base.__dict__.get("__annotations__")
        if not isinstance(annotations, dict) or not annotations:
            continue
        module = sys.modules.get(base.__module__)
        # get_type_hints(cls) on 3.10 evaluates with the class's names as globals and the
        # module's as locals (so that the module's come first).
        classns, modulens = dict(vars(base)), dict(vars(module)) if module is not None else {}
        kept = {
            n: a for n, a in annotations.items() if not _is_kw_only_marker(a, classns, modulens)
        }
        proxy = type(base.__name__, (), {"__annotations__": kept})
        hints.update(typing.get_type_hints(proxy, globalns=classns, localns=modulens))
    return hints


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
