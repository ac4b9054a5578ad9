"""The FFI's containers as Python collections: ``Array`` and ``List`` (sequences), ``Map`` and
``Dict`` (mappings).

They are built and read natively by the extension: a Python list, tuple or dict passed to an FFI
function becomes an ``Array`` or ``Map`` without going through these classes, and containers a
function returns arrive as these classes (``ffi._bootstrap`` registers them with the extension),
converting each element when it is read. ``Array`` and
``Map`` are immutable (copy-on-write in C++); ``List`` and ``Dict`` are shared and mutable: a change
made through one reference, in Python or C++, is seen by every holder.
"""

from __future__ import annotations

import json
import operator
import threading
from collections.abc import (
    Callable,
    ItemsView,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    Sequence,
    ValuesView,
)
from typing import Any, Generic, TypeVar, overload

from . import _core
from ._abi import TypeIndex
from ._core import Device, Function, Object, Tensor, dtype, from_dlpack
from .api import (
    MISSING,  # the reference's container module exports it too
    _object_reduce,
)

__all__ = ["MISSING", "Array", "Dict", "List", "Map"]

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

_ARRAY = TypeIndex.ARRAY
_LIST = TypeIndex.LIST
_MAP = TypeIndex.MAP
_DICT = TypeIndex.DICT

_runtime_fns: dict[str, Function] = {}

# Objects that compare by identity inside containers: nothing but their identity is comparable
# (the reference's recursive equality takes any two functions, modules or Python objects as equal).
_IDENTITY_KINDS = frozenset(
    (TypeIndex.FUNCTION, TypeIndex.MODULE, TypeIndex.OPAQUE_PY_OBJECT, TypeIndex.ERROR)
)


def _runtime_fn(name: str) -> Function:
    # Mutations and element comparisons go through the runtime's global functions, looked up once.
    # They keep the GIL: short calls, and the GIL is what serializes Python threads changing one
    # List or Dict (eight threads appending at once corrupted the heap when each released it).
    fn = _runtime_fns.get(name)
    if fn is None:
        fn = _core.get_global_func(name)
        fn.keep_gil = True
        _runtime_fns[name] = fn
    return fn


def _is_plain_object(x: object) -> bool:
    # FFI objects other than containers compare by identity of the object they refer to.
    return isinstance(x, Object) and not isinstance(x, (Array, List, Map, Dict))


def _tensor_key(t: Tensor) -> tuple[Any, ...]:
    # What makes two tensors the same tensor: the same memory, seen the same way.
    device = t.device
    return (t.data_ptr(), t.byte_offset, tuple(t.shape), tuple(t.strides), str(t.dtype),
            device.dlpack_device_type(), device.index)  # fmt: skip


def _is_tensor_like(x: object) -> bool:
    """Whether `x` is an ffi.Tensor or a framework tensor (a DLPack producer that is no FFI
    object)."""
    return isinstance(x, Tensor) or (not isinstance(x, Object) and hasattr(type(x), "__dlpack__"))


