"""Type descriptions and the reference's module paths: ``cls.__tvm_ffi_type_info__`` (TypeInfo,
TypeField, TypeMethod) for C++ types registered by libraries built with our headers and with the
reference's (tests/cpp/loader/reflection_lib.cc), for py_class, c_class and enum classes;
TypeSchema parsing and rendering; and ``ffi.core`` / ``ffi.container`` / ``ffi.module`` /
``ffi.stream`` / ``ffi.registry`` / ``ffi.error`` holding the reference's names."""

import json
import os
from typing import Optional

import pytest
from support.build import build_with_both_headers
from support.paths import TESTS_DIR

import ffi
import ffi.container
import ffi.core
import ffi.error
import ffi.module
import ffi.registry
import ffi.stream
from ffi.core import MISSING, TypeField, TypeInfo, TypeMethod, TypeSchema
from ffi.dataclasses import Field, c_class, field, py_class

LIB_SRC = os.path.join(TESTS_DIR, "..", "cpp", "loader", "reflection_lib.cc")
K_INT, K_FLOAT, K_OBJECT, K_ARRAY = 1, 3, 64, 71  # TVMFFITypeIndex values


def test_reference_module_paths_hold_the_same_objects():
    assert ffi.container.Array is ffi.Array and ffi.container.Map is ffi.Map
    assert ffi.container.List is ffi.List and ffi.container.Dict is ffi.Dict
    assert ffi.module.Module is ffi.Module and ffi.module.load_module is ffi.load_module
    assert ffi.module.system_lib is ffi.system_lib
    assert ffi.stream.StreamContext is ffi.StreamContext
    assert ffi.stream.use_raw_stream is ffi.use_raw_stream
    assert ffi.stream.get_raw_stream is ffi.get_raw_stream
    assert ffi.registry.register_global_func is ffi.register_global_func
    assert ffi.registry.get_global_func is ffi.get_global_func
    assert ffi.registry.list_global_func_names is ffi.list_global_func_names
    assert ffi.error.register_error is ffi.register_error
    assert ffi.core.Object is ffi.Object and ffi.core.Function is ffi.Function
    assert ffi.core.Tensor is ffi.Tensor and ffi.core.Device is ffi.Device
    assert ffi.core.DataType is ffi.dtype and ffi.core.Error is ffi.Error
    assert ffi.core.ObjectConvertible is ffi.ObjectConvertible
    assert ffi.core.MISSING is ffi.dataclasses.MISSING
    assert ffi.core.String is str and ffi.core.Bytes is bytes
    assert ffi.utils.kwargs_wrapper is not None


# ---- C++ types, from libraries built with either header set -----------------------------------


@pytest.fixture(scope="module")
def counter_libs(tmp_path_factory):
    # Prefixes of their own: other modules load copies of the same source under theirs.
    libs = build_with_both_headers(
        LIB_SRC, ["tiours", "tiref"], "REFL_LIB_PREFIX", str(tmp_path_factory.mktemp("ti"))
    )
    for path in libs.values():
        ffi.load_module(path)
    return libs


