"""``dataclasses``-style helpers over ``c_class`` / ``py_class`` classes and instances."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..container import Array, Dict, List, Map
from .field import Field


def is_dataclass(obj: Any) -> bool:
    """Whether `obj` is a ``c_class`` / ``py_class`` class or an instance of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return getattr(cls, "__ffi_is_dataclass__", False) is True


def fields(obj_or_cls: Any) -> tuple[Field, ...]:
    """The :class:`Field` of every field of a ``c_class`` / ``py_class`` class or instance,
    inherited ones first (the constructor's order). Anything else is a TypeError."""
    if not is_dataclass(obj_or_cls):
        raise TypeError(
            "fields() needs a c_class or py_class class or instance, not "
            f"{type(obj_or_cls).__name__ if not isinstance(obj_or_cls, type) else obj_or_cls}"
        )
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    return cls.__ffi_dataclass_fields__  # type: ignore[no-any-return]


def replace(obj: Any, /, **changes: Any) -> Any:
    """A copy of the ``c_class`` instance `obj` with the given fields replaced (frozen ones too):
    :func:`dataclasses.replace` for FFI objects. Needs the type's copy constructor."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("replace() should be called on c_class / py_class instances")
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
    """The fields of a ``c_class`` / ``py_class`` instance as a new dict, recursively: nested
    dataclass instances become dicts (made by `dict_factory`), FFI sequences lists and FFI maps
    dicts."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on c_class / py_class instances")
    return _plain(obj, True, dict_factory)


def astuple(obj: Any, *, tuple_factory: Callable[..., Any] = tuple) -> Any:
    """The field values of a ``c_class`` / ``py_class`` instance as a new tuple, recursively:
    nested dataclass instances become tuples (made by `tuple_factory`), FFI sequences lists and FFI
    maps dicts."""
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("astuple() should be called on c_class / py_class instances")
    return _plain(obj, False, tuple_factory)