def _as_tensor(x: object) -> Tensor | None:
    """`x` as an ffi.Tensor: itself, or the view of a framework tensor (a DLPack producer that is
    no FFI object); None for anything else."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Object) or not hasattr(type(x), "__dlpack__"):
        return None
    try:
        return from_dlpack(x)
    except (TypeError, ValueError, BufferError):
        return None


_walking = threading.local()  # per thread: {walk name: handles of the containers being walked}
_memos = threading.local()  # per thread: {walk name: (results so far, keys being walked)}


def _guarded(walk: str, container: Object, body: Callable[[], Any], on_cycle: Any) -> Any:
    """`body()`, or `on_cycle` when this thread is already inside `walk` (repr) of the same
    container: a container that holds itself is shown as ``...``, where recursing would never
    end."""
    if walk == "repr" and container.__chandle__() == 0:  # type: ignore[attr-defined]
        return f"<ffi.{type(container).__name__} (no FFI object)>"  # handed over with _move()
    active = _walking.__dict__.setdefault(walk, set())
    key = container._handle  # type: ignore[attr-defined]
    if key in active:
        return on_cycle
    active.add(key)
    try:
        return body()
    finally:
        active.discard(key)


def _memoized(walk: str, key: Any, body: Callable[[], Any], on_cycle: Any) -> Any:
    """`body()` once per `key` within one outermost `walk` (``hash``, ``eq``) on this thread: the
    result is kept until the outermost call returns, so a value whose parts are shared (a DAG)
    costs what its distinct parts cost; a key met inside its own walk (a cycle) is `on_cycle`."""
    state = _memos.__dict__.get(walk)
    outermost = state is None
    if outermost:
        state = _memos.__dict__[walk] = ({}, set())
    results, active = state
    try:
        if key in results:
            return results[key]
        if key in active:
            return on_cycle
        active.add(key)
        try:
            result = body()
        finally:
            active.discard(key)
        results[key] = result
        return result
    finally:
        if outermost:
            del _memos.__dict__[walk]


def _same_container(a: object, b: object) -> bool:
    # One container equals itself, as a Python list does, even when it holds itself.
    return isinstance(a, (Array, List, Map, Dict)) and isinstance(b, Object) and a.same_as(b)


def _elem_eq(a: object, b: object) -> bool:
    # Elements are read raw (tensors as ffi.Tensor); the other side may hold framework tensors.
    # Tensors are equal when they view the same memory the same way (two imports of one PyTorch
    # tensor are two FFI objects); other FFI objects are equal when they are the same object or,
    # as in the reference, when their reflected fields are equal (the runtime's ffi.RecursiveEq);
    # functions, modules, errors and Python objects only when they are the same object.
    # A framework tensor on either side compares as a tensor too: its own == is elementwise.
    if _is_tensor_like(a) or _is_tensor_like(b):
        ta, tb = _as_tensor(a), _as_tensor(b)
        return (
            ta is not None
            and tb is not None
            and (ta.same_as(tb) or _tensor_key(ta) == _tensor_key(tb))
        )
    if _is_plain_object(a) or _is_plain_object(b):
        if not (isinstance(a, Object) and isinstance(b, Object)):
            return False
        if a.same_as(b):
            return True
        kind = a.type_index
        return (
            kind == b.type_index
            and kind not in _IDENTITY_KINDS
            and bool(_runtime_fn("ffi.RecursiveEq")(a, b))
        )
    return _same_container(a, b) or bool(a == b)


def _elem_hash(x: object) -> int:
    if isinstance(x, Tensor):
        return hash(_tensor_key(x))
    if _is_plain_object(x):
        if x.type_index in _IDENTITY_KINDS:  # type: ignore[attr-defined]
            return hash(x._handle)  # type: ignore[attr-defined]
        return hash(_runtime_fn("ffi.RecursiveHash")(x))
    return hash(x)


def _seq_eq(items: list[Any], other: object) -> Any:
    if isinstance(other, (str, bytes, bytearray, Mapping)) or not isinstance(other, Sequence):
        return NotImplemented
    other_items = list(other)
    return len(items) == len(other_items) and all(map(_elem_eq, items, other_items))


def _map_eq(this: Map[Any, Any] | Dict[Any, Any], other: object) -> Any:
    if not isinstance(other, (Map, Dict)):
        return NotImplemented
    if len(this) != len(other):
        return False
    missing = object()
    for k, v in _core._map_items(this, True):
        w = _core._map_get(other, k, missing)
        if w is missing or not _elem_eq(v, w):
            return False
    return True


def _reduce(container: Object, by_elements: Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
    """Pickling: the container's JSON graph, as for any object (it keeps values shared inside the
    container shared); when the graph cannot hold an element (a tensor, a function, a Python
    object), the container rebuilt from its elements, each pickled by Python."""
    try:
        return _object_reduce(container)
    except (TypeError, ValueError):
        return by_elements()


def _format(x: object) -> str:
    """One element as the containers' repr shows it (strings double-quoted, as in C++)."""
    if isinstance(x, dtype):  # a str subclass, shown bare
        return str(x)
    if isinstance(x, str):
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, bytes):
        return "b" + json.dumps(x.decode("latin-1"), ensure_ascii=False)
    if isinstance(x, float):
        text = repr(x)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(x, (Array, List, Map, Dict)):
        return repr(x)
    if isinstance(x, Tensor):
        return f"{x.dtype}[{','.join(map(str, x.shape))}]@{_format(x.device)}"
    if isinstance(x, Function):
        return "ffi.Function"
    if isinstance(x, Device):
        return f"{x.type}:{x.index}"
    if isinstance(x, tuple) and type(x).__name__ == "Shape":
        return f"Shape({', '.join(map(str, x))})"
    return repr(x)


