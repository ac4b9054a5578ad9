"""Structural equality and hashing: whether two values have the same structure, with variables
compared up to renaming.

Containers compare by content (maps whatever their order), tensors by dtype, device, shape and
(unless ``skip_tensor_content``) content, reflected objects by the structural kind their C++ type
declares (``_type_s_eq_hash_kind``: tree, const-tree, DAG, free variable or unique instance) and
the field flags ``SEqHashIgnore`` / ``SEqHashDefPattern`` / ``SEqHashDefSimple``. An object whose
type declares no kind is a TypeError. The rules are in docs/structural.md; the runtime implements
them (``ffi.StructuralEqual``, ``ffi.StructuralHash``, ``ffi.GetFirstStructuralMismatch``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Union

from . import _core
from ._core import Object
from .registry import register_object

if TYPE_CHECKING:
    from .access_path import AccessPath

__all__ = [
    "DefRegionKind",
    "StructuralKey",
    "VisitInterrupt",
    "WalkOrder",
    "WalkResult",
    "get_first_structural_mismatch",
    "structural_equal",
    "structural_hash",
    "structural_walk",
]

_equal = _core.get_global_func("ffi.StructuralEqual")
_hash = _core.get_global_func("ffi.StructuralHash")
_mismatch = _core.get_global_func("ffi.GetFirstStructuralMismatch")
_make_key = _core.get_global_func("ffi.StructuralKey")
_keys_equal = _core.get_global_func("ffi.StructuralKeyEqual")
_walk = _core.get_global_func("ffi.StructuralWalk")
_make_interrupt = _core.get_global_func("ffi.VisitInterrupt")

_U64 = (1 << 64) - 1


def structural_equal(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> bool:
    """Whether `lhs` and `rhs` are structurally equal.

    With `map_free_vars`, free variables outside any definition may bind to each other (otherwise
    an unbound variable equals only itself). With `skip_tensor_content`, tensors compare by dtype,
    device and shape only (content comparison needs host memory: ValueError for device tensors).
    Python lists, tuples and dicts convert as in any call::

        ffi.structural_equal({"a": [1, 2]}, {"a": [1, 2]})   # True
    """
    return bool(_equal(lhs, rhs, map_free_vars, skip_tensor_content))


def structural_hash(
    value: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> int:
    """A hash of `value` consistent with :func:`structural_equal` (equal values hash alike), as an
    unsigned 64-bit integer; the options as there."""
    return int(_hash(value, map_free_vars, skip_tensor_content)) & _U64


def get_first_structural_mismatch(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> tuple[AccessPath, AccessPath] | None:
    """Where `lhs` and `rhs` first differ, as ``(path into lhs, path into rhs)``, or None when
    they are structurally equal; the options as :func:`structural_equal`."""
    found = _mismatch(lhs, rhs, map_free_vars, skip_tensor_content)
    return None if found is None else (found[0], found[1])


@register_object("ffi.StructuralKey", init=False)
class StructuralKey(Object):
    """A value that dicts (and :class:`ffi.Map`) find by structure instead of identity::

        cache = {ffi.StructuralKey([1, {"a": 2}]): "hit"}
        cache[ffi.StructuralKey([1, {"a": 2}])]   # "hit"

    ``key`` is the value, ``hash_i64`` its structural hash (signed, as stored).
    """

    key: Any
    hash_i64: int

    def __init__(self, key: Any) -> None:
        self.__init_handle_by_constructor__(_make_key, key)

    def __hash__(self) -> int:
        return self.hash_i64 & _U64

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StructuralKey) and bool(_keys_equal(self, other))

    def __ne__(self, other: object) -> bool:
        return not self == other


class WalkOrder(IntEnum):
    """Whether :func:`structural_walk` calls a part's callback before (``PREORDER``) or after
    (``POSTORDER``) walking its children."""

    PREORDER = 0
    POSTORDER = 1


class WalkResult(IntEnum):
    """What a walk callback returns: ``ADVANCE`` (as None) walks on into the part's children,
    ``SKIP`` leaves them out (pre-order only). Return a :class:`VisitInterrupt` to stop."""

    ADVANCE = 0
    SKIP = 1


class DefRegionKind(IntEnum):
    """The definition region a part is met in, as structural equality sees it (the C ABI's
    ``TVMFFIDefRegionKind``): outside any (``NONE``), inside a field flagged
    ``SEqHashDefPattern`` (``DEF_PATTERN``) or ``SEqHashDefSimple`` (``DEF_SIMPLE``)."""

    NONE = 0
    DEF_PATTERN = 1
    DEF_SIMPLE = 2


@register_object("ffi.VisitInterrupt", init=False)
class VisitInterrupt(Object):
    """Returned by a :func:`structural_walk` callback to stop the walk; the walk returns it, so
    ``value`` carries a payload back to the caller::

        found = ffi.structural_walk(root, (int, lambda v: ffi.VisitInterrupt(v) if v > 9 else None))
        found.value if found is not None else None
    """

    value: Any

    def __init__(self, value: Any = None) -> None:
        self.__init_handle_by_constructor__(_make_interrupt, value)


#: A callback entry: a callback alone (for any value), ``(type, callback)``, or
#: ``((type1, type2, ...), callback)``; or a sequence of typed entries.
WalkCallbacks = Union[Callable[..., Any], tuple, Sequence[tuple]]

_BUILTIN_TYPE_INDEX = {type(None): 0, int: 1, bool: 2, float: 3, str: 65, bytes: 66}
_ANY_TYPE_INDEX = -1


def _type_index_of(t: Any) -> int:
    """The type index a walk entry's type stands for (-1: any value)."""
    if t is Any or t is object:
        return _ANY_TYPE_INDEX
    if isinstance(t, type):
        if t in _BUILTIN_TYPE_INDEX:
            return _BUILTIN_TYPE_INDEX[t]
        if t is Object:
            return _core.type_key_to_index("ffi.Object")
        index = _core._class_type_index(t)
        if index >= 0:
            return index
    raise TypeError(
        f"structural_walk: {t!r} is not a callback type: use int, bool, float, str, bytes, None, "
        "typing.Any / object, or an ffi object class (registered or built in)"
    )


