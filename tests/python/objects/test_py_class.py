"""ffi.dataclasses.py_class: object types defined in Python, their fields stored in the object.
Instances are runtime objects: the runtime's constructor, copy, JSON graphs, structural equality
and repr read and write their fields through reflection, and every write goes through the field's
converter. How fields are declared and resolved is test_py_class_fields.py."""

# Annotations stay Optional[...]: py_class evaluates them, and Python 3.9 cannot evaluate X | None.
# ruff: noqa: UP007, UP045
from __future__ import annotations

import copy
import gc
import inspect
import pickle
import threading
from typing import Any, Callable, Optional, Union

import pytest

import ffi
from ffi.dataclasses import KW_ONLY, asdict, astuple, field, fields, is_dataclass, py_class, replace

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


@py_class("pyc.Point", eq=True, order=True, unsafe_hash=True)
class Point(ffi.Object):
    """A point."""

    x: int
    y: float = 0.5
    label: str = "p"
    tags: list[int] = field(default_factory=list)
    _: KW_ONLY
    note: Optional[str] = None


@py_class("pyc.Point3")
class Point3(Point):
    z: int = 0

    def __post_init__(self):
        self.z = self.z * 10


@py_class
class Node(ffi.Object):
    value: int
    next: Optional[Node] = None


@py_class("pyc.Everything", kw_only=True)
class Everything(ffi.Object):
    flag: bool = False
    blob: bytes = b""
    seq: tuple[int, ...] = ()
    table: dict[str, float] = field(default_factory=dict)
    fn: Optional[Callable] = None
    anything: Any = None
    either: Optional[Union[int, str]] = None
    point: Optional[Point] = None
    hidden: int = field(default=3, init=False, repr=False)


def ref_fn(name):
    return ffi.get_global_func(name)


# ---- construction and fields ---------------------------------------------------------------------


def test_signature_defaults_and_keywords():
    assert str(inspect.signature(Point)) == (
        "(x: int, y: float = <MISSING>, label: str = <MISSING>, tags: list[int] = <MISSING>, *, "
        "note: Optional[str] = <MISSING>)"
    )
    p = Point(1)
    assert (p.x, p.y, p.label, list(p.tags), p.note) == (1, 0.5, "p", [], None)
    p = Point(2, 3, "q", [4, 5], note="n")
    assert (p.x, p.y, p.label, list(p.tags), p.note) == (2, 3.0, "q", [4, 5], "n")
    assert type(p.y) is float and type(p.tags) is ffi.List
    assert not Point(1).tags.same_as(Point(1).tags)  # the factory runs for each object
    with pytest.raises(TypeError, match="positional"):
        Point(1, 2.0, "q", [], "note")  # note is keyword-only
    e = Everything()
    assert e.hidden == 3 and "hidden" not in repr(e)
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        Everything(hidden=4)
    with pytest.raises(TypeError):
        Everything(True)  # kw_only=True on the class


def test_every_write_is_converted_or_refused():
    p = Point(1)
    p.x = 7
    p.y = 2  # int to float
    assert (p.x, p.y, type(p.y)) == (7, 2.0, float)
    with pytest.raises(TypeError, match="expected int, got str"):
        p.x = "no"
    with pytest.raises(TypeError, match="expected float, got str"):
        p.y = "1.5"
    with pytest.raises(TypeError, match="field 'x'"):
        Point("a")
    with pytest.raises(TypeError, match="expected str"):
        Point(1, label=3)
    with pytest.raises(TypeError, match="expected List"):
        Point(1, tags=5)
    with pytest.raises(TypeError, match="expected int"):
        Point(1, tags=[1, "two"])
    assert (p.x, p.y) == (7, 2.0)  # refused writes leave the object as it was
    e = Everything(flag=True, blob=b"\x00b", seq=[1, 2], table={"a": 1}, fn=len, either="s")
    assert (e.flag, e.blob, list(e.seq), dict(e.table), e.either) == (
        True,
        b"\x00b",
        [1, 2],
        {"a": 1.0},
        "s",
    )
    assert type(e.seq) is ffi.Array and type(e.table) is ffi.Dict and e.fn("abc") == 3
    e.either = 4
    e.anything = [1, {"k": 2}]
    e.point = Point(1)
    assert e.either == 4 and e.anything[0] == 1 and dict(e.anything[1]) == {"k": 2}
    assert e.point.x == 1
    e.flag = 0  # a bool takes an int, as C++ casts it (and the reference converts it)
    assert e.flag is False
    for name, bad in [
        ("flag", "yes"),
        ("flag", 1.5),
        ("blob", "s"),
        ("either", 1.5),
        ("point", Node(1)),
        ("fn", 3),
    ]:
        with pytest.raises(TypeError):
            setattr(e, name, bad)