def _index(size: int, i: Any) -> int:
    """A normalized in-range index (list semantics); IndexError otherwise."""
    index = operator.index(i)
    if index < -size or index >= size:
        raise IndexError(f"index {index} is out of range for a sequence of size {size}")
    return index + size if index < 0 else index


class _SeqReads(Generic[T]):
    """What Array and List read alike: indexing (a slice gives a list), length, iteration,
    membership, equality, hashing, pickling.
    Listed before ``Object`` in their bases, so these methods win over ``Object``'s."""

    __slots__ = ()

    def __len__(self) -> int:
        return _core._seq_len(self)

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return _core._seq_items(self)[i]
        return _core._seq_getitem(self, i)  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[T]:
        return iter(_core._seq_items(self))

    def __contains__(self, value: object) -> bool:
        return any(_elem_eq(x, value) for x in _core._seq_items(self, True))

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The first position of `value` in ``self[start:stop]``; ValueError when it is absent."""
        items = _core._seq_items(self, True)
        for i in range(*slice(start, stop).indices(len(items))):
            if _elem_eq(items[i], value):
                return i
        raise ValueError(f"{value!r} is not in the {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if _same_container(self, other):
            return True
        items = lambda: _seq_eq(_core._seq_items(self, True), other)  # noqa: E731
        if not isinstance(other, (Array, List)):
            return items()  # type: ignore[no-any-return]
        key = (self._handle, other._handle)  # type: ignore[attr-defined]
        return _memoized("eq", key, items, True)  # type: ignore[no-any-return]

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        items = lambda: hash(tuple(map(_elem_hash, _core._seq_items(self, True))))  # noqa: E731
        return _memoized("hash", self._handle, items, 0x5EED)  # type: ignore[no-any-return,attr-defined]

    def __bool__(self) -> bool:
        return _core._seq_len(self) > 0

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce(self, lambda: (type(self), (_core._seq_items(self),)))

    # copy.deepcopy is ffi.Object's (the runtime's ffi.DeepCopy); a shallow copy is a new
    # container of the same elements, as unpickling makes.
    def __copy__(self) -> Any:
        return type(self)(_core._seq_items(self))


class _MapReads(Generic[K, V]):
    """What Map and Dict read alike: lookups, iteration, views, equality, hashing, repr, pickling.
    Listed before ``Object`` in their bases, so these methods win over ``Object``'s."""

    __slots__ = ()

    def __len__(self) -> int:
        return _core._map_len(self)

    def __getitem__(self, key: K) -> V:
        return _core._map_get(self, key)  # type: ignore[no-any-return]

    def get(self, key: K, default: Any = None) -> Any:
        """The value of `key`, or `default` when it is absent."""
        return _core._map_get(self, key, default)

    def __contains__(self, key: object) -> bool:
        missing = object()
        return _core._map_get(self, key, missing) is not missing

    def __iter__(self) -> Iterator[K]:
        return iter([k for k, _ in _core._map_items(self)])

    def items(self) -> ItemsView[K, V]:
        """The entries as (key, value) pairs, in insertion order."""
        return _ItemsView(self)

    def values(self) -> ValuesView[V]:
        """The values, in insertion order."""
        return _ValuesView(self)

    def __eq__(self, other: object) -> bool:
        if _same_container(self, other):
            return True
        if not isinstance(other, (Map, Dict)):
            return _map_eq(self, other)  # type: ignore[no-any-return]
        key = (self._handle, other._handle)  # type: ignore[attr-defined]
        return _memoized("eq", key, lambda: _map_eq(self, other), True)  # type: ignore[no-any-return]

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        def entries() -> int:
            items = _core._map_items(self, True)
            return hash(frozenset((_elem_hash(k), _elem_hash(v)) for k, v in items))

        return _memoized("hash", self._handle, entries, 0x5EED)  # type: ignore[no-any-return,attr-defined]

    def __bool__(self) -> bool:
        return _core._map_len(self) > 0

    def __repr__(self) -> str:
        def entries() -> str:
            items = _core._map_items(self, True)
            return "{" + ", ".join(f"{_format(k)}: {_format(v)}" for k, v in items) + "}"

        return _guarded("repr", self, entries, "...")  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce(self, lambda: (type(self), (dict(_core._map_items(self)),)))

    def __copy__(self) -> Any:  # as _SeqReads.__copy__
        return type(self)(dict(_core._map_items(self)))