@pytest.mark.parametrize("prefix", ["tiours", "tiref"])
def test_type_info_of_a_registered_cpp_type(counter_libs, prefix):
    if prefix not in counter_libs:
        pytest.skip("apache-tvm-ffi is not installed")

    @ffi.register_object(f"{prefix}.Counter")
    class Counter(ffi.Object):
        pass

    info = Counter.__tvm_ffi_type_info__
    assert isinstance(info, TypeInfo)
    c = Counter(3, "a")
    assert info.type_key == f"{prefix}.Counter" and info.type_index == c.type_index
    assert info.type_cls is Counter and info.type_ancestors == [K_OBJECT]
    assert info.parent_type_info.type_key == "ffi.Object"
    assert info.parent_type_info.type_cls is ffi.Object
    assert info.parent_type_info.parent_type_info is None
    assert c.__tvm_ffi_type_info__.type_key == info.type_key  # read on an instance too

    fields = {f.name: f for f in info.fields}
    assert [f.name for f in info.fields] == ["count", "scale", "name", "tags"]
    assert all(isinstance(f, TypeField) for f in info.fields)
    count, scale, name, tags = (fields[k] for k in ("count", "scale", "name", "tags"))
    assert count.frozen and not scale.frozen and name.frozen and not tags.frozen
    assert count.doc == "The count so far." and scale.doc is None
    assert (count.size, count.alignment, count.field_static_type_index) == (8, 8, K_INT)
    assert scale.field_static_type_index == K_FLOAT and count.offset >= 24
    # A String field is 16 bytes (the Any holding it) under both header sets.
    assert (name.size, name.alignment, name.field_static_type_index) == (16, 8, -1)
    assert len({f.offset for f in info.fields}) == 4
    assert scale.c_has_default and scale.c_default == 1.5 and scale.c_default_factory is MISSING
    assert tags.c_has_default and tags.c_default is MISSING and callable(tags.c_default_factory)
    assert not count.c_has_default and count.c_default is MISSING
    assert name.metadata["shown"] is True
    assert count.ty == TypeSchema("int") and name.ty == TypeSchema("str")
    assert tags.ty.repr() == "Array[str]"
    assert isinstance(count.dataclass_field, Field) and count.dataclass_field.name == "count"

    assert count.getter(c) == 3
    count.setter(c, 9)  # writes even a read-only field, as the C++ setter does
    assert c.count == 9 and c.peek() == 9
    scale.setter(c, 2.0)
    assert c.scale == 2.0

    methods = {m.name: m for m in info.methods}
    assert all(isinstance(m, TypeMethod) for m in info.methods)
    assert {"add", "peek", "scaled", "zero", "__ffi_init__"} <= set(methods)
    assert methods["add"].doc == "Adds k and returns the count." and not methods["add"].is_static
    assert methods["add"].func(c, 1) == 10  # the object first
    assert methods["zero"].is_static and methods["zero"].func().count == 0
    assert methods["peek"].metadata == {} or isinstance(methods["peek"].metadata, dict)


def test_type_info_of_an_unregistered_type_and_of_plain_classes(counter_libs):
    obj = ffi.get_global_func("tiours.make_counter")(1, "b")
    info = type(obj).__tvm_ffi_type_info__  # the class generated for the type
    assert info.type_key == "tiours.Counter" and info.type_cls is type(obj)
    assert [f.name for f in info.fields] == ["count", "scale", "name", "tags"]
    assert ffi.Object.__tvm_ffi_type_info__.type_key == "ffi.Object"

    class Plain(ffi.Object):  # bound to no type: ffi.Object's
        pass

    assert Plain.__tvm_ffi_type_info__.type_index == K_OBJECT
    assert ffi.Array.__tvm_ffi_type_info__.type_index == K_ARRAY
    assert ffi.Array.__tvm_ffi_type_info__.type_cls is ffi.Array


# ---- classes defined in Python ----------------------------------------------------------------


def test_type_info_of_py_class():
    @py_class("testti.Pair")
    class Pair(ffi.Object):
        """Two values."""

        a: int
        b: Optional[str] = field(default=None, kw_only=True, repr=False)
        items: list = field(default_factory=list)

    info = Pair.__tvm_ffi_type_info__
    assert info.type_key == "testti.Pair" and info.type_cls is Pair
    a, b, items = info.fields
    assert (a.name, b.name, items.name) == ("a", "b", "items")
    assert a.ty == TypeSchema("int") and b.ty.repr() == "str | None"
    assert not a.c_has_default and b.c_default is None and b.c_kw_only and not b.c_repr
    assert callable(items.c_default_factory) and items.c_default is MISSING
    assert not any(f.frozen for f in info.fields)
    p = Pair(1, b="x")
    assert a.getter(p) == 1 and b.getter(p) == "x"
    a.setter(p, 5)
    assert p.a == 5

    @py_class("testti.Frozen", frozen=True)
    class Frozen(ffi.Object):
        v: float = 1.0

    (v,) = Frozen.__tvm_ffi_type_info__.fields
    assert v.frozen and v.ty == TypeSchema("float") and v.c_default == 1.0
    f = Frozen()
    with pytest.raises(AttributeError):
        f.v = 2.0
    v.setter(f, 2.0)  # the setter writes frozen fields
    assert f.v == 2.0

    @py_class("testti.Child")
    class Child(Pair):
        c: int = 0

    child = Child.__tvm_ffi_type_info__
    assert [f.name for f in child.fields] == ["c"]  # own fields; the parent's on its info
    assert child.parent_type_info.type_key == "testti.Pair"
    assert child.type_ancestors == [K_OBJECT, info.type_index]


