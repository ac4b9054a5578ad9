"""Dataclass instances to tuples, for positional-only callables (see ``kwargs_wrapper``).

``unpack_dataclass_to_tuple(value)``: a dataclass instance becomes the tuple of its fields in
declaration order, each unpacked in turn; lists, tuples and dict values are unpacked element by
element (keeping their container type); anything else is returned as is. Leaves are not copied.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# Field names per dataclass type, computed once: dataclasses.fields() is slow on the call path.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_LEAVES = frozenset({int, float, str, bool, bytes, complex, type(None)})


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_NAMES[cls] = names
    return names


def unpack_dataclass_to_tuple(value: Any) -> Any:
    """`value` with every dataclass instance in it replaced by the tuple of its fields."""
    cls = type(value)
    if cls in _LEAVES:
        return value
    if cls is list:
        return [unpack_dataclass_to_tuple(v) for v in value]
    if cls is tuple:
        return tuple(unpack_dataclass_to_tuple(v) for v in value)
    if cls is dict:
        return {k: unpack_dataclass_to_tuple(v) for k, v in value.items()}
    if dataclasses.is_dataclass(cls):
        return tuple(unpack_dataclass_to_tuple(getattr(value, n)) for n in _field_names(cls))
    return value


__all__ = ["unpack_dataclass_to_tuple"]