class Array(_SeqReads[T], Object, Sequence[T]):
    """An immutable FFI sequence (``ffi.Array``; C++ ``Array<T>``).

    ``ffi.Array(iterable)`` converts each element (lists and tuples inside become Arrays, dicts
    Maps). Indexing converts the element it reads; a slice gives a Python list. Equal to any
    sequence (list, tuple, Array, List) with equal elements; FFI objects in it compare by
    identity. Hashable, picklable when its elements are.
    """

    __slots__ = ()

    def __new__(cls, input_list: Iterable[T] = ()) -> Array[T]:
        return _core._new_container(_ARRAY, input_list)  # type: ignore[no-any-return]

    def __add__(self, other: Iterable[T]) -> Array[T]:
        return Array([*self, *other])

    def __radd__(self, other: Iterable[T]) -> Array[T]:
        return Array([*other, *self])

    def __repr__(self) -> str:
        def items() -> str:
            shown = [_format(x) for x in _core._seq_items(self, True)]
            return "(" + shown[0] + ",)" if len(shown) == 1 else "(" + ", ".join(shown) + ")"

        return _guarded("repr", self, items, "...")  # type: ignore[no-any-return]


class List(_SeqReads[T], Object, MutableSequence[T]):
    """A mutable, shared FFI sequence (``ffi.List``; C++ ``List<T>``).

    Supports everything a Python list does through ``MutableSequence`` (indexing, slices,
    ``append``, ``insert``, ``pop``, ``extend``, ``del``, ...); a change is seen by every holder,
    C++ included. Compares like ``Array``.
    """

    __slots__ = ()

    def __new__(cls, input_list: Iterable[T] = ()) -> List[T]:
        return _core._new_container(_LIST, input_list)  # type: ignore[no-any-return]

    @overload
    def __setitem__(self, i: int, value: T) -> None: ...
    @overload
    def __setitem__(self, i: slice, value: Iterable[T]) -> None: ...
    def __setitem__(self, i: int | slice, value: Any) -> None:
        if isinstance(i, slice):
            new = _core._seq_items(self)
            new[i] = list(value)  # list semantics, errors included, before anything changes
            _runtime_fn("ffi.ListReplaceSlice")(self, 0, len(self), List(new))
            return
        _runtime_fn("ffi.ListSetItem")(self, _index(len(self), i), value)

    @overload
    def __delitem__(self, i: int) -> None: ...
    @overload
    def __delitem__(self, i: slice) -> None: ...
    def __delitem__(self, i: int | slice) -> None:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                if stop > start:
                    _runtime_fn("ffi.ListEraseRange")(self, start, stop)
                return
            for k in sorted(range(start, stop, step), reverse=True):
                _runtime_fn("ffi.ListErase")(self, k)
            return
        _runtime_fn("ffi.ListErase")(self, _index(len(self), i))

    def insert(self, index: int, value: T) -> None:
        """Inserts `value` before `index` (clamped to the list, as Python's list does)."""
        index = operator.index(index)
        size = len(self)
        index = max(0, index + size) if index < 0 else min(index, size)
        _runtime_fn("ffi.ListInsert")(self, index, value)

    def append(self, value: T) -> None:
        """Appends `value`."""
        _runtime_fn("ffi.ListAppend")(self, value)

    def extend(self, values: Iterable[T]) -> None:
        """Appends the values of `values`, all converted first: one that does not convert leaves
        the list as it was."""
        converted = List(values)  # also a snapshot, for l.extend(l)
        size = len(self)
        _runtime_fn("ffi.ListReplaceSlice")(self, size, size, converted)

    def pop(self, index: int = -1) -> T:
        """Removes and returns element `index` (the last by default); IndexError when empty."""
        if len(self) == 0:
            raise IndexError("pop from an empty List")
        return _runtime_fn("ffi.ListPop")(self, _index(len(self), index))  # type: ignore[no-any-return]

    def clear(self) -> None:
        """Removes every element."""
        _runtime_fn("ffi.ListClear")(self)

    def reverse(self) -> None:
        """Reverses the list in place."""
        _runtime_fn("ffi.ListReverse")(self)

    def __add__(self, other: Iterable[T]) -> List[T]:
        return List([*self, *other])

    def __radd__(self, other: Iterable[T]) -> List[T]:
        return List([*other, *self])

    def __repr__(self) -> str:
        def items() -> str:
            return "[" + ", ".join(_format(x) for x in _core._seq_items(self, True)) + "]"

        return _guarded("repr", self, items, "...")  # type: ignore[no-any-return]


