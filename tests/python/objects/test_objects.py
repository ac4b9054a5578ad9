"""Objects from Python: ffi.register_object binds classes to C++ types registered with reflection
(fields, methods, static methods, constructors), objects of unregistered types show their fields,
and init_ffi_api / get_global_func_metadata / get_registered_type_keys. Against a library built
with our headers (kernels/objects_kernels.cc) and the reflection library of
tests/cpp/loader/reflection_lib.cc built with ours and with the reference's headers. Python values
that pass as FFI objects and values (the conversion protocols, ffi.Error objects):
test_objects_protocols.py."""

import gc
import os
import re
import sys
import types

import numpy as np
import pytest
from support.build import OURS, REFERENCE, build, build_kernel, reference_include_dir
from support.paths import TESTS_DIR

import ffi


@pytest.fixture(scope="module")
def objmod(tmp_path_factory):
    path = build_kernel(
        os.path.join(TESTS_DIR, "kernels", "objects_kernels.cc"),
        str(tmp_path_factory.mktemp("objs")),
    )
    return ffi.load_module(path)


@pytest.fixture(scope="module")
def Point(objmod):
    @ffi.register_object("objtest.Point")
    class Point(ffi.Object):
        def describe(self):  # the class body's own methods stay
            return f"Point({self.x}, {self.y})"

    return Point


def fn(name):
    return ffi.get_global_func(name)


# ---- a registered class ----------------------------------------------------------------------


def test_constructor_fields_and_methods(Point):
    p = Point(1, 2.0)
    assert type(p) is Point and isinstance(p, ffi.Object)
    assert p.type_key == "objtest.Point"
    assert (p.x, p.y, p.label) == (1, 2.0, "p")
    assert p.norm2() == 5.0
    assert p.describe() == "Point(1, 2.0)"
    q = p.shifted(2)
    assert type(q) is Point and (q.x, q.y) == (3, 4.0)
    assert p._use_count() == 1 and q._use_count() == 1


def test_writable_fields(Point):
    p = Point(1, 2.0)
    p.y = 5
    p.label = "moved"
    assert (p.y, p.label) == (5.0, "moved")
    assert fn("objtest.point_x")(p) == 1  # the C++ object is the one changed


def test_read_only_and_wrong_type_fields(Point):
    p = Point(1, 2.0)
    with pytest.raises(AttributeError, match="`x` of `objtest.Point` is read-only"):
        p.x = 3
    with pytest.raises(TypeError):
        p.y = "not a float"
    with pytest.raises(TypeError):
        p.label = 3
    with pytest.raises(AttributeError, match="cannot be deleted"):
        del p.y
    assert (p.x, p.y, p.label) == (1, 2.0, "p")  # all intact


def test_static_method(Point):
    o = Point.origin()
    assert type(o) is Point and (o.x, o.y) == (0, 0.0)
    assert Point(5, 1.0).origin().x == 0  # static through an instance too: no self passed


def test_constructor_errors(Point):
    with pytest.raises(TypeError, match="__ffi_init__"):
        Point("a", 1.0)
    with pytest.raises(TypeError):
        Point(1)
    with pytest.raises(TypeError):
        Point(1, y=2.0)


def test_descriptors_describe_themselves(Point):
    assert isinstance(Point.x, ffi._core._Field)
    assert not Point.x.writable and Point.y.writable
    assert Point.x.__doc__ == "The x coordinate."
    assert "type_schema" in Point.x.metadata
    assert Point.norm2.__doc__ == "x*x + y*y."
    assert Point.__init__.__qualname__.endswith("Point.__init__")


def test_field_descriptor_refuses_other_objects(Point, objmod):
    bag = fn("objtest.make_bag")(2)
    with pytest.raises(TypeError, match="belongs to `objtest.Point`"):
        Point.x.__get__(bag)
    with pytest.raises(TypeError):
        Point.norm2(bag)  # the method checks its object
    # None is no object: a method's `self` (a `const PointObj*` in C++) or a function taking one
    # refuses it instead of dereferencing a null pointer.
    with pytest.raises(TypeError, match="Expected `objtest.Point` but got `None`"):
        Point.norm2(None)
    with pytest.raises(TypeError, match="but got `None`"):
        fn("objtest.point_x")(None)