def test_containers_assigned_are_shared():
    shared = ffi.List([1, 2])
    p = Point(1, tags=shared)
    shared.append(3)
    assert list(p.tags) == [1, 2, 3] and p.tags.same_as(shared)


def test_inheritance_post_init_and_self_reference():
    r = Point3(1, z=2)
    assert isinstance(r, Point) and r.z == 20
    assert [f.name for f in fields(r)] == ["x", "y", "label", "tags", "note", "z"]
    assert list(inspect.signature(Point3).parameters) == ["x", "y", "label", "tags", "z", "note"]
    n = Node(1, Node(2))
    assert n.next.value == 2 and n.next.next is None and type(n.next) is Node
    assert n.type_key == f"{__name__}.Node"


def test_cycles_and_deep_chains_are_refused_by_serialization_not_crashes():
    """A JSON graph refers only to earlier nodes: an object reaching itself has none (ValueError),
    and a chain deeper than the stack could follow is a RecursionError (both crashed the
    process)."""
    a = Node(1)
    b = Node(2, a)
    a.next = b
    with pytest.raises(ValueError, match="contains a cycle"):
        ffi.serialization.to_json_graph_str(a)
    with pytest.raises(ValueError, match="contains a cycle"):
        pickle.dumps(a)
    a.next = None  # the cycle broken, the same objects serialize
    assert ffi.serialization.from_json_graph_str(ffi.serialization.to_json_graph_str(b)).value == 2
    deep = None
    for i in range(10_000):
        deep = Node(i, deep)
    # On a thread with a 1 MiB stack (768 KiB usable after the reserve), 10,000 levels are more
    # than it holds, whatever the build.
    outcome = []

    def serialize():
        try:
            ffi.serialization.to_json_graph_str(deep)
            outcome.append("serialized")
        except RecursionError as e:
            outcome.append(str(e))

    old_size = threading.stack_size(1 << 20)
    try:
        worker = threading.Thread(target=serialize)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_size)
    assert len(outcome) == 1 and "nests deeper than the stack allows" in outcome[0], outcome
    deep = None  # releases 10,000 nested objects at once (tests/python/objects/test_deep_values.py)
    shallow = None
    for i in range(200):
        shallow = Node(i, shallow)
    text = ffi.serialization.to_json_graph_str(shallow)
    assert ffi.serialization.from_json_graph_str(text).value == 199


def test_a_body_init_gets_a_fresh_object():
    @py_class("pyc.Custom")
    class Custom(ffi.Object):
        a: int
        b: str = "x"
        c: list[int] = field(default_factory=list)

        def __init__(self, text):
            self.a = len(text)

    c = Custom("hello")
    assert (c.a, c.b, list(c.c)) == (5, "x", [])  # defaults are in place before the body runs

    @py_class("pyc.Child")
    class Child(Custom):
        d: int = 0

        def __init__(self, text, d):
            super().__init__(text)
            self.d = d

    k = Child("hey", 4)
    assert (k.a, k.b, k.d) == (3, "x", 4)


def test_super_init_with_arguments_writes_them():
    @py_class("pyc.Base")
    class Base(ffi.Object):
        x: int
        y: int = 5

    @py_class("pyc.Sub")
    class Sub(Base):
        z: int = 0

        def __init__(self, x, z):
            super().__init__(x)  # the generated constructor of Base, on the object made
            self.z = z

    s = Sub(3, 4)
    assert (s.x, s.y, s.z) == (3, 5, 4)
    with pytest.raises(TypeError):
        Sub.__mro__[1].__init__(s, 1, 2, 3)  # more arguments than Base takes


# ---- the runtime sees real objects ---------------------------------------------------------------


def test_objects_cross_the_ffi_as_their_class():
    p = Point(1, tags=[2])
    arr = ffi.Array([p, Point3(2)])
    assert type(arr[0]) is Point and arr[0] == p and arr[0].same_as(p)
    assert type(arr[1]) is Point3
    assert ref_fn("ffi.ReprPrint")(p) == 'pyc.Point(x=1, y=0.5, label="p", tags=[2], note=None)'
    back = pickle.loads(pickle.dumps(p))  # JSON graph: made by __ffi_new__, set by the setters
    assert type(back) is Point and back == p and not back.same_as(p)
    assert copy.copy(p) == p and copy.deepcopy(Node(1, Node(2))).next.value == 2


