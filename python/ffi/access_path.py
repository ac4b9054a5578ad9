"""Access paths: where a value sits inside another, as the steps that reach it from a root.

:func:`ffi.get_first_structural_mismatch` reports where two values differ as a pair of paths.
Paths are immutable and share their prefixes::

    from ffi.access_path import AccessPath

    p = AccessPath.root().attr("layer").array_item(2)   # root.layer[2]
    [step.key for step in p.to_steps()]                  # ["layer", 2]

The classes are the runtime's ``ffi.reflection.AccessPath`` / ``ffi.reflection.AccessStep`` (bound
to those types by ``ffi._bootstrap``), the same objects the reference's package sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from . import _abi, _core
from ._core import Object

__all__ = ["AccessKind", "AccessPath", "AccessStep"]

_structural_hash = _core.get_global_func("ffi.StructuralHash")
_U64 = (1 << 64) - 1


class AccessKind(IntEnum):
    """How one step goes from a value to a part of it (the runtime's numbering)."""

    ATTR = _abi.AccessKind.ATTR
    """The field named by the key."""
    ARRAY_ITEM = _abi.AccessKind.ARRAY_ITEM
    """The element at the key (an index)."""
    MAP_ITEM = _abi.AccessKind.MAP_ITEM
    """The value under the key."""
    ATTR_MISSING = _abi.AccessKind.ATTR_MISSING
    """A field the other side of a comparison has and this side lacks."""
    ARRAY_ITEM_MISSING = _abi.AccessKind.ARRAY_ITEM_MISSING
    """An element past this side's end."""
    MAP_ITEM_MISSING = _abi.AccessKind.MAP_ITEM_MISSING
    """A key this side lacks."""


class AccessStep(Object):
    """One step of a path: ``kind`` (an :class:`AccessKind` value) and ``key`` (field name,
    index or map key)."""

    kind: int
    key: Any


class AccessPath(Object):
    """A path from a root value: ``parent`` (None for the root), ``step`` (None for the root)
    and ``depth`` (the number of steps). Start one with :meth:`root`."""

    parent: AccessPath | None
    step: AccessStep | None
    depth: int

    def __init__(self) -> None:
        raise ValueError(
            "AccessPath cannot be constructed directly: start from AccessPath.root() and extend it"
        )

    @staticmethod
    def root() -> AccessPath:
        """The empty path: the root value itself."""
        return AccessPath._root()  # type: ignore[attr-defined, no-any-return]

    def attr(self, name: str) -> AccessPath:
        """This path followed by the field `name`."""
        return self._attr(name)  # type: ignore[attr-defined, no-any-return]

    def attr_missing(self, name: str) -> AccessPath:
        """This path followed by the field `name`, missing on this side."""
        return self._attr_missing(name)  # type: ignore[attr-defined, no-any-return]

    def array_item(self, index: int) -> AccessPath:
        """This path followed by the element at `index`."""
        return self._array_item(index)  # type: ignore[attr-defined, no-any-return]

    def array_item_missing(self, index: int) -> AccessPath:
        """This path followed by the element at `index`, past this side's end."""
        return self._array_item_missing(index)  # type: ignore[attr-defined, no-any-return]

    def map_item(self, key: Any) -> AccessPath:
        """This path followed by the value under `key`."""
        return self._map_item(key)  # type: ignore[attr-defined, no-any-return]

    def map_item_missing(self, key: Any) -> AccessPath:
        """This path followed by the value under `key`, absent on this side."""
        return self._map_item_missing(key)  # type: ignore[attr-defined, no-any-return]

    def extend(self, step: AccessStep) -> AccessPath:
        """This path followed by `step`."""
        return self._extend(step)  # type: ignore[attr-defined, no-any-return]

    def is_prefix_of(self, other: AccessPath) -> bool:
        """Whether `other` starts with this path's steps (a path is a prefix of itself)."""
        return bool(self._is_prefix_of(other))  # type: ignore[attr-defined]

    def to_steps(self) -> Sequence[AccessStep]:
        """The steps from the root, first step first."""
        return self._to_steps()  # type: ignore[attr-defined, no-any-return]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AccessPath) and bool(self._path_equal(other))  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        # ffi.structural_hash(self), which builds on this module: equal paths hash alike.
        return int(_structural_hash(self, False, False)) & _U64

    def __repr__(self) -> str:
        # The runtime's form, as the reference shows a path: <root>.a[1][<missing:"k">]
        return _core.get_global_func("ffi.ReprPrint")(self)  # type: ignore[no-any-return]
