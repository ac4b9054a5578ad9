"""``py_class`` made one step at a time, as the reference's private API spells it (code generators
and the reference's own tests use it): ``core._register_py_class``, ``TypeInfo._register_fields``
with ``Field(_ty_schema=...)``, ``registry._add_class_attrs``,
``_dunder._install_dataclass_dunders``."""

import itertools

import pytest

import ffi
import ffi.core as core
import ffi.registry as registry
from ffi._dunder import _install_dataclass_dunders
from ffi.core import MISSING, TypeSchema
from ffi.dataclasses import Field, fields, py_class

_keys = itertools.count()


def _key(name):
    return f"testing.steps.{name}_{next(_keys)}"


def make(name, field_list, *, parent=core.Object, **dunders):
    parent_info = core._type_cls_to_type_info(parent)
    cls = type(name, (parent,), {"__slots__": ()})
    info = core._register_py_class(parent_info, _key(name), cls)
    info._register_fields(field_list)
    registry._add_class_attrs(cls, info)
    _install_dataclass_dunders(cls, **{"init": True, "repr": True, **dunders})
    return cls, info


def test_each_step():
    parent_info = core._type_cls_to_type_info(core.Object)
    cls = type("Point", (core.Object,), {"__slots__": ()})
    key = _key("Point")
    info = core._register_py_class(parent_info, key, cls)
    assert info.type_key == key and info.type_cls is cls
    assert info.parent_type_info is parent_info
    assert info.type_ancestors == [parent_info.type_index]
    assert info.fields is None and info.methods == []  # until _register_fields
    info._register_fields(
        [
            Field(name="x", _ty_schema=TypeSchema("int")),
            Field(name="label", _ty_schema=TypeSchema("str"), default="p"),
            Field(name="w", _ty_schema=TypeSchema("float"), default=1),
        ]
    )
    assert [f.name for f in info.fields] == ["x", "label", "w"]
    offsets = [f.offset for f in info.fields]
    assert offsets == sorted(offsets) and offsets[0] == 24  # after the object header
    assert core._lookup_type_attr(info.type_index, "__ffi_init__") is not None
    with pytest.raises(RuntimeError, match="registered already"):
        info._register_fields([])
    registry._add_class_attrs(cls, info)
    _install_dataclass_dunders(cls, init=True, repr=True, eq=True, order=False, unsafe_hash=False)
    p = cls(3)
    assert (p.x, p.label, p.w) == (3, "p", 1.0)  # the default converted: a float
    assert type(p.w) is float
    assert repr(p) == f'{key}(x=3, label="p", w=1)'  # floats print as the reference's do
    assert p == cls(x=3, label="p", w=1.0)
    assert [f.name for f in fields(cls)] == ["x", "label", "w"]
    reloaded = core._lookup_or_register_type_info_from_type_key(key)
    assert reloaded.type_cls is cls and [f.name for f in reloaded.fields] == ["x", "label", "w"]


def test_writes_convert_by_the_type_schema():
    cls, _ = make(
        "Typed",
        [
            Field(name="n", _ty_schema=TypeSchema("int"), default=MISSING),
            Field(name="xs", _ty_schema=TypeSchema("list", (TypeSchema("int"),))),
            Field(name="o", _ty_schema=TypeSchema("Optional", (TypeSchema("Object"),))),
        ],
    )
    obj = cls(n=True, xs=[1, 2], o=None)
    assert obj.n == 1 and type(obj.n) is int  # a bool is an int, as C++ casts it
    assert isinstance(obj.xs, ffi.List) and list(obj.xs) == [1, 2]
    with pytest.raises(TypeError, match="expected int, got str"):
        obj.n = "one"
    assert obj.n == 1  # unchanged
    with pytest.raises(TypeError):
        obj.xs = [1, "a"]
    with pytest.raises(TypeError):
        cls(n="bad")


def test_a_registered_key_is_refused_and_the_first_type_stays():
    cls, info = make("Dup", [Field(name="x", _ty_schema=TypeSchema("int"))])
    other = type("Dup2", (core.Object,), {"__slots__": ()})
    with pytest.raises(ValueError, match="already registered"):
        core._register_py_class(info.parent_type_info, info.type_key, other)
    assert core._lookup_or_register_type_info_from_type_key(info.type_key).type_cls is cls
    assert cls(x=1).x == 1


def test_steps_on_a_py_class_parent():
    @py_class(_key("Base"))
    class Base(ffi.Object):
        a: int

    cls, info = make("Child", [Field(name="b", _ty_schema=TypeSchema("str"))], parent=Base)
    assert info.parent_type_info.type_cls is Base
    obj = cls(1, "x")
    assert (obj.a, obj.b) == (1, "x") and isinstance(obj, Base)
    assert info.fields[0].offset >= 32  # after the parent's field


def test_a_field_made_directly_is_out_of_comparisons():
    # As the reference's: Field() leaves compare off, field() turns it on.
    assert Field(name="x").compare is False
    assert ffi.dataclasses.field().compare is True
    recursive_eq = ffi.get_global_func("ffi.RecursiveEq")
    off, _ = make("CmpOff", [Field(name="x", _ty_schema=TypeSchema("int"))], eq=True)
    on, _ = make("CmpOn", [Field(name="x", _ty_schema=TypeSchema("int"), compare=True)], eq=True)
    assert recursive_eq(off(x=1), off(x=2))
    assert not recursive_eq(on(x=1), on(x=2))
    assert "_ty_schema" not in repr(Field(name="x", _ty_schema=TypeSchema("int")))


def test_bad_steps_are_type_errors():
    parent_info = core._type_cls_to_type_info(core.Object)
    with pytest.raises(TypeError, match="must inherit from ffi.Object"):
        core._register_py_class(parent_info, _key("NotObject"), int)
    with pytest.raises(TypeError, match="TypeInfo"):
        core._register_py_class("ffi.Object", _key("NoInfo"), type("X", (core.Object,), {}))
    cls = type("BadFields", (core.Object,), {"__slots__": ()})
    info = core._register_py_class(parent_info, _key("BadFields"), cls)
    with pytest.raises(TypeError, match="named Field"):
        info._register_fields([Field()])
    with pytest.raises(TypeError, match="_ty_schema must be a TypeSchema"):
        info._register_fields([Field(name="x", _ty_schema="int")])
    unbound = type("Unbound", (core.Object,), {"__slots__": ()})
    with pytest.raises(TypeError, match="not bound"):
        _install_dataclass_dunders(unbound)
    with pytest.raises(ValueError, match="order=True requires eq=True"):
        _install_dataclass_dunders(cls, order=True)


def test_c_class_fields_reattached_from_annotations():
    from ffi.dataclasses.c_class import _attach_field_objects
    from ffi.testing import _TestCxxClassBase

    info = _TestCxxClassBase.__tvm_ffi_type_info__
    assert all(tf.dataclass_field._ty_schema is tf.ty for tf in info.fields)
    saved = [tf.dataclass_field for tf in info.fields]
    try:
        _attach_field_objects(_TestCxxClassBase, info)
        assert all(tf.dataclass_field.type is int for tf in info.fields)
        assert [tf.dataclass_field.name for tf in info.fields] == [tf.name for tf in info.fields]

        class Unresolvable:
            x: "NoSuchName"  # noqa: F821

        for bare in (type("Bare", (), {}), Unresolvable):
            _attach_field_objects(bare, info)
            assert all(tf.dataclass_field.type is None for tf in info.fields)
    finally:
        for tf, field_ in zip(info.fields, saved):
            tf.dataclass_field = field_