class Map(_MapReads[K, V], Object, Mapping[K, V]):
    """An immutable FFI mapping (``ffi.Map``; C++ ``Map<K, V>``), in insertion order.

    ``ffi.Map(mapping)`` converts keys and values. A missing key raises KeyError. Equal to another
    Map or Dict with equal entries (not to a Python dict, as in the reference).
    """

    __slots__ = ()

    def __new__(cls, input_dict: Mapping[K, V] | None = None) -> Map[K, V]:
        return _core._new_container(_MAP, {} if input_dict is None else input_dict)  # type: ignore[no-any-return]


class Dict(_MapReads[K, V], Object, MutableMapping[K, V]):
    """A mutable, shared FFI mapping (``ffi.Dict``; C++ ``Dict<K, V>``), in insertion order.

    Supports everything a Python dict does through ``MutableMapping`` (``d[k] = v``, ``del``,
    ``pop``, ``update``, ``setdefault``, ...); a change is seen by every holder, C++ included.
    Compares like ``Map``.
    """

    __slots__ = ()

    def __new__(cls, input_dict: Mapping[K, V] | None = None) -> Dict[K, V]:
        return _core._new_container(_DICT, {} if input_dict is None else input_dict)  # type: ignore[no-any-return]

    def __setitem__(self, key: K, value: V) -> None:
        _runtime_fn("ffi.DictSetItem")(self, _core._map_key(key), value)

    def __delitem__(self, key: K) -> None:
        if key not in self:
            raise KeyError(key)
        _runtime_fn("ffi.DictErase")(self, _core._map_key(key))

    def clear(self) -> None:
        """Removes every entry."""
        _runtime_fn("ffi.DictClear")(self)


class _ItemsView(ItemsView[Any, Any]):
    """items() of a Map or Dict: iterating reads every entry in one native call."""

    __slots__ = ()

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return iter(_core._map_items(self._mapping))  # type: ignore[arg-type]

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, tuple) or len(item) != 2:
            return False
        missing = object()
        v = _core._map_get(self._mapping, item[0], missing)
        return v is not missing and _elem_eq(v, item[1])


class _ValuesView(ValuesView[Any]):
    """values() of a Map or Dict, read in one native call."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return iter([v for _, v in _core._map_items(self._mapping)])  # type: ignore[arg-type]