def test_objects_inside_containers_compare_by_their_fields(Point):
    # As in the reference: containers compare (and hash) the objects they hold field by field;
    # the objects themselves compare by identity.
    p, q, r = Point(1, 2.0), Point(1, 2.0), Point(1, 3.0)
    assert p != q and ffi.Array([p]) == ffi.Array([q]) and ffi.Array([p]) != ffi.Array([r])
    assert hash(ffi.Array([p])) == hash(ffi.Array([q]))
    assert ffi.List([p]) == [q] and q in ffi.Array([p]) and r not in ffi.Array([p])
    assert ffi.Map({"k": p}) == ffi.Map({"k": q}) and ffi.Dict({"k": p}) != ffi.Dict({"k": r})
    assert hash(ffi.Map({"k": p})) == hash(ffi.Dict({"k": q}))
    # Functions, modules and Python objects only equal themselves (the reference's recursive
    # equality takes any two of them as equal).
    f, g = ffi.convert(lambda: 1), ffi.convert(lambda: 1)
    assert ffi.Array([f]) == ffi.Array([f]) and ffi.Array([f]) != ffi.Array([g])
    box = object()
    assert ffi.Array([box]) == ffi.Array([box]) and ffi.Array([box]) != ffi.Array([object()])


def test_descriptors_on_bad_targets_raise(Point):
    assert Point.__dict__["x"].__get__(None, Point) is Point.x
    with pytest.raises(TypeError):
        Point.y.__set__(3, 1.0)
    with pytest.raises(TypeError):
        Point.x.__get__(object())
    p = Point(1, 2.0)
    for _ in range(3):
        p.norm2(), p.x, p.shifted(1)
    assert p._use_count() == 1  # reads and method calls hold no reference afterwards


def test_registering_again_replaces_the_class(objmod):
    @ffi.register_object("objtest.NoInit")
    class First(ffi.Object):
        pass

    @ffi.register_object("objtest.NoInit")
    class Second(ffi.Object):
        pass

    assert type(fn("objtest.make_noinit")()) is Second
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        First()  # still bound (the type has no constructor): refused, not crashed


def test_skip_unknown_objects_leaves_the_class_unbound(monkeypatch):
    # The reference's switch (TVM sets it when its compiler library is missing).
    from ffi import registry

    class Unknown(ffi.Object):
        pass

    with pytest.raises(ValueError, match="Cannot find object type index"):
        ffi.register_object("objtest.NoSuchKey")(Unknown)
    monkeypatch.setattr(registry, "_SKIP_UNKNOWN_OBJECTS", True)
    assert ffi.register_object("objtest.NoSuchKey")(Unknown) is Unknown
    with pytest.raises(TypeError, match="not constructed directly"):
        Unknown()  # never bound: no constructor of its own
    with pytest.raises(ValueError, match="built-in type"):  # the switch skips unknown keys only
        ffi.register_object("ffi.Function")(Unknown)


@pytest.mark.parametrize(
    "key", ["ffi.Function", "ffi.Shape", "ffi.Tensor", "ffi.Array", "ffi.Object"]
)
def test_built_in_value_types_cannot_be_bound(key):
    # Their values arrive as ffi's own classes (a class bound to ffi.Function or ffi.Shape used to
    # crash the next call that returned one).
    with pytest.raises(ValueError, match="built-in type"):

        @ffi.register_object(key)
        class Impostor(ffi.Object):
            pass

    f = ffi.convert(lambda: 1)
    assert type(f) is ffi.Function and f() == 1
    assert type(ffi.from_dlpack(np.zeros((2, 3))).shape) is ffi.Shape


# ---- derived, unregistered and plain types ---------------------------------------------------


def test_derived_type_arrives_as_most_derived_registered_class(Point):
    p3 = fn("objtest.make_point3")(1, 2.0, 3)
    assert isinstance(p3, Point) and type(p3) is not Point  # a generated subclass shows z
    assert p3.type_key == "objtest.Point3"
    assert (p3.x, p3.y, p3.z) == (1, 2.0, 3)
    assert p3.norm2() == 5.0 and p3.sum() == 6.0 and p3.describe() == "Point(1, 2.0)"
    with pytest.raises(AttributeError):
        p3.z = 1
    assert type(fn("objtest.make_point3")(0, 0.0, 0)) is type(p3)  # generated once