def _entries(callbacks: WalkCallbacks) -> list[tuple[int, Callable[..., Any]]]:
    """The (type index, callback) pairs of one callback argument, in order."""

    def typed(entry: Any) -> list[tuple[int, Callable[..., Any]]]:
        if not (isinstance(entry, tuple) and len(entry) == 2 and callable(entry[1])):
            raise TypeError(
                f"structural_walk: an entry is (type, callback) or ((types...), callback), "
                f"not {entry!r}"
            )
        types = entry[0] if isinstance(entry[0], tuple) else (entry[0],)
        return [(_type_index_of(t), entry[1]) for t in types]

    if callable(callbacks):
        return [(_ANY_TYPE_INDEX, callbacks)]
    if isinstance(callbacks, tuple) and len(callbacks) == 2 and callable(callbacks[1]):
        return typed(callbacks)
    if isinstance(callbacks, Sequence) and not isinstance(callbacks, (str, bytes)):
        return [pair for entry in callbacks for pair in typed(entry)]
    raise TypeError(
        "structural_walk: callbacks are a callback, a (type, callback) entry, or a sequence of "
        f"entries, not {callbacks!r}"
    )


def structural_walk(
    root: Any,
    callbacks: WalkCallbacks = (),
    with_def_region_kind: WalkCallbacks = (),
    order: str | WalkOrder = "pre",
) -> VisitInterrupt | None:
    """Walk `root` as structural equality sees it, calling the first matching callback on each
    part; returns the :class:`VisitInterrupt` a callback returned, or None when the walk ended.

    The parts: containers' elements, maps' keys and values, reflected objects' fields in order
    (those flagged ``SEqHashIgnore`` left out). Every occurrence of a shared part is visited.
    Entries are tried in order, `callbacks` (called with the value) before
    `with_def_region_kind` (called with the value and its :class:`DefRegionKind`). A type matches
    its own values and those of derived object types; ``typing.Any`` / ``object`` match every
    value, ``ffi.Object`` every object. A callback returns None (go on), ``WalkResult.SKIP``
    (leave out the part's children) or a :class:`VisitInterrupt` (stop). `order` is ``"pre"``
    (the default: a part before its children) or ``"post"``, or a :class:`WalkOrder`::

        uses = []
        ffi.structural_walk(
            func,
            with_def_region_kind=(
                Var, lambda v, kind: uses.append(v) if kind == ffi.DefRegionKind.NONE else None
            ),
        )
    """
    if isinstance(order, WalkOrder):
        order_code = int(order)
    elif order in ("pre", "post"):
        order_code = int(WalkOrder.PREORDER if order == "pre" else WalkOrder.POSTORDER)
    else:
        raise ValueError(f"structural_walk: order is 'pre', 'post' or a WalkOrder, not {order!r}")
    plain = _entries(callbacks)
    aware = [
        (index, lambda value, kind, fn=fn: fn(value, DefRegionKind(kind)))
        for index, fn in _entries(with_def_region_kind)
    ]
    return _walk(root, plain, aware, order_code)