def test_structural_equality_follows_the_kind():
    assert ffi.structural_equal(Point(1, tags=[2]), Point(1, tags=[2]))
    assert not ffi.structural_equal(Point(1), Point(2))
    assert ffi.structural_hash(Point(1)) == ffi.structural_hash(Point(1))

    @py_class("pyc.Var", structural_eq="var")
    class Var(ffi.Object):
        name: str = field(structural_eq="ignore")

    @py_class("pyc.Let")
    class Let(ffi.Object):
        var: Var = field(structural_eq="def")
        body: Any = None

    x, y = Var("x"), Var("y")
    assert not ffi.structural_equal(x, y) and ffi.structural_equal(x, y, map_free_vars=True)
    assert ffi.structural_equal(Let(x, x), Let(y, y))  # bound variables match by position
    assert not ffi.structural_equal(Let(x, x), Let(y, x))
    assert fields(Let)[0].structural_eq == "def-pattern"


def test_eq_order_hash_frozen_and_replace():
    assert Point(1) == Point(1) and Point(1) < Point(2) and hash(Point(1)) == hash(Point(1))
    assert Node(1) != Node(1)  # eq=False: identity of the FFI object

    @py_class("pyc.Frozen", frozen=True, eq=True)
    class Frozen(ffi.Object):
        a: int
        b: int = field(default=0)

    f = Frozen(1)
    with pytest.raises(AttributeError, match="read-only"):
        f.a = 2
    assert replace(f, a=3).a == 3 and f.a == 1 and hash(f) == hash(Frozen(1))
    Frozen.a.set(f, 9)
    assert f.a == 9

    @py_class("pyc.OneFrozen")
    class OneFrozen(ffi.Object):
        a: int = field(frozen=True)
        b: int = 0

    o = OneFrozen(1)
    o.b = 2
    with pytest.raises(AttributeError):
        o.a = 2


def test_dataclass_helpers():
    p = Point(1, tags=[2], note="n")
    assert is_dataclass(Point) and is_dataclass(p)
    assert asdict(p) == {"x": 1, "y": 0.5, "label": "p", "tags": [2], "note": "n"}
    assert astuple(Node(1, Node(2))) == (1, (2, None))

    @py_class("pyc.Meta")
    class Meta(ffi.Object):
        either: Union[int, bool] = field(default=0, metadata={"unit": "m"})

    assert fields(Meta)[0].metadata == {"unit": "m"}
    m = Meta(True)
    assert m.either is True  # kept as the alternative it already is
    m.either = 3
    assert m.either == 3 and type(m.either) is int
    fs = {f.name: f for f in fields(Point)}
    assert fs["tags"].type == list[int] and fs["note"].kw_only and fs["y"].default == 0.5
    assert fields(Everything)[-1].init is False and fields(Everything)[-1].repr is False
    assert Point.__match_args__ == ("x", "y", "label", "tags")


# ---- errors at definition ------------------------------------------------------------------------


def test_definition_errors():
    with pytest.raises(ValueError, match="already registered"):

        @py_class("pyc.Point")
        class Again(ffi.Object):
            x: int

    with pytest.raises(TypeError, match="field `x`: no FFI value has type set"):

        @py_class("pyc.BadType")
        class BadType(ffi.Object):
            x: set

    with pytest.raises(ValueError, match="mutable default"):

        @py_class("pyc.BadDefault")
        class BadDefault(ffi.Object):
            x: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="default of field `x`"):

        @py_class("pyc.BadDefaultType")
        class BadDefaultType(ffi.Object):
            x: int = "zero"

    with pytest.raises(TypeError, match="cannot be named `type_key`"):

        @py_class("pyc.BadName")
        class BadName(ffi.Object):
            type_key: str

    with pytest.raises(TypeError, match="doc must be a str"):

        @py_class("pyc.BadDoc")
        class BadDoc(ffi.Object):
            x: int = field(doc=123)

    with pytest.raises(TypeError, match="wrapped by @classmethod"):

        @py_class("pyc.BadMethod")
        class BadMethod(ffi.Object):
            x: int

            @classmethod
            def make(cls):
                return cls(1)

            make.__func__.__ffi_method__ = True

    with pytest.raises(ValueError, match="order=True requires eq=True"):
        py_class("pyc.Order", order=True)
    with pytest.raises(ValueError, match="structural_eq"):
        py_class("pyc.Kind", structural_eq="bogus")
    with pytest.raises(TypeError, match="must inherit from ffi.Object"):
        py_class("pyc.NotObject")(type("NotObject", (), {}))
    with pytest.raises(ValueError, match="structural_eq"):
        field(structural_eq="sometimes")
    # A failed definition consumed nothing: the keys are still free.
    for key in ("pyc.BadType", "pyc.BadDoc", "pyc.BadMethod"):

        @py_class(key)
        class Fixed(ffi.Object):
            x: int

        assert Fixed(1).x == 1