def test_generated_classes_nest_as_the_types_do(objmod):
    """Unregistered Square : Shape arrive as generated classes, Square's deriving from Shape's, as
    the reference makes them."""
    square, shape = fn("objtest.make_square")(2.0), fn("objtest.make_shape")(3.0)
    assert (
        type(square).__qualname__ == "objtest.Square"
        and type(shape).__qualname__ == "objtest.Shape"
    )
    assert isinstance(square, type(shape)) and type(square).__base__ is type(shape)
    assert (square.area, square.side, shape.area) == (4.0, 2.0, 3.0)
    assert repr(square) == "objtest.Square(area=4, side=2)"


def test_unregistered_type_shows_fields(objmod):
    bag = fn("objtest.make_bag")(3)
    assert isinstance(bag, ffi.Object)
    assert bag.type_key == "objtest.Bag"
    # The generated class is named as the reference names it.
    cls = type(bag)
    assert (cls.__name__, cls.__qualname__, cls.__module__) == ("Bag", "objtest.Bag", "objtest")
    assert cls.__doc__.startswith("Auto-generated fallback class for `objtest.Bag`")
    assert bag.count == 3
    assert bag.items._use_count() == 2  # the field and the value read
    assert bag.first() == 0
    with pytest.raises(AttributeError):
        bag.count = 4
    with pytest.raises(AttributeError):
        bag.nope  # noqa: B018
    with pytest.raises(TypeError):
        type(bag)()  # not registered: not constructible


def test_repr_shows_the_fields(Point, objmod):
    """As in the reference, an object shows as the runtime's ffi.ReprPrint writes it: its type key
    and reflected fields, or its address when it has none."""
    assert repr(Point(1, 2.0)) == 'objtest.Point(x=1, y=2, label="p")'
    assert repr(fn("objtest.make_bag")(3)) == "objtest.Bag(count=3, items=(0, 1, 2))"
    assert re.fullmatch(r"objtest\.Plain\(0x[0-9a-f]+\)", repr(fn("objtest.make_plain")()))


def test_object_classes_have_no_instance_dict(Point, objmod):
    """As in the reference, an object class without __slots__ gets __slots__ = (): an attribute
    the type does not reflect is an AttributeError, never a Python attribute the C++ object
    lacks; a class asks for a __dict__ explicitly."""
    bag = fn("objtest.make_bag")(3)
    for cls in (Point, type(bag), ffi.Array, ffi.Map, ffi.Tensor, ffi.Function):
        assert "__dict__" not in dir(cls) or cls is ffi.Function, cls  # Function holds attributes
        assert type(cls) is type(ffi.Object)
    assert Point.__dict__["__slots__"] == () and "__weakref__" not in Point.__dict__
    p = Point(1, 2.0)
    with pytest.raises(AttributeError):
        p.z = 3  # a misspelt field fails at once
    with pytest.raises(AttributeError):
        ffi.Array([1]).note = "x"

    @ffi.register_object("objtest.Point")
    class PointWithDict(ffi.Object):
        __slots__ = ("__dict__",)

    q = PointWithDict(1, 2.0)
    q.note = "kept"
    assert q.note == "kept" and q.x == 1
    ffi.register_object("objtest.Point")(Point)  # the fixture's class again


def test_object_classes_mix_with_abcs_and_check_instances_by_class(objmod):
    """The metaclass derives from ABCMeta, so object classes may be collections.abc classes too;
    isinstance/issubclass against object classes follow the class hierarchy."""
    import collections.abc

    class Pairs(ffi.Object, collections.abc.Sized):
        def __len__(self):
            return 2

    assert Pairs.__slots__ == () and issubclass(Pairs, collections.abc.Sized)
    assert issubclass(Pairs, ffi.Object) and not issubclass(int, ffi.Object)
    assert isinstance(ffi.Array([1]), collections.abc.Sequence)
    assert isinstance(ffi.Array([1]), ffi.Object) and not isinstance(ffi.Array([1]), ffi.Map)
    assert not isinstance([1], ffi.Array) and not isinstance(1, ffi.Object)
    bag = fn("objtest.make_bag")(3)
    assert isinstance(bag, ffi.Object) and not isinstance(bag, Pairs)


