"""ffi.dataclasses.py_class: how a class's fields are declared and resolved. Computed fields
(init_property), annotations of plain base classes, annotations naming classes defined later,
dtype and device fields, field() options, redeclared and default-factory fields, and the
reference's module paths of these names. Each test defines its own classes; the instances of
shared ones, and what the runtime does with them, are test_py_class.py."""

# Annotations stay Optional[...]: py_class evaluates them, and Python 3.9 cannot evaluate X | None.
# ruff: noqa: UP007, UP045
from __future__ import annotations

import copy
import inspect
from typing import Optional

import pytest

import ffi
from ffi.dataclasses import asdict, field, fields, py_class

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_init_property_is_a_computed_field():
    from ffi.dataclasses import init_property

    order = []

    @py_class("test.pyclass.Rect", frozen=True, eq=True)
    class Rect(ffi.Object):
        w: int
        h: int

        @init_property
        def area(self) -> int:
            """The rectangle's area."""
            order.append("area")
            return self.w * self.h

        def __post_init__(self):
            order.append(("post", self.area))

    r = Rect(2, 3)
    # Computed once, after the fields and before __post_init__; not a constructor parameter.
    assert r.area == 6 and order == ["area", ("post", 6)]
    assert list(inspect.signature(Rect).parameters) == ["w", "h"]
    (area,) = [f for f in fields(Rect) if f.name == "area"]
    assert not area.init and area.type is int and area.doc == "The rectangle's area."
    # A stored field: C++ reads it through reflection, copies keep it.
    assert copy.copy(r).area == 6 and asdict(r) == {"w": 2, "h": 3, "area": 6}
    with pytest.raises(TypeError):
        Rect(2, 3, 6)
    # Typed by the return annotation: a wrong type is refused when the object is made.

    @py_class("test.pyclass.BadRect")
    class BadRect(ffi.Object):
        w: int

        @init_property
        def label(self) -> int:
            return "not an int"

    with pytest.raises(TypeError):
        BadRect(1)
    with pytest.raises(TypeError, match="needs a function"):
        init_property(3)


def test_reference_module_paths_of_dataclasses():
    # The reference's submodules and public names, for code written against it.
    from ffi.dataclasses import Object, init_property
    from ffi.dataclasses.c_class import c_class
    from ffi.dataclasses.common import asdict as common_asdict
    from ffi.dataclasses.field import Field
    from ffi.dataclasses.field import field as field_fn
    from ffi.dataclasses.py_class import py_class as py_class_fn

    assert Object is ffi.Object and common_asdict is asdict and field_fn is field
    assert py_class_fn is py_class and c_class is ffi.dataclasses.c_class
    assert Field is ffi.dataclasses.Field and init_property is ffi.dataclasses.init_property
    assert {"Object", "init_property"} <= set(ffi.dataclasses.__all__)


def test_fields_of_plain_base_classes_are_collected():
    # Annotations of plain Python classes between a py_class and the FFI type it extends are
    # fields too (base-most first), as in the reference; a later declaration replaces in place.
    @py_class("test.pyclass.NpcNode")
    class Node(ffi.Object):
        x: int

    class BinOp(Node):
        lhs: int
        rhs: int = 7

    class Named(BinOp):
        name: str = "op"
        lhs: int = 0  # redeclared: keeps its place, takes the new default

    @py_class("test.pyclass.NpcAdd")
    class Add(Named):
        scale: float = 1.0

    assert [f.name for f in fields(Add)] == ["x", "lhs", "rhs", "name", "scale"]
    a = Add(x=1, rhs=2)
    assert (a.x, a.lhs, a.rhs, a.name, a.scale) == (1, 0, 2, "op", 1.0)
    with pytest.raises(TypeError):
        a.lhs = "not an int"  # typed like any field
    # Only up to the nearest FFI type: Node's own field is inherited, not declared again.
    assert [f.name for f in Node.__tvm_ffi_type_info__.fields] == ["x"]
    assert [f.name for f in Add.__tvm_ffi_type_info__.fields] == ["lhs", "rhs", "name", "scale"]


