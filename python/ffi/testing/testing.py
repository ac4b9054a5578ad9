"""Python classes for the testing library's object types, and small helpers around them.

Each class binds a ``testing.*`` type key with :func:`ffi.dataclasses.c_class`, so fields,
constructors, equality and ordering come from the type's reflection; the annotations list the
fields for readers and type checkers. ``__test__ = False`` keeps pytest from collecting the
``Test*`` names as test classes.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .._core import Device, Object, dtype
from .._type_info import lookup_type_attr
from ..dataclasses import IntEnum, StrEnum, c_class, entry
from ..registry import get_global_func
from . import _ffi_api

try:  # markers for tests written against the reference's module; pytest is optional here
    import pytest

    #: Skips a test below Python 3.10.
    requires_py310 = pytest.mark.skipif(sys.version_info < (3, 10), reason="requires Python 3.10+")
    #: Skips a test below Python 3.12.
    requires_py312 = pytest.mark.skipif(sys.version_info < (3, 12), reason="requires Python 3.12+")
    #: Skips a test below Python 3.13.
    requires_py313 = pytest.mark.skipif(sys.version_info < (3, 13), reason="requires Python 3.13+")
except ImportError:  # pragma: no cover - only without pytest
    pass


@c_class("testing.TestObjectBase")
class TestObjectBase(Object):
    """Fields with defaults (``v_i64=10``, read-only ``v_f64=10.0``, ``v_str="hello"``) and a
    method ``add_i64(x) -> v_i64 + x``; one child type."""

    __test__: ClassVar[bool] = False
    v_i64: int
    v_f64: float
    v_str: str


@c_class("testing.TestIntPair")
class TestIntPair(Object):
    """An explicit constructor ``TestIntPair(a, b)``, read-only ``a`` and ``b``, ``sum()``."""

    __test__: ClassVar[bool] = False
    a: int
    b: int


@c_class("testing.TestFrozenCxx", frozen=True)
class TestFrozenCxx(Object):
    """Fields writable in C++, frozen on the Python side (``frozen=True``)."""

    __test__: ClassVar[bool] = False
    value: int
    tag: str


@c_class("testing.TestObjectDerived")
class TestObjectDerived(TestObjectBase):
    """:class:`TestObjectBase` plus a map ``v_map`` and an array ``v_array`` (both required)."""

    __test__: ClassVar[bool] = False
    v_map: Mapping[Any, Any]
    v_array: Sequence[Any]


@c_class("testing.TestObjectPtrHolder")
class TestObjectPtrHolder(Object):
    """A never-null ``value`` (an ``Arc``) and a nullable ``optional_value`` (default None)."""

    __test__: ClassVar[bool] = False
    value: TestObjectBase
    optional_value: TestObjectBase | None


@c_class("testing.TestNonCopyable")
class TestNonCopyable(Object):
    """A type C++ cannot copy: ``TestNonCopyable(value)``, read-only ``value``."""

    __test__: ClassVar[bool] = False
    value: int


@c_class("testing.SchemaAllTypes")
class _SchemaAllTypes(Object):
    """One field of each type the signature schema describes, methods over them, and the static
    constructor ``make_with(v_int, v_float, v_string)``."""

    v_bool: bool
    v_int: int
    v_float: float
    v_device: Device
    v_dtype: dtype
    v_string: str
    v_bytes: bytes
    v_opt_int: int | None
    v_opt_str: str | None
    v_arr_int: Sequence[int]
    v_arr_str: Sequence[str]
    v_map_str_int: Mapping[str, int]
    v_map_str_arr_int: Mapping[str, Sequence[int]]
    v_variant: str | Sequence[int] | Mapping[str, int]
    v_opt_arr_variant: Sequence[int | str] | None


def create_object(type_key: str, **kwargs: Any) -> Object:
    """Create an object of `type_key` by reflection, with the given field values (fields left
    out take their reflected defaults). For tests only.

    Parameters
    ----------
    type_key
        The registered type key, such as ``"testing.TestObjectBase"``.
    kwargs
        Field name -> value.

    Returns
    -------
    Object
        The new object, as its registered Python class.
    """
    args: list[Any] = [type_key]
    for name, value in kwargs.items():
        args += [name, value]
    return get_global_func("ffi.MakeObjectFromPackedArgs")(*args)


def make_unregistered_object() -> Object:
    """An object of ``testing.TestUnregisteredObject``, a type no Python class is bound to (it
    arrives as :class:`ffi.Object` with its reflected fields)."""
    return _ffi_api.make_unregistered_object()


def add_one(x: int) -> int:
    """``x + 1``, computed by the testing library."""
    return _ffi_api.add_one(x)


@c_class("testing.TestCompare")
class TestCompare(Object):
    """``TestCompare(key, name, ignored_field)``; comparison leaves out ``ignored_field``."""

    __test__: ClassVar[bool] = False
    key: int
    name: str
    ignored_field: int


@c_class("testing.TestHash")
class TestHash(Object):
    """``TestHash(key, name, hash_ignored)``; hashing leaves out ``hash_ignored``."""

    __test__: ClassVar[bool] = False
    key: int
    name: str
    hash_ignored: int


@c_class("testing.TestCustomHash")
class TestCustomHash(Object):
    """``TestCustomHash(key, label)`` with a ``__ffi_hash__`` hook that hashes ``key`` only."""

    __test__: ClassVar[bool] = False
    key: int
    label: str


@c_class("testing.TestCustomCompare")
class TestCustomCompare(Object):
    """``TestCustomCompare(key, label)`` with hooks that hash, compare and order by ``key``
    only."""

    __test__: ClassVar[bool] = False
    key: int
    label: str


@c_class("testing.TestEqWithoutHash")
class TestEqWithoutHash(Object):
    """``TestEqWithoutHash(key, label)``: an equality hook and no hash hook, so hashing it by
    content is refused."""

    __test__: ClassVar[bool] = False
    key: int
    label: str


@c_class("testing.TestCxxClassBase")
class _TestCxxClassBase(Object):
    """Two fields left out of ``repr``; its Python ``__init__`` calls the reflected constructor
    with ``v_i64 + 1`` and ``v_i32 + 2``, so tests can see which ``__init__`` ran."""

    v_i64: int
    v_i32: int
    not_field_1 = 1
    not_field_2: ClassVar[int] = 2

    def __init__(self, v_i64: int, v_i32: int) -> None:
        type_index = type(self).__tvm_ffi_type_info__.type_index
        ffi_init = lookup_type_attr(type_index, "__ffi_init__")
        self.__init_handle_by_constructor__(ffi_init, v_i64 + 1, v_i32 + 2)


@c_class("testing.TestCxxClassDerived", eq=True, order=True, unsafe_hash=True)
class _TestCxxClassDerived(_TestCxxClassBase):
    """Adds ``v_f64`` and ``v_f32`` (default 8.0), with equality, ordering and hashing."""

    v_f64: float
    v_f32: float


@c_class("testing.TestCxxClassDerivedDerived")
class _TestCxxClassDerivedDerived(_TestCxxClassDerived):
    """Adds ``v_str`` (default ``"default"``) and ``v_bool``."""

    v_str: str
    v_bool: bool


class _TestCxxIntEnum(IntEnum, type_key="testing.TestCxxIntEnum"):
    """An integer enum whose entries are defined here: ``low`` (10) and ``high`` (20)."""

    low = entry(value=10)
    high = entry(value=20)


class _TestCxxStrEnum(StrEnum, type_key="testing.TestCxxStrEnum"):
    """A string enum whose entries are defined here: ``add`` ("+") and ``mul`` ("*")."""

    add = entry(value="+")
    mul = entry(value="*")


@c_class("testing.TestCxxEnumHolder")
class _TestCxxEnumHolder(Object):
    """Two enum-typed fields, ``priority`` and ``opcode``."""

    __test__: ClassVar[bool] = False
    priority: _TestCxxIntEnum
    opcode: _TestCxxStrEnum


@c_class("testing.TestCxxInitSubset")
class _TestCxxInitSubset(Object):
    """Only ``required_field`` is a constructor argument; ``optional_field`` (-1) and ``note``
    ("default") take their defaults."""

    required_field: int
    optional_field: int
    note: str


@c_class("testing.TestCxxKwOnly")
class _TestCxxKwOnly(Object):
    """Keyword-only fields ``x``, ``y``, ``z`` and ``w`` (default 100)."""

    x: int
    y: int
    z: int
    w: int


@c_class("testing.TestCxxAutoInit")
class _TestCxxAutoInit(Object):
    """An auto-generated constructor ``(a, d=99, *, c)``; ``b`` is not an argument (42)."""

    __test__: ClassVar[bool] = False
    a: int
    b: int
    c: int
    d: int


@c_class("testing.TestCxxAutoInitSimple")
class _TestCxxAutoInitSimple(Object):
    """An auto-generated constructor ``(x, y)``."""

    __test__: ClassVar[bool] = False
    x: int
    y: int


@c_class("testing.TestCxxAutoInitAllInitOff")
class _TestCxxAutoInitAllInitOff(Object):
    """No constructor arguments: ``x`` = 7 and ``y`` = 9 from reflection, ``z`` = 1234 as C++
    constructs it."""

    __test__: ClassVar[bool] = False
    x: int
    y: int
    z: int


@c_class("testing.TestCxxAutoInitKwOnlyDefaults")
class _TestCxxAutoInitKwOnlyDefaults(Object):
    """``(p_required, p_default=11, *, k_required, k_default=22)``; ``hidden`` is 33."""

    __test__: ClassVar[bool] = False
    p_required: int
    p_default: int
    k_required: int
    k_default: int
    hidden: int


@c_class("testing.TestCxxNoAutoInit", init=False)
class _TestCxxNoAutoInit(Object):
    """Fields ``x`` and ``y`` but no constructor (``init(false)`` on the C++ class)."""

    __test__: ClassVar[bool] = False
    x: int
    y: int


@c_class("testing.TestCxxAutoInitParent")
class _TestCxxAutoInitParent(Object):
    """``(parent_required, parent_default=5)``; one child type."""

    __test__: ClassVar[bool] = False
    parent_required: int
    parent_default: int


@c_class("testing.TestCxxAutoInitChild")
class _TestCxxAutoInitChild(_TestCxxAutoInitParent):
    """The parent's fields, then ``child_required`` and keyword-only ``child_kw_only``:
    ``(parent_required, child_required, parent_default=5, *, child_kw_only)``."""

    __test__: ClassVar[bool] = False
    child_required: int
    child_kw_only: int