def test_type_without_reflection_is_a_plain_object(objmod):
    plain = fn("objtest.make_plain")()
    assert type(plain) is ffi.Object and plain.type_key == "objtest.Plain"


def test_type_without_constructor(objmod):
    @ffi.register_object("objtest.NoInit")
    class NoInit(ffi.Object):
        pass

    with pytest.raises(TypeError, match="cannot be constructed directly"):
        NoInit()
    made = fn("objtest.make_noinit")()
    assert type(made) is NoInit and made.value == 7


# ---- custom constructors and subclasses ------------------------------------------------------


def test_custom_init_calls_ffi_init(Point):
    class Labeled(Point):
        def __init__(self, x, label):
            self.__ffi_init__(x, 0.5)
            self.label = label

    p = Labeled(4, "four")
    assert (p.x, p.y, p.label) == (4, 0.5, "four")
    assert fn("objtest.point_x")(p) == 4


def test_object_without_ffi_object_fails_cleanly(Point):
    class Lazy(Point):
        def __init__(self):
            pass  # never calls __ffi_init__

    lazy = Lazy()
    with pytest.raises(TypeError, match="initialized"):
        lazy.x  # noqa: B018
    with pytest.raises(TypeError):
        fn("objtest.point_x")(lazy)
    with pytest.raises(RuntimeError, match="holds no FFI object"):
        lazy.type_key  # noqa: B018
    assert "no FFI object" in repr(lazy)
    del lazy
    gc.collect()


def test_equality_and_hash_follow_the_ffi_object(Point):
    """As in the reference: two wrappers of one FFI object are equal and hash alike (the object's
    address); distinct objects with equal fields are not; other values are never equal."""
    p = Point(1, 2.0)
    holder = ffi.Array([p])
    a, b = holder[0], holder[0]
    assert a is not b and a == b and not (a != b) and hash(a) == hash(b) == p.__chandle__()
    assert {a: "v"}[b] == "v" and len({a, b, p}) == 1
    q = Point(1, 2.0)
    assert p != q and not (p == q)
    assert p != 1 and p != "x" and p != None  # noqa: E711
    assert p.__eq__(1) is NotImplemented
    with pytest.raises(TypeError):
        p < q  # noqa: B015

    class Lazy(Point):
        def __init__(self):
            pass  # never calls __ffi_init__

    lazy, other = Lazy(), Lazy()
    assert lazy == lazy and lazy != other and hash(lazy) != hash(other)


def test_constructor_of_another_type_is_refused(Point):
    make_bag = fn("objtest.make_bag")

    class Wrong(Point):
        def __init__(self):
            self.__init_handle_by_constructor__(make_bag, 1)

    with pytest.raises(TypeError, match="not an object of its type"):
        Wrong()


def test_register_object_errors(objmod):
    with pytest.raises(ValueError, match="Cannot find object type index for `no.Such`"):

        @ffi.register_object("no.Such")
        class Missing(ffi.Object):
            pass

    with pytest.raises(TypeError, match="must inherit from ffi.Object"):
        ffi.register_object("objtest.Bag")(int)
    with pytest.raises(TypeError):
        ffi.register_object(3)


def test_register_object_default_key_and_init_false(objmod):
    Bag = type("objtest.Bag", (ffi.Object,), {})  # the class name is the key
    assert ffi.register_object(Bag) is Bag
    bag = fn("objtest.make_bag")(2)
    assert type(bag) is Bag and bag.count == 2

    @ffi.register_object("objtest.NoInit", init=False)
    class Raw(ffi.Object):
        pass

    assert "__init__" not in Raw.__dict__


# ---- global functions and types --------------------------------------------------------------


def test_init_ffi_api(objmod):
    ns = {}
    ffi.init_ffi_api("objtest", ns)
    assert ns["add"](2, 3) == 5
    assert "make_point3" in ns and "skipped" not in ns and "nested.skipped" not in ns
    mod = types.ModuleType("objtest_api")
    sys.modules["objtest_api"] = mod
    try:
        ffi.init_ffi_api("objtest", "objtest_api")
        assert mod.add(1, 1) == 2
        other = types.ModuleType("other")
        ffi.init_ffi_api("objtest", other)
        assert other.make_bag(1).count == 1
    finally:
        del sys.modules["objtest_api"]
    with pytest.raises(TypeError):
        ffi.init_ffi_api("objtest", 3)