def test_classes_naming_each_other_wait_for_the_names():
    # An annotation naming a class defined later: the type is made once the name exists (when
    # the later py_class is defined), as in the reference.
    @py_class("test.pyclass.FwdFoo")
    class Foo(ffi.Object):
        value: int
        bar: Optional[Bar]  # noqa: F821 (defined below)

    @py_class("test.pyclass.FwdBar")
    class Bar(ffi.Object):
        value: int
        foo: Optional[Foo]

    foo = Foo(value=1, bar=Bar(value=2, foo=None))
    assert foo.bar.value == 2 and foo.bar.foo is None
    assert [f.name for f in fields(Foo)] == ["value", "bar"]
    with pytest.raises(TypeError, match="bar"):
        Foo(value=1, bar=3)  # typed: the converter checks against Bar
    # The type schema names the other type by its key.
    (bar_field,) = [f for f in Foo.__tvm_ffi_type_info__.fields if f.name == "bar"]
    assert "test.pyclass.FwdBar" in str(bar_field.ty)

    # A subclass of a waiting class waits with it; a body's own __init__ is kept.
    @py_class("test.pyclass.FwdEarly")
    class Early(ffi.Object):
        ref: Optional[Late]  # noqa: F821 (defined below, not a py_class)

    @py_class("test.pyclass.FwdEarlyChild")
    class EarlyChild(Early):
        n: int

        def __init__(self, n):
            self.__ffi_init__(ref=None, n=n * 10)

    Late = Bar  # the name exists now; the next instantiation makes the types
    child = EarlyChild(4)
    assert (child.n, child.ref) == (40, None)
    assert Early(ref=Late(value=5, foo=None)).ref.value == 5


def test_unresolvable_annotations_are_reported_on_instantiation():
    @py_class("test.pyclass.FwdBroken")
    class Broken(ffi.Object):
        missing: NoSuchType  # noqa: F821

    with pytest.raises(TypeError, match="Cannot instantiate Broken.*missing: NoSuchType"):
        Broken(missing=1)
    with pytest.raises(TypeError, match="Cannot instantiate Broken"):
        Broken(missing=1)  # still waiting, still refused


def test_dtype_and_device_fields():
    import numpy as np

    torch = pytest.importorskip("torch")  # the other interpreters' legs have no PyTorch

    @py_class("test.pyclass.DTypeDevice")
    class Placed(ffi.Object):
        dt: ffi.dtype
        dev: ffi.Device = field(default_factory=lambda: ffi.Device("cpu"))
        maybe: Optional[ffi.dtype] = None

    p = Placed(dt="float32")
    assert type(p.dt) is ffi.dtype and p.dt == "float32" and p.dev == ffi.Device("cpu")
    # Whatever names one converts: a torch or NumPy dtype, a device string or torch.device.
    p.dt, p.dev, p.maybe = torch.int8, "cuda:1", np.dtype("float16")
    assert (p.dt, p.dev, p.maybe) == ("int8", ffi.Device("cuda", 1), "float16")
    p.dev = torch.device("cpu")
    assert p.dev == ffi.Device("cpu")
    for name, bad in (("dt", 3), ("dt", "not a dtype"), ("dev", 3), ("dev", "gpu")):
        with pytest.raises(TypeError):
            setattr(p, name, bad)
    assert p.dt == "int8"  # a refused write leaves the field as it was


