"""Enums whose members are FFI objects: one singleton per member, shared with C++.

An enum class is an object type (``ffi.Enum``, ``ffi.IntEnum`` or ``ffi.StrEnum``, or one derived in
C++) whose members are its only instances. Each member has two canonical indices, an integer and a
string; the type's ``__ffi_enum__`` attribute (an :class:`EnumState`) lists the members and maps
both indices to them, so C++ (``EnumDef``, ``EnumObj::_GetByStrIndex``), JSON graphs and Python
all find the same object. ::

    class Activation(ffi.dataclasses.Enum, type_key="my.Activation"):
        arity: int = 0                  # a field every member has
        relu = entry(arity=1)           # member 0, string index "relu"
        noop = auto()                   # member 1, arity 0

    class Priority(ffi.dataclasses.IntEnum, type_key="my.Priority"):
        LOW = 1                         # integer index 1, string index "LOW"
        HIGH = 10

    class Op(ffi.dataclasses.StrEnum, type_key="my.Op"):
        ADD = "+"                       # string index "+", integer index 0

    Activation.get("relu"), Priority(10), Op("+")   # members by index
    list(Activation)                                # members in definition order

A class whose type key C++ already registered binds to that type: its members are the ones C++
defined (``Alpha: ClassVar[Variant]`` names one by its string index), and new ones declared in
Python join them.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from .. import _core
from .._core import Object
from .._object_meta import ObjectMeta
from ..container import Dict, List
from ._dunders import ClassOptions
from .c_class import _bind, c_class
from .field import MISSING
from .py_class import _define, _frame_names

__all__ = [
    "ENUM_STATE_ATTR",
    "Enum",
    "EnumAttrMap",
    "EnumState",
    "IntEnum",
    "StrEnum",
    "auto",
    "entry",
]

#: The type attribute holding an enum class's :class:`EnumState`.
ENUM_STATE_ATTR = "__ffi_enum__"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _base(type_key: str) -> Callable[[type], type]:
    """Binds one of the enum base classes to its C++ type (fields private to the machinery)."""
    return lambda cls: _bind(cls, type_key, ClassOptions(init=False))


@c_class("ffi.EnumState")
class EnumState(Object):
    """The shared state of one enum class: ``entries`` (its members, in definition order),
    ``indexes`` (integer and string index -> member) and ``attrs`` (attribute name -> member ->
    value, see :meth:`Enum.def_attr`)."""

    entries: List[Object]
    indexes: Dict[Any, Object]
    attrs: Dict[str, Dict[Object, Any]]


class _EnumEntry:
    """A member declaration in an enum class body: the values of its fields."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"entry({', '.join(parts)})"


def entry(*args: Any, **kwargs: Any) -> Any:
    """Declare a member of an enum class, with the values of its fields (``value=`` gives an
    ``IntEnum``/``StrEnum`` member's index)."""
    return _EnumEntry(*args, **kwargs)


def auto() -> Any:
    """Declare a member whose indices follow from its name and position (fields at defaults)."""
    return _EnumEntry()


def _index(index: Any) -> int | str:
    """`index` as a canonical index: an int64 (bool counts as int) or a str."""
    if isinstance(index, bool):
        return int(index)
    if isinstance(index, int):
        if not _INT64_MIN <= index <= _INT64_MAX:
            raise OverflowError(f"enum integer index {index} is outside int64")
        return index
    if isinstance(index, str):
        return index
    raise TypeError(f"an enum index is an int or a str, not {type(index).__name__}")


def _state(cls: type, *, create: bool = False) -> EnumState | None:
    """The class's state (the type attribute), made and registered first when `create`."""
    index = _core._class_type_index(cls)
    state = _core._type_attr(index, ENUM_STATE_ATTR)
    if state is None and create:
        _core._py_class_set_type_attr(index, ENUM_STATE_ATTR, EnumState())
        state = _core._type_attr(index, ENUM_STATE_ATTR)
    return state


def _members(cls: type) -> list[Any]:
    state = _state(cls)
    return [] if state is None else list(state.entries)