def test_global_func_metadata_and_type_keys(objmod):
    meta = ffi.get_global_func_metadata("objtest.add")
    assert meta["pure"] is True and '"type":"ffi.Function"' in meta["type_schema"]
    keys = ffi.get_registered_type_keys()
    assert {"objtest.Point", "objtest.Point3", "ffi.Object"} <= set(keys)
    assert all(isinstance(k, str) for k in keys)


# ---- the reflection library, built with our headers and with the reference's -----------------


@pytest.fixture(scope="module")
def counter_libs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("counter"))
    # Prefixes of their own: test_reflection_interop loads copies named "ours" and "ref".
    libs = {"objours": build("objours", OURS, out)}
    if reference_include_dir() is not None:
        libs["objref"] = build("objref", REFERENCE, out)
    for path in libs.values():
        ffi.load_module(path)
    return libs


@pytest.mark.parametrize("prefix", ["objours", "objref"])
def test_reflection_library(counter_libs, prefix):
    if prefix not in counter_libs:
        pytest.skip("apache-tvm-ffi is not installed")
    unregistered = fn(f"{prefix}.make_counter")(3, "a")
    assert unregistered.type_key == f"{prefix}.Counter"
    assert (unregistered.count, unregistered.name) == (3, "a")

    @ffi.register_object(f"{prefix}.Counter")
    class Counter(ffi.Object):
        pass

    c = Counter(3, "a")
    assert (c.count, c.scale, c.name) == (3, 1.0, "a")
    assert c.add(4) == 7 and c.peek() == 7
    c.scale = 2.0
    assert c.scaled() == 14.0
    assert type(Counter.zero()) is Counter and Counter.zero().count == 0
    assert type(fn(f"{prefix}.make_counter")(1, "b")) is Counter
    assert fn(f"{prefix}.counter_peek")(c) == 7
    with pytest.raises(AttributeError, match="read-only"):
        c.count = 1
    with pytest.raises(TypeError):
        c.scale = "x"
    assert (c.count, c.scale) == (7, 2.0)
    assert Counter.count.__doc__ == "The count so far."


def test_copy_deepcopy_and_pickle_of_reflected_objects(Point, objmod):
    import copy
    import pickle

    p = Point(3, 4.0)
    p.label = "here"
    for made in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(made) is Point and not made.same_as(p)
        assert (made.x, made.y, made.label) == (3, 4.0, "here")
    # Unregistered classes too: a plain ffi.Object with its fields, through the JSON graph.
    bag = fn("objtest.make_bag")(2)
    back = pickle.loads(pickle.dumps(bag))
    assert back.type_key == "objtest.Bag" and back.count == bag.count
    # Sharing inside a deep copy is kept; copying the original is not.
    pair = ffi.Array([p, p])
    twin = copy.deepcopy(pair)
    assert twin[0].same_as(twin[1]) and not twin[0].same_as(p)
    # What cannot be copied or pickled says so.
    func = ffi.get_global_func("ffi.Shape")
    with pytest.raises(TypeError, match="registers no copy constructor"):
        copy.copy(func)
    with pytest.raises(TypeError):
        pickle.dumps(func)


def test_signatures_of_reflected_constructors_and_methods(Point, objmod):
    """inspect.signature (and so help()) shows a registered class's constructor and methods: a
    ``refl::init<int64_t, double>`` constructor under its fields' names, the constructor the
    runtime makes from the fields as those fields, methods with their declared types."""
    import inspect

    assert str(inspect.signature(Point)) == "(x: 'int', y: 'float')"
    p = Point(1, 2.0)
    assert str(inspect.signature(p.shifted)) == "(arg1: 'int', /) -> 'objtest.Point'"
    assert str(inspect.signature(Point.origin)) == "() -> 'objtest.Point'"

    @ffi.register_object("objtest.Bag")
    class Bag(ffi.Object):
        pass

    assert str(inspect.signature(Bag)) == "(count, items)"
    assert Bag(2, [1, 2]).count == 2