def test_field_options_follow_the_class_unless_given():
    # kw_only=None (the default) follows the class; an explicit False makes a field positional
    # in a keyword-only class. hash=None follows compare.
    f = field()
    assert f.kw_only is None and f.hash is None
    assert field(converter=lambda v: v).init  # the reference's static-analysis marker: accepted

    @py_class("test.pyclass.KwOverride", kw_only=True)
    class KwOverride(ffi.Object):
        a: int = field(kw_only=False)
        b: int = 0
        c: int = field(default=0, compare=False)

    params = inspect.signature(KwOverride).parameters
    assert params["a"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params["b"].kind is inspect.Parameter.KEYWORD_ONLY
    assert KwOverride(1, b=2).a == 1
    by_name = {f.name: f for f in fields(KwOverride)}
    assert by_name["c"].hash is False and by_name["b"].hash is True

    # py_class and c_class are dataclass transforms (type checkers synthesize __init__).
    for decorator in (py_class, ffi.dataclasses.c_class):
        spec = decorator.__dataclass_transform__
        assert spec["eq_default"] is False and field in spec["field_specifiers"]


def test_redeclaring_an_inherited_field_is_refused_before_registration():
    @py_class("test.pyclass.RedeclareParent")
    class Parent(ffi.Object):
        value: int = 1

    with pytest.raises(TypeError, match="`value` is already a field of `test.pyclass.Redeclare"):

        @py_class("test.pyclass.RedeclareChild")
        class Child(Parent):
            value: int = 2

    # Nothing was registered: the key is free for a correct definition.
    assert "test.pyclass.RedeclareChild" not in ffi.registry.get_registered_type_keys()

    @py_class("test.pyclass.RedeclareChild")
    class Child2(Parent):
        other: int = 2

    assert (Child2().value, Child2().other) == (1, 2)


def test_fields_show_the_default_factory_as_given():
    @py_class("test.pyclass.FactoryShown")
    class Holder(ffi.Object):
        items: list[int] = field(default_factory=list)

    (f,) = fields(Holder)
    assert f.default_factory is list
    a, b = Holder(), Holder()
    a.items.append(1)
    assert list(b.items) == []  # a fresh list per object
    with pytest.raises(TypeError, match="c_class / py_class instances"):
        asdict(Holder)


def test_subscripted_ffi_containers_as_field_types():
    # ffi.Array[T] / ffi.List[T] / ffi.Map[K, V] / ffi.Dict[K, V] annotate fields as their
    # typing counterparts do: elements are checked and converted.
    @py_class("test.pyclass.SubscriptedVar")
    class Var(ffi.Object):
        name: str

    @py_class("test.pyclass.SubscriptedFunc")
    class Func(ffi.Object):
        params: ffi.Array[Var]
        body: ffi.List[int]
        attrs: ffi.Map[str, int]
        scratch: ffi.Dict[str, float]

    f = Func(params=[Var("a")], body=[1, 2], attrs={"k": 1}, scratch={"s": 0.5})
    assert isinstance(f.params, ffi.Array) and f.params[0].name == "a"
    assert isinstance(f.body, ffi.List) and list(f.body) == [1, 2]
    assert isinstance(f.attrs, ffi.Map) and isinstance(f.scratch, ffi.Dict)
    with pytest.raises(TypeError):
        Func(params=[1], body=[], attrs={}, scratch={})
    with pytest.raises(TypeError):
        Func(params=[], body=["x"], attrs={}, scratch={})


def test_container_field_errors_say_where_the_bad_element_is():
    @py_class("test.pyclass.ElementPath")
    class Holder(ffi.Object):
        items: list[int]
        table: dict[str, list[int]]

    with pytest.raises(TypeError, match=r"field 'items':\n  element \[1\]: expected int, got None"):
        Holder(items=[1, None], table={})
    with pytest.raises(TypeError, match=r"value for key 'a': element \[1\]: expected int, got str"):
        Holder(items=[], table={"a": [1, "x"]})
    with pytest.raises(TypeError, match=r"key 1: expected str, got int"):
        Holder(items=[], table={1: [1]})


def test_opaque_pointer_fields():
    import ctypes

    @py_class("test.pyclass.OpaquePointer")
    class Handle(ffi.Object):
        ptr: ctypes.c_void_p
        count: int = 0

    h = Handle(ptr=ctypes.c_void_p(0x1234))
    assert isinstance(h.ptr, ctypes.c_void_p) and h.ptr.value == 0x1234
    info = Handle.__tvm_ffi_type_info__.fields[0]
    assert (info.size, info.field_static_type_index) == (8, 4)  # stored as void*
    h.ptr = None
    assert h.ptr is None
    with pytest.raises(TypeError, match="expected ctypes.c_void_p, got int"):
        Handle(ptr=5)


CXX_MIRROR = r"""
#include <ffi/container/array.h>
#include <ffi/ffi.h>
namespace {
struct Parent : ffi::Object { bool parent_flag; };
struct Empty : Parent {};
struct Child : Empty { bool child_flag; int64_t n; };
}  // namespace
// sizeof and member offsets of the C++ classes that mirror the py_class hierarchy below.
ffi::Array<int64_t> layout() {
  Child c;
  auto at = [&](const void* member) {
    return static_cast<int64_t>(static_cast<const char*>(member) -
                                reinterpret_cast<const char*>(&c));
  };
  return {int64_t(sizeof(Parent)), int64_t(sizeof(Empty)), int64_t(sizeof(Child)),
          at(&c.parent_flag), at(&c.child_flag), at(&c.n)};
}
"""


def test_derived_fields_reuse_tail_padding_as_cxx_does():
    @py_class("test.pyclass.TailParent")
    class Parent(ffi.Object):
        parent_flag: bool = False

    @py_class("test.pyclass.TailEmpty")
    class Empty(Parent):
        pass

    @py_class("test.pyclass.TailChild")
    class Child(Empty):
        child_flag: bool = False
        n: int = 0

    def offset(cls, name):
        for c in cls.__mro__:
            info = getattr(c, "__tvm_ffi_type_info__", None)
            for f in info.fields if info is not None and info.type_cls is c else ():
                if f.name == name:
                    return f.offset
        raise KeyError(name)

    ours = [
        Parent.__tvm_ffi_type_info__.total_size,
        Empty.__tvm_ffi_type_info__.total_size,
        Child.__tvm_ffi_type_info__.total_size,
        offset(Child, "parent_flag"),
        offset(Child, "child_flag"),
        offset(Child, "n"),
    ]
    mod = ffi.cpp.load_inline("py_class_tail_padding", cpp_sources=CXX_MIRROR, functions=["layout"])
    assert ours == list(mod.layout())  # [32, 32, 40, 24, 25, 32] with GCC and Clang
    obj = Child(parent_flag=True, child_flag=False, n=7)
    obj.child_flag = True
    assert (obj.parent_flag, obj.child_flag, obj.n) == (True, True, 7)


def test_py_class_under_a_cpp_type_bound_in_another_module():
    # TestObjectPtrHolder's class body (ffi/testing/testing.py) annotates with names of its own
    # module; deriving from it here must not evaluate those in this module.
    import ffi.testing as t

    @py_class("test.pyclass.PtrHolderChild")
    class Child(t.TestObjectPtrHolder):
        extra: int

    target = t.TestObjectBase(v_i64=7)
    child = Child(value=target, optional_value=None, extra=3)
    assert child.value.same_as(target) and child.extra == 3
    assert t.object_use_count(target) == 2
    twin = copy.copy(child)
    assert t.object_use_count(target) == 3  # the copy shares the value
    assert twin.value.same_as(target)
    del twin
    assert t.object_use_count(target) == 2
    deep = copy.deepcopy(child)
    assert not deep.value.same_as(target) and deep.value.v_i64 == 7


def test_an_init_property_overrides_its_base_init_property():
    from ffi.dataclasses import init_property

    calls = []

    @py_class("test.pyclass.InitPropBase")
    class Base(ffi.Object):
        x: int = 1

        @init_property
        def value(self) -> int:
            calls.append("base")
            return self.x

    @py_class("test.pyclass.InitPropDerived")
    class Derived(Base):
        @init_property
        def value(self) -> int:
            calls.append("derived")
            return self.x * 10

    assert Derived(x=3).value == 30 and calls == ["derived"]  # one field, recomputed
    assert [f.name for f in Derived.__tvm_ffi_type_info__.fields] == []
    assert Base(x=3).value == 3 and calls == ["derived", "base"]
    with pytest.raises(TypeError, match="already a field"):

        @py_class("test.pyclass.InitPropPlainRedeclared")
        class Plain(Base):
            x: int = 2  # a plain field cannot be declared again


def test_kw_only_marker_in_evaluated_annotations():
    # Compiled without this file's `from __future__ import annotations`, the marker arrives as the
    # object itself, not as text (test_py_class.py's Point has the text, which Python 3.10's
    # typing refuses to evaluate as a hint: dataclasses.KW_ONLY is no type there).
    namespace: dict = {}
    source = """
import ffi
from ffi.dataclasses import KW_ONLY, py_class

@py_class("test.pyclass.EvaluatedKwOnly")
class EvaluatedKwOnly(ffi.Object):
    x: int
    _: KW_ONLY
    y: int = 2
"""
    exec(compile(source, "<evaluated annotations>", "exec", dont_inherit=True), namespace)
    cls = namespace["EvaluatedKwOnly"]
    assert {f.name: (f.type, f.kw_only) for f in fields(cls)} == {
        "x": (int, False),
        "y": (int, True),
    }
    assert str(inspect.signature(cls)) == "(x: int, *, y: int = <MISSING>)"
    assert (cls(1).y, cls(1, y=3).y) == (2, 3)
    with pytest.raises(TypeError):
        cls(1, 3)