def test_type_info_of_c_class_and_enum(counter_libs):
    @c_class("tiours.Counter")
    class Counter(ffi.Object):
        count: int
        scale: float

    info = Counter.__tvm_ffi_type_info__
    assert info.type_cls is Counter and info.type_key == "tiours.Counter"
    assert {f.name for f in info.fields} == {"count", "scale", "name", "tags"}

    from ffi.dataclasses import IntEnum

    class Level(IntEnum, type_key="testti.Level"):
        LOW = 1
        HIGH = 2

    level = Level.__tvm_ffi_type_info__
    assert level.type_key == "testti.Level" and level.type_cls is Level
    assert level.parent_type_info.type_key == "ffi.IntEnum"


# ---- type schemas -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, shown",
    [
        ('{"type": "int"}', "int"),
        ('{"type": "ffi.String"}', "str"),
        ('{"type": "ffi.Array", "args": [{"type": "int"}]}', "Array[int]"),
        ('{"type": "ffi.Array"}', "Array[Any]"),
        ('{"type": "ffi.Map", "args": [{"type": "ffi.String"}, {"type": "float"}]}',
         "Map[str, float]"),
        ('{"type": "Optional", "args": [{"type": "ffi.Tensor"}]}', "Tensor | None"),
        ('{"type": "Variant", "args": [{"type": "int"}, {"type": "ffi.String"}]}', "int | str"),
        ('{"type": "std::vector", "args": [{"type": "bool"}]}', "Array[bool]"),
        ('{"type": "ffi.Function", "named_args": {"return": [{"type": "int"}], '
         '"params": [{"type": "float"}, {"type": "ffi.Object"}]}}',
         "Callable[[float, Object], int]"),
        ('{"type": "ffi.Function"}', "Callable[..., Any]"),
        ('{"type": "std::array", "args": [{"type": "int"}, 3]}', "std::array[int]"),
        ('{"type": "Tuple", "args": []}', "tuple[()]"),
    ],
)  # fmt: skip
def test_type_schema_parses_and_renders(text, shown):
    schema = TypeSchema.from_json_str(text)
    assert repr(schema) == shown and schema.repr() == shown
    again = TypeSchema.from_json_obj(json.loads(json.dumps(schema.to_json())))
    assert again == schema and hash(again) == hash(schema)


def test_type_schema_indices_and_errors(counter_libs):
    assert TypeSchema("Array").origin_type_index == K_ARRAY
    assert TypeSchema("Optional", (TypeSchema("int"),)).origin_type_index == -2
    assert TypeSchema("no.such.Type").origin_type_index == -3
    index = ffi.core.Object.__tvm_ffi_type_info__.type_index
    assert TypeSchema("ffi.Object").origin_type_index == index == K_OBJECT
    key = "tiours.Counter"
    assert TypeSchema(key).origin_type_index == ffi.registry._type_index(key)
    assert TypeSchema.from_type_index(K_ARRAY).repr() == "Array[Any]"
    assert TypeSchema.from_type_index(ffi.registry._type_index(key)).origin == key
    assert TypeSchema.from_type_index(11).origin == "str"  # a small string is a str
    assert TypeSchema("str").repr(ty_map=str.upper) == "STR"
    with pytest.raises(ValueError, match="Optional takes exactly one type argument"):
        TypeSchema("Optional")
    with pytest.raises(ValueError, match="Union takes at least two"):
        TypeSchema("Union", (TypeSchema("int"),))
    with pytest.raises(ValueError, match="nonempty"):
        TypeSchema("")
    with pytest.raises(TypeError, match="TypeSchema instances"):
        TypeSchema("Array", ("int",))
    with pytest.raises(TypeError, match="string 'type'"):
        TypeSchema.from_json_obj({"args": []})
    with pytest.raises(ValueError):
        TypeSchema.from_type_index(1 << 30)  # no such type