def test_deriving_from_a_cxx_type(tmp_path):
    """A Python class may extend a C++ type whose whole state is reflected fields (it is then
    allocated and freed by the runtime); a type with state reflection does not see is refused."""
    from ffi.dataclasses import c_class

    lib = ffi.cpp.load_inline(
        "pyc_cxx",
        cpp_sources="""
        #include <ffi/ffi.h>
        #include <ffi/reflection/registry.h>
        #include <string>
        struct BaseObj : ffi::Object {
          int64_t a = 0;
          ffi::Any tag;
          ffi::String name;             // 16 bytes, recorded as an Any field
          ffi::ObjectPtr<BaseObj> link;  // one pointer, None when null
          static constexpr bool _type_mutable = true;
          FFI_DECLARE_OBJECT_INFO("pyc.CxxBase", BaseObj, ffi::Object);
        };
        struct HiddenObj : ffi::Object {
          int64_t a = 0;
          std::string hidden;  // not reflected
          FFI_DECLARE_OBJECT_INFO("pyc.CxxHidden", HiddenObj, ffi::Object);
        };
        int64_t BaseA(const ffi::ObjectRef& obj) { return obj.as<BaseObj>()->a; }
        ffi::String BaseName(const ffi::ObjectRef& obj) { return obj.as<BaseObj>()->name; }
        int64_t LinkA(const ffi::ObjectRef& obj) { return obj.as<BaseObj>()->link->a; }
        FFI_STATIC_INIT_BLOCK() {
          ffi::reflection::ObjectDef<BaseObj>()
              .def_rw("a", &BaseObj::a)
              .def_rw("tag", &BaseObj::tag)
              .def_rw("name", &BaseObj::name)
              .def_rw("link", &BaseObj::link);
          ffi::reflection::ObjectDef<HiddenObj>().def_ro("a", &HiddenObj::a);
        }
        FFI_DLL_EXPORT_TYPED_FUNC(base_a, BaseA);
        FFI_DLL_EXPORT_TYPED_FUNC(base_name, BaseName);
        FFI_DLL_EXPORT_TYPED_FUNC(link_a, LinkA);
        """,
        build_directory=str(tmp_path),
    )

    @c_class("pyc.CxxBase")
    class CxxBase(ffi.Object):
        pass

    @py_class("pyc.Derived")
    class Derived(CxxBase):
        b: str = "x"

    target = Derived(a=1, tag=None, name="target", link=None)
    d = Derived(a=5, tag=[1, 2], b="y", name="a name longer than a small string", link=target)
    assert (d.a, list(d.tag), d.b) == (5, [1, 2], "y")
    assert lib.base_a(d) == 5  # C++ reads its part of the object in place
    assert lib.base_name(d) == "a name longer than a small string" and lib.link_a(d) == 1
    assert d.link.same_as(target) and target.link is None
    d.a = 7
    assert lib.base_a(d) == 7
    gc.collect()
    uses = target._use_count()
    e = copy.copy(d)
    assert target._use_count() == uses + 1  # the copy holds its own reference
    assert (e.a, e.b, e.name) == (7, "y", d.name) and e.tag.same_as(d.tag)
    assert e.link.same_as(target)
    del e
    gc.collect()
    assert target._use_count() == uses  # and freeing the copy released it (strings too)
    del d
    gc.collect()
    assert target._use_count() == 1

    @c_class("pyc.CxxHidden")
    class CxxHidden(ffi.Object):
        pass

    with pytest.raises(TypeError, match="state reflection does not describe"):

        @py_class("pyc.DerivedHidden")
        class DerivedHidden(CxxHidden):
            b: int = 0

    with pytest.raises(KeyError):  # nothing was registered
        ffi._core.type_key_to_index("pyc.DerivedHidden")


# ---- threads and lifetime ------------------------------------------------------------------------


