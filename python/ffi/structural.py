"""Structural equality and hashing: whether two values have the same structure, with variables
compared up to renaming.

Containers compare by content (maps whatever their order), tensors by dtype, device, shape and
(unless ``skip_tensor_content``) content, reflected objects by the structural kind their C++ type
declares (``_type_s_eq_hash_kind``: tree, const-tree, DAG, free variable or unique instance) and
the field flags ``SEqHashIgnore`` / ``SEqHashDefPattern`` / ``SEqHashDefSimple``. An object whose
type declares no kind is a TypeError. The rules are in docs/structural.md; the runtime implements
them (``ffi.StructuralEqual``, ``ffi.StructuralHash``, ``ffi.GetFirstStructuralMismatch``).
The classes of the runtime's types here (``StructuralKey``, ``VisitInterrupt``, the visitor and
the mutator) are bound to those types by ``ffi._bootstrap``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any, Union

from . import _abi, _core
from ._abi import TypeIndex
from ._core import Object
from .access_path import AccessPath

__all__ = [
    "DefRegionKind",
    "InplaceMode",
    "StructuralKey",
    "StructuralMutator",
    "StructuralVisitor",
    "VisitInterrupt",
    "WalkOrder",
    "WalkResult",
    "get_first_structural_mismatch",
    "structural_equal",
    "structural_hash",
    "structural_map",
    "structural_mutate",
    "structural_visit",
    "structural_walk",
]

_equal = _core.get_global_func("ffi.StructuralEqual")
_hash = _core.get_global_func("ffi.StructuralHash")
_mismatch = _core.get_global_func("ffi.GetFirstStructuralMismatch")
_make_key = _core.get_global_func("ffi.StructuralKey")
_keys_equal = _core.get_global_func("ffi.StructuralKeyEqual")
_walk = _core.get_global_func("ffi.StructuralWalk")
_visit = _core.get_global_func("ffi.StructuralVisit")
_map = _core.get_global_func("ffi.StructuralMap")
_mutate = _core.get_global_func("ffi.StructuralMutate")
_make_interrupt = _core.get_global_func("ffi.VisitInterrupt")
_visitor_visit = _core.get_global_func("ffi.StructuralVisitorVisit")
_visitor_default_visit = _core.get_global_func("ffi.StructuralVisitorDefaultVisit")
_visitor_region = _core.get_global_func("ffi.StructuralVisitorDefRegionKind")
_visitor_with_region = _core.get_global_func("ffi.StructuralVisitorWithDefRegionKind")
_mutator_mutate = _core.get_global_func("ffi.StructuralMutatorMutate")
_mutator_default_mutate = _core.get_global_func("ffi.StructuralMutatorDefaultMutate")
_mutator_remap_get = _core.get_global_func("ffi.StructuralMutatorVarRemapGet")
_mutator_remap_set = _core.get_global_func("ffi.StructuralMutatorVarRemapSet")
_mutator_region = _core.get_global_func("ffi.StructuralMutatorDefRegionKind")
_mutator_with_region = _core.get_global_func("ffi.StructuralMutatorWithDefRegionKind")

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

    PREORDER = _abi.WalkOrder.PRE_ORDER
    POSTORDER = _abi.WalkOrder.POST_ORDER


class WalkResult(IntEnum):
    """What a walk callback returns: ``ADVANCE`` (as None) walks on into the part's children,
    ``SKIP`` leaves them out (pre-order only). Return a :class:`VisitInterrupt` to stop."""

    ADVANCE = _abi.WalkResult.ADVANCE
    SKIP = _abi.WalkResult.SKIP


class DefRegionKind(IntEnum):
    """The definition region a part is met in, as structural equality sees it (the C ABI's
    ``TVMFFIDefRegionKind``): outside any (``NONE``), inside a field flagged
    ``SEqHashDefPattern`` (``DEF_PATTERN``) or ``SEqHashDefSimple`` (``DEF_SIMPLE``)."""

    NONE = _abi.DefRegionKind.NONE
    DEF_PATTERN = _abi.DefRegionKind.PATTERN
    DEF_SIMPLE = _abi.DefRegionKind.SIMPLE


class VisitInterrupt(Object):
    """Returned by a :func:`structural_walk` callback to stop the walk; the walk returns it, so
    ``value`` carries a payload back to the caller::

        found = ffi.structural_walk(root, (int, lambda v: ffi.VisitInterrupt(v) if v > 9 else None))
        found.value if found is not None else None
    """

    value: Any

    def __init__(self, value: Any = None) -> None:
        self.__init_handle_by_constructor__(_make_interrupt, value)


class InplaceMode(IntEnum):
    """Whether a :func:`structural_mutate` callback may change its value in place: ``ALLOW`` only
    when nothing else references the value (the root was handed over by its only owner);
    ``DISALLOW`` otherwise (copy on write)."""

    DISALLOW = _abi.InplaceMode.DISALLOW
    ALLOW = _abi.InplaceMode.ALLOW


class StructuralVisitor(Object):
    """The visitor of a running :func:`structural_visit` (callbacks receive it); not made
    directly."""

    def visit(self, value: Any) -> VisitInterrupt | None:
        """Visit `value` as the traversal does (its callback, if one matches); returns the
        interrupt that stops the traversal, or None."""
        return _visitor_visit(self, value)

    def default_visit(self, value: Any) -> VisitInterrupt | None:
        """Visit the parts of `value` (its type's ``__s_visit__`` hook, else its reflected fields),
        not calling a callback for `value` itself. Call it on a callback's own value to descend
        into it."""
        return _visitor_default_visit(self, value)

    def def_region_kind(self) -> DefRegionKind:
        """The definition region the traversal is in."""
        return DefRegionKind(_visitor_region(self))

    def with_def_region_kind(self, kind: int, callback: Callable[[], Any]) -> Any:
        """Call ``callback()`` in definition region `kind` and return its result (inside a pattern
        region the pattern stays)."""
        return _visitor_with_region(self, int(kind), callback)


class StructuralMutator(Object):
    """The mutator of a running :func:`structural_mutate` or :func:`structural_map` (callbacks
    receive it); not made directly."""

    def mutate(self, value: Any) -> Any:
        """`value` rewritten as the rewrite does (its callback, if one matches), copy on write:
        `value` itself when nothing in it changes."""
        return _mutator_mutate(self, value)

    def default_mutate(self, value: Any) -> Any:
        """`value` rebuilt from its rewritten parts, not calling a callback for `value` itself.
        Call it on a callback's own value to descend into it."""
        return _mutator_default_mutate(self, value)

    def var_remap_get(self, var: Object) -> Any | None:
        """What the free variable (or DAG node) `var` was rewritten into, or None."""
        return _mutator_remap_get(self, var)

    def var_remap_set(self, var: Object, mapped_value: Any) -> None:
        """Record that `var` is rewritten into `mapped_value` (later occurrences read it)."""
        _mutator_remap_set(self, var, mapped_value)

    def def_region_kind(self) -> DefRegionKind:
        """The definition region the rewrite is in."""
        return DefRegionKind(_mutator_region(self))

    def with_def_region_kind(self, kind: int, callback: Callable[[], Any]) -> Any:
        """Call ``callback()`` in definition region `kind` and return its result."""
        return _mutator_with_region(self, int(kind), callback)


#: A callback entry: a callback alone (for any value), ``(type, callback)``, or
#: ``((type1, type2, ...), callback)``; or a sequence of typed entries.
WalkCallbacks = Union[Callable[..., Any], tuple, Sequence[tuple]]

_BUILTIN_TYPE_INDEX = {
    type(None): TypeIndex.NONE,
    int: TypeIndex.INT,
    bool: TypeIndex.BOOL,
    float: TypeIndex.FLOAT,
    str: TypeIndex.STR,
    bytes: TypeIndex.BYTES,
}
_ANY_TYPE_INDEX = TypeIndex.ANY


def _type_index_of(t: Any, api: str) -> int:
    """The type index a callback entry's type stands for (-1: any value)."""
    if t is Any or t is object:
        return _ANY_TYPE_INDEX
    if isinstance(t, type):
        if t in _BUILTIN_TYPE_INDEX:
            return _BUILTIN_TYPE_INDEX[t]
        if t is Object:
            return TypeIndex.OBJECT
        index = _core._class_type_index(t)
        if index >= 0:
            return index
    raise TypeError(
        f"{api}: {t!r} is not a callback type: use int, bool, float, str, bytes, None, "
        "typing.Any / object, or an ffi object class (registered or built in)"
    )


def _entries(callbacks: WalkCallbacks, api: str) -> list[tuple[int, Callable[..., Any]]]:
    """The (type index, callback) pairs of one callback argument, in order."""

    def typed(entry: Any) -> list[tuple[int, Callable[..., Any]]]:
        if not (isinstance(entry, tuple) and len(entry) == 2 and callable(entry[1])):
            raise TypeError(
                f"{api}: an entry is (type, callback) or ((types...), callback), not {entry!r}"
            )
        types = entry[0] if isinstance(entry[0], tuple) else (entry[0],)
        return [(_type_index_of(t, api), entry[1]) for t in types]

    if callable(callbacks):
        return [(_ANY_TYPE_INDEX, callbacks)]
    if isinstance(callbacks, tuple) and len(callbacks) == 2 and callable(callbacks[1]):
        return typed(callbacks)
    if isinstance(callbacks, Sequence) and not isinstance(callbacks, (str, bytes)):
        return [pair for entry in callbacks for pair in typed(entry)]
    raise TypeError(
        f"{api}: callbacks are a callback, a (type, callback) entry, or a sequence of entries, "
        f"not {callbacks!r}"
    )


def _region_aware(callbacks: WalkCallbacks, api: str) -> list[tuple[int, Callable[..., Any]]]:
    """The entries of a `with_def_region_kind` argument, their callbacks given a DefRegionKind."""
    return [
        (index, lambda value, kind, fn=fn: fn(value, DefRegionKind(kind)))
        for index, fn in _entries(callbacks, api)
    ]


def _order_code(order: str | WalkOrder, api: str) -> int:
    if isinstance(order, WalkOrder):
        return int(order)
    if order in ("pre", "post"):
        return int(WalkOrder.PREORDER if order == "pre" else WalkOrder.POSTORDER)
    raise ValueError(f"{api}: order is 'pre', 'post' or a WalkOrder, not {order!r}")


def _takes_inplace_mode(callback: Callable[..., Any]) -> bool:
    """Whether a structural_mutate callback takes a third argument (the InplaceMode)."""
    try:
        signature = inspect.signature(callback)
    except (TypeError, ValueError):
        return False  # no signature to read: called with (value, mutator)
    try:
        signature.bind(None, None, InplaceMode.DISALLOW)
        return True
    except TypeError:
        pass
    try:
        signature.bind(None, None)
    except TypeError:
        raise TypeError(
            "structural_mutate: a callback takes (value, mutator) or (value, mutator, "
            f"inplace_mode); {callback!r} takes neither"
        ) from None
    return False


def structural_walk(
    root: Any,
    callbacks: WalkCallbacks = (),
    with_def_region_kind: WalkCallbacks = (),
    order: str | WalkOrder = "post",
) -> VisitInterrupt | None:
    """Walk `root` as structural equality sees it, calling the first matching callback on each
    part; returns the :class:`VisitInterrupt` a callback returned, or None when the walk ended.

    The parts: containers' elements, maps' values, reflected objects' fields in order (those
    flagged ``SEqHashIgnore`` left out); None is never visited. Every occurrence of a shared part
    is visited. Entries are tried in order, `callbacks` (called with the value) before
    `with_def_region_kind` (called with the value and its :class:`DefRegionKind`). A type matches
    its own values and those of derived object types; ``typing.Any`` / ``object`` match every
    value, ``ffi.Object`` every object. A callback returns None (go on), ``WalkResult.SKIP``
    (leave out the part's children, pre-order) or a :class:`VisitInterrupt` (stop). `order` is
    ``"post"`` (the default: a part after its children) or ``"pre"``, or a :class:`WalkOrder`::

        uses = []
        ffi.structural_walk(
            func,
            with_def_region_kind=(
                Var, lambda v, kind: uses.append(v) if kind == ffi.DefRegionKind.NONE else None
            ),
        )
    """
    api = "structural_walk"
    return _walk(
        root,
        _entries(callbacks, api),
        _region_aware(with_def_region_kind, api),
        _order_code(order, api),
    )


def structural_visit(root: Any, callbacks: WalkCallbacks = ()) -> VisitInterrupt | None:
    """Visit `root` with callbacks that own the descent: the first matching entry's callback
    receives ``(value, visitor)`` and visits what it wants of the value (``visitor.visit(part)``,
    or ``visitor.default_visit(value)`` for all its parts); a value no entry matches is descended
    into. Returns the :class:`VisitInterrupt` that stopped the visit, or None::

        names = []
        ffi.structural_visit(func, (Var, lambda var, visitor: names.append(var.name)))
    """
    return _visit(root, _entries(callbacks, "structural_visit"))


def structural_mutate(root: Any, callbacks: WalkCallbacks = ()) -> Any:
    """`root` rewritten with callbacks that own the rewrite: the first matching entry's callback
    receives ``(value, mutator)`` (or ``(value, mutator, inplace_mode)`` when it takes a third
    argument, an :class:`InplaceMode` as int) and returns the value's replacement, final as
    returned; it rewrites parts itself (``mutator.mutate(part)``, or
    ``mutator.default_mutate(value)`` for all of them). A value no entry matches is rebuilt from
    its rewritten parts. Copy on write: `root` itself comes back when nothing changes, and no
    input is changed."""
    entries = [
        (index, fn, _takes_inplace_mode(fn))
        for index, fn in _entries(callbacks, "structural_mutate")
    ]
    return _mutate(root, entries)


def structural_map(
    root: Any,
    callbacks: WalkCallbacks = (),
    with_def_region_kind: WalkCallbacks = (),
    order: str | WalkOrder = "post",
) -> Any:
    """`root` rewritten part by part: the first matching entry's callback returns each part's
    replacement (or the part itself), after the part's own parts were rewritten (``"post"``, the
    default) or before (``"pre"``: the replacement's parts are then rewritten). Entries as in
    :func:`structural_walk`. Copy on write: `root` itself comes back when nothing changes; free
    variables and DAG nodes are rewritten once and reused::

        ffi.structural_map([1, [2, 3]], (int, lambda x: x * 10))   # [10, [20, 30]]
    """
    api = "structural_map"
    return _map(
        root,
        _entries(callbacks, api),
        _region_aware(with_def_region_kind, api),
        _order_code(order, api),
    )