class _EnumMeta(ObjectMeta):
    """Enum classes iterate over their members, and calling one with a member or an index returns
    that member (any other call constructs, as for other classes)."""

    def __iter__(cls) -> Iterator[Any]:
        return iter(_members(cls))

    def __len__(cls) -> int:
        return len(_members(cls))

    def __contains__(cls, value: Any) -> bool:
        return isinstance(value, cls) and any(value.same_as(m) for m in _members(cls))

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            value = args[0]
            if isinstance(value, cls):
                return value
            if isinstance(value, (int, str)):
                try:
                    return cls.get(value)  # type: ignore[attr-defined]
                except KeyError:
                    raise ValueError(f"{value!r} is not a valid {cls.__name__}") from None
        return super().__call__(*args, **kwargs)


class _ClassProperty:
    """A read-only property of the class (``Enum.attr_dict``)."""

    def __init__(self, fget: Callable[[type], Any]) -> None:
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self.fget(owner if owner is not None else type(instance))


@_base("ffi.Enum")
class Enum(Object, metaclass=_EnumMeta):
    """The base of enum classes; derive with ``type_key=`` to define one (see the module).

    Members are declared in the class body as ``name = entry(field=value, ...)``, ``name =
    auto()`` or ``name: ClassVar[Cls]``; a member's integer index is its position, its string
    index its name. Annotated names with values or defaults are fields every member has (frozen:
    members are constants). Class keywords: ``type_key`` (required to define the type), ``frozen``
    (default True), ``init`` and ``repr`` (for a type C++ defined). Instances are the members:
    ``Cls(index)``, ``Cls.get(index)``, ``iter(Cls)``.
    """

    __slots__ = ()

    def __init_subclass__(
        cls,
        *,
        type_key: str | None = None,
        frozen: bool = True,
        init: bool = True,
        repr: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if type_key is None:
            return  # an abstract base of enum classes, or a subclass adding methods only
        payload = int if issubclass(cls, IntEnum) else str if issubclass(cls, StrEnum) else None
        if payload is not None and ("value" in cls.__dict__ or "value" in _own_annotations(cls)):
            base = "IntEnum" if payload is int else "StrEnum"
            raise TypeError(f"{base} reserves `value` as its canonical index alias")
        own_repr = "__repr__" in cls.__dict__
        binders, declared = _take_declarations(cls, payload)
        try:
            in_cpp = _core.type_key_to_index(type_key) >= 0
        except (KeyError, RuntimeError):  # not registered (the reference's runtime: RuntimeError)
            in_cpp = False
        if in_cpp:
            _bind(cls, type_key, ClassOptions(init=init, repr=repr))  # fields from the C++ type
        else:
            options = ClassOptions(frozen=frozen)
            _define(cls, type_key, _frame_names(1), options, structural_eq="singleton")
        if payload is not None:
            _install_payload_behaviour(cls, payload, own_repr)
        _make_members(cls, type_key, binders, declared, in_cpp, payload)

    @classmethod
    def get(cls, index: int | str) -> Any:
        """The member at integer or string index `index`; KeyError when there is none."""
        index = _index(index)
        state = _state(cls)
        if state is not None and index in state.indexes:
            return state.indexes[index]
        raise KeyError(index)

    @classmethod
    def all_entries(cls) -> Iterator[Any]:
        """The members, in definition order."""
        return iter(_members(cls))

    @_ClassProperty
    def attr_dict(cls) -> Any:
        """The members' extensible attributes, live: attribute name -> member -> value."""
        state = _state(cls)
        return Dict({}) if state is None else state.attrs

    @classmethod
    def def_attr(cls, name: str, *, default: Any = MISSING) -> EnumAttrMap:
        """A view of the extensible attribute `name` (member -> value), with `default` for members
        that have none."""
        return EnumAttrMap(cls, name, default=default)


@_base("ffi.IntEnum")
class IntEnum(Enum):
    """An enum whose members are declared by their integer index (``LOW = 1``), any int64; the
    string index is the member's name. ``value`` is the integer index; members compare and hash
    as it (``Priority.LOW == 1``), and print as ``Cls.NAME`` (``str`` gives the value)."""

    __slots__ = ()


@_base("ffi.StrEnum")
class StrEnum(Enum):
    """An enum whose members are declared by their string index (``ADD = "+"``); the integer
    index is the position. ``name`` and ``value`` are the string index; members compare and hash
    as it (``Op.ADD == "+"``)."""

    __slots__ = ()


class EnumAttrMap:
    """One extensible attribute of an enum's members, as a mapping member -> value stored in the
    enum's state (so C++ ``EnumDef::set_attr`` values show here, and values set here reach C++)."""

    __slots__ = ("_default", "_enum", "_name")

    def __init__(self, enum_cls: type, name: str, *, default: Any = MISSING) -> None:
        self._enum = enum_cls
        self._name = name
        self._default = default

    @property
    def name(self) -> str:
        """The attribute's name."""
        return self._name

    def _check(self, member: Any) -> None:
        if not isinstance(member, self._enum):
            raise TypeError(f"expected a {self._enum.__name__} member, got {type(member).__name__}")

    def _column(self, create: bool) -> Any:
        state = _state(self._enum, create=create)
        if state is None:
            return None
        column = state.attrs.get(self._name)
        if column is None and create:
            column = Dict({})
            state.attrs[self._name] = column
        return column

    def __setitem__(self, member: Any, value: Any) -> None:
        self._check(member)
        self._column(True)[member] = value

    def __getitem__(self, member: Any) -> Any:
        self._check(member)
        column = self._column(False)
        if column is not None and member in column:
            return column[member]
        if self._default is not MISSING:
            return self._default
        raise KeyError(f"{member!r} has no attribute {self._name!r}")

    def __contains__(self, member: Any) -> bool:
        if not isinstance(member, self._enum):
            return False
        column = self._column(False)
        return column is not None and member in column

    def get(self, member: Any, default: Any = None) -> Any:
        """The member's value, or `default` when it has none."""
        return self[member] if member in self else default

    def __repr__(self) -> str:
        return f"EnumAttrMap({self._enum.__name__}, {self._name!r})"


def _own_annotations(cls: type) -> dict[str, Any]:
    return dict(cls.__dict__.get("__annotations__", {}))


def _is_class_var(annotation: Any) -> bool:
    if annotation is ClassVar or typing.get_origin(annotation) is ClassVar:
        return True
    return isinstance(annotation, str) and annotation.replace(" ", "").startswith(
        ("ClassVar", "typing.ClassVar")
    )


def _take_declarations(cls: type, payload: type | None) -> tuple[list[str], dict[str, _EnumEntry]]:
    """Removes the member declarations from the class body: the names of bare ``ClassVar``
    annotations (members found by string index) and the declared members (an ``entry``/``auto``,
    or for ``IntEnum``/``StrEnum`` a plain value, its index)."""
    annotations = _own_annotations(cls)
    fields = {name for name, a in annotations.items() if not _is_class_var(a)}
    binders = [
        name
        for name, a in annotations.items()
        if not name.startswith("_") and _is_class_var(a) and name not in cls.__dict__
    ]
    declared: dict[str, _EnumEntry] = {}
    for name, value in list(cls.__dict__.items()):
        if name.startswith("_") or name in fields:
            continue
        if isinstance(value, _EnumEntry):
            declared[name] = value
        elif payload is not None and not (
            callable(value) or isinstance(value, (staticmethod, classmethod, property))
        ):
            declared[name] = _EnumEntry(value=value)
        else:
            continue
        delattr(cls, name)
    return binders, declared


def _install_payload_behaviour(cls: type, payload: type, own_repr: bool) -> None:
    """``IntEnum``/``StrEnum`` members compare, hash and print as their value; ``name`` is the
    string index. What the class body defines is kept."""

    def __eq__(self: Any, other: Any) -> Any:
        if isinstance(other, type(self)):
            return self.value == other.value
        if isinstance(other, payload):
            return self.value == other
        return NotImplemented

    def __ne__(self: Any, other: Any) -> Any:
        equal = __eq__(self, other)
        return equal if equal is NotImplemented else not equal

    defaults: dict[str, Any] = {
        "__eq__": __eq__,
        "__ne__": __ne__,
        "__hash__": lambda self: hash(self.value),
        "__str__": lambda self: str(self.value),
        "name": property(lambda self: str(self._str_index), doc="The string index."),
    }
    if not own_repr:
        defaults["__repr__"] = lambda self: f"{type(self).__name__}.{self.name}"
    for key, value in defaults.items():
        if key not in cls.__dict__ or key == "__repr__":
            setattr(cls, key, value)
    cls.__ffi_enum_payload__ = payload  # type: ignore[attr-defined]


def _make_members(
    cls: type,
    type_key: str,
    binders: list[str],
    declared: dict[str, _EnumEntry],
    in_cpp: bool,
    payload: type | None,
) -> None:
    """Finds or creates each declared member and sets it as the class attribute of its name."""
    state = _state(cls, create=True)
    assert state is not None
    for alias in binders:
        member = state.indexes.get(alias)
        if member is None:
            if in_cpp:
                raise RuntimeError(f"{type_key!r} has no enum member at string index {alias!r}")
            if payload is not None:
                raise TypeError(f"{cls.__name__}.{alias} needs a {payload.__name__} value")
            member = _new_member(cls, len(state.entries), alias, _EnumEntry(), in_cpp=False)
            _add(state, member)
        setattr(cls, alias, member)
    for alias, decl in declared.items():
        int_index, str_index, decl = _indices(cls, alias, len(state.entries), decl, payload)
        member = state.indexes.get(int_index if payload is int else str_index)
        if member is None:
            if int_index in state.indexes or str_index in state.indexes:
                raise ValueError(f"duplicate enum index in {cls.__name__}.{alias}")
            member = _new_member(cls, int_index, str_index, decl, in_cpp)
            _add(state, member)
        setattr(cls, alias, member)


def _indices(
    cls: type, alias: str, position: int, decl: _EnumEntry, payload: type | None
) -> tuple[int, str, _EnumEntry]:
    """(integer index, string index, the field values) of the member declared as `alias`."""
    kwargs = dict(decl.kwargs)
    if "_int_index" in kwargs or "_str_index" in kwargs:
        raise TypeError(f"{cls.__name__}.{alias}: enum indices are not given, they are inferred")
    if payload is None:
        return position, alias, decl
    if "value" not in kwargs:
        raise TypeError(f"{cls.__name__}.{alias} needs a {payload.__name__} value")
    value = kwargs.pop("value")
    if type(value) is not payload:
        raise TypeError(
            f"{cls.__name__}.{alias}: the value must be a {payload.__name__}, not "
            f"{type(value).__name__}"
        )
    rest = _EnumEntry(*decl.args, **kwargs)
    if payload is int:
        return _index(value), alias, rest  # type: ignore[return-value]
    return position, value, rest


def _index_fields() -> list[Any]:
    """ffi.Enum's two fields, the integer and the string index, as descriptors. They are named
    ``_int_index`` and ``_str_index``, or ``_value`` and ``_name`` in a process that a reference
    package from before 0.1.14 shares (the runtime renames them for it: ``ffi._runtime``)."""
    return _core._type_fields(_core.type_key_to_index("ffi.Enum"))[:2]


def _new_member(cls: type, int_index: int, str_index: str, decl: _EnumEntry, in_cpp: bool) -> Any:
    int_name, str_name = (field.__name__ for field in _index_fields())
    indices = {int_name: int_index, str_name: str_index}
    try:
        if not in_cpp:
            return cls(*decl.args, **indices, **decl.kwargs)
        if decl.args:
            raise TypeError("members of an enum defined in C++ take field values by keyword")
        index = _core._class_type_index(cls)
        make = _core._type_attr(index, "__ffi_new__")
        if make is None:
            raise TypeError("its C++ type registers no __ffi_new__")
        member = make()
        fields = {f.__name__: f for f in _core._type_fields(index)}
        for name, value in {**indices, **decl.kwargs}.items():
            if name not in fields:
                raise TypeError(f"no field `{name}`")
            fields[name].set(member, value)
        return member
    except Exception as exc:
        raise TypeError(f"{cls.__name__}.{str_index}: invalid enum member: {exc}") from None


def _add(state: EnumState, member: Any) -> None:
    state.entries.append(member)
    state.indexes[member._int_index] = member
    state.indexes[member._str_index] = member


# Where the runtime has renamed ffi.Enum's index fields (see _index_fields), the class keeps this
# package's names for them too.
for _field, _name in zip(_index_fields(), ("_int_index", "_str_index")):
    if _field.__name__ != _name:
        setattr(Enum, _name, _field)
del _field, _name