def test_objects_made_and_written_from_many_threads():
    errors = []

    def work(k):
        try:
            for i in range(200):
                p = Point(i, tags=[k])
                p.y = i / 2
                assert (p.x, p.y, list(p.tags)) == (i, i / 2, [k])
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_objects_outlive_their_class():
    def make():
        @py_class("pyc.Transient")
        class Transient(ffi.Object):
            v: list[int] = field(default_factory=list)

        return Transient([1, 2])

    obj = make()
    gc.collect()
    obj.v = [3]  # the converter is still alive
    assert list(obj.v) == [3] and obj._use_count() == 1


# ---- methods and hooks published to the runtime --------------------------------------------------


def test_methods_and_hooks_are_published():
    @py_class("pyc.Temp")
    class Temp(ffi.Object):
        celsius: float

        def __ffi_repr__(self, print_value):
            return f"{print_value(self.celsius)} C"

        @ffi.method
        def fahrenheit(self) -> float:
            """Degrees Fahrenheit."""
            return self.celsius * 9 / 5 + 32

        @ffi.method
        @staticmethod
        def freezing() -> float:
            return 0.0

        def private(self):  # not marked: stays Python-only
            return 1

    t = Temp(100)
    assert repr(t) == "100 C" and ref_fn("ffi.ReprPrint")(ffi.Array([t])) == "(100 C,)"
    assert t.fahrenheit() == 212.0 and Temp.freezing() == 0.0

    # Another class bound to the type sees the published methods, as C++ code would.
    @ffi.register_object("pyc.Temp")
    class View(ffi.Object):
        pass

    assert isinstance(View.__dict__["fahrenheit"], ffi.Function)
    assert View.fahrenheit(t) == 212.0 and View.freezing() == 0.0
    assert "private" not in View.__dict__
    ffi.register_object("pyc.Temp")(Temp)  # Temp again serves the type

    with pytest.raises(TypeError, match="@classmethod is not supported"):
        ffi.method(classmethod(lambda cls: 0))
    with pytest.raises(TypeError, match="expected a callable"):
        ffi.method(3)


def test_cxx_reads_and_writes_fields_through_reflection(tmp_path):
    """A kernel compiled against our headers reads and writes a py_class's fields by name; its
    writes go through the field's converter too."""
    lib = ffi.cpp.load_inline(
        "pyc_reflect",
        cpp_sources="""
        #include <ffi/ffi.h>
        #include <ffi/reflection/accessor.h>
        #include <thread>
        #include <vector>
        namespace refl = ffi::reflection;
        int64_t GetX(ffi::ObjectRef obj) {
          return refl::FieldGetter("pyc.Point", "x")(obj).cast<int64_t>();
        }
        void SetField(ffi::ObjectRef obj, ffi::String name, ffi::Any value) {
          refl::FieldSetter("pyc.Point", std::string(name))(obj, value);
        }
        // Writes from worker threads while the caller waits: each write takes the GIL to run the
        // field's converter (the call released it).
        int64_t SetFromThreads(ffi::ObjectRef obj, int64_t n) {
          refl::FieldSetter set_x("pyc.Point", "x");
          std::vector<std::thread> threads;
          for (int64_t k = 0; k < n; ++k) {
            threads.emplace_back([&, k] {
              for (int64_t i = 0; i < 50; ++i) set_x(obj, k * 100 + i);
            });
          }
          for (auto& t : threads) t.join();
          return n;
        }
        FFI_DLL_EXPORT_TYPED_FUNC(get_x, GetX);
        FFI_DLL_EXPORT_TYPED_FUNC(set_field, SetField);
        FFI_DLL_EXPORT_TYPED_FUNC(set_from_threads, SetFromThreads);
        """,
        build_directory=str(tmp_path),
    )
    p = Point(7, tags=[1])
    assert lib.get_x(p) == 7
    lib.set_field(p, "x", 9)
    lib.set_field(p, "y", 2)  # converted to float on the way in
    lib.set_field(p, "tags", [4, 5])  # a list from C++: an Array, converted to the field's List
    assert (p.x, p.y, type(p.y), list(p.tags), type(p.tags)) == (9, 2.0, float, [4, 5], ffi.List)
    with pytest.raises(TypeError, match="expected int, got str"):
        lib.set_field(p, "x", "nine")
    assert p.x == 9
    assert lib.set_from_threads(p, 4) == 4
    assert p.x % 100 == 49 and p.x // 100 in range(4)  # the last write of one of the threads