def test_core_lookup_helpers_and_kwargs_marker():
    # The reference's ffi.core helpers: a type attribute by index, a class's TypeInfo, and the
    # KWARGS marker of the runtime's keyword protocol (a reflected __ffi_init__ reads it).
    @py_class("test.typeinfo.KwPoint")
    class KwPoint(ffi.Object):
        a: int
        c: int = 5

    @py_class("test.typeinfo.KwPoint3")
    class KwPoint3(KwPoint):
        d: int = 0

    index = KwPoint.__tvm_ffi_type_info__.type_index
    init = ffi.core._lookup_type_attr(index, "__ffi_init__")
    assert isinstance(init, ffi.Function)
    made = init(ffi.core.KWARGS, "a", 1, "c", 3)
    assert isinstance(made, KwPoint) and (made.a, made.c) == (1, 3)
    assert init(ffi.core.KWARGS, "a", 2).c == 5
    with pytest.raises(TypeError):
        init(ffi.core.KWARGS, "a", 1, "unknown", 2)
    assert ffi.core._lookup_type_attr(index, "no_such_attribute") is None
    # With ancestor=True, a type without its own attribute gets its nearest ancestor's.
    sub = KwPoint3.__tvm_ffi_type_info__.type_index
    ffi._core._py_class_set_type_attr(index, "test_typeinfo_attr", 7)
    assert ffi.core._lookup_type_attr(sub, "test_typeinfo_attr") is None
    assert ffi.core._lookup_type_attr(sub, "test_typeinfo_attr", ancestor=True) == 7
    assert ffi.core._type_cls_to_type_info(KwPoint).type_key == "test.typeinfo.KwPoint"
    assert ffi.core._type_cls_to_type_info(int) is None


@pytest.mark.parametrize(
    "cls, key, parent",
    [
        (ffi.Object, "ffi.Object", None),
        (ffi.core.DataType, "DataType", None),
        (ffi.Device, "Device", None),
        (ffi.core.String, "ffi.String", ffi.Object),
        (ffi.core.Bytes, "ffi.Bytes", ffi.Object),
        (ffi.Shape, "ffi.Shape", ffi.Object),
        (ffi.Tensor, "ffi.Tensor", ffi.Object),
        (ffi.Array, "ffi.Array", ffi.Object),
        (ffi.Function, "ffi.Function", ffi.Object),
    ],
)
def test_type_info_of_the_builtin_classes(cls, key, parent):
    # The classes values of the built-in types arrive as (str for ffi.String, ffi.dtype for
    # DataType, ...) are the type_cls of those types' TypeInfo, and map back to it.
    info = ffi.core._type_cls_to_type_info(cls)
    assert info.type_key == key and info.type_cls is cls
    assert (info.parent_type_info.type_cls if info.parent_type_info else None) is parent


def test_total_size_is_the_objects_size():
    from ffi.dataclasses import py_class

    @py_class("test.typeinfo.Sized")
    class Sized(ffi.Object):
        flag: bool
        count: int

    # 24-byte header, a bool padded to 8, an int64.
    assert Sized.__tvm_ffi_type_info__.total_size == 40
    import ffi.testing as t

    # C++ types report sizeof: here the end of the last field (header, int64, double, String).
    for cls in (t.TestObjectBase, t.TestObjectDerived):
        info = cls.__tvm_ffi_type_info__
        end = max(f.offset + f.size for f in info.fields)
        assert info.total_size == (end + 7) // 8 * 8
    base = t.TestObjectBase.__tvm_ffi_type_info__.total_size
    assert t.TestObjectDerived.__tvm_ffi_type_info__.total_size == base + 16  # + Map, Array
