"""ffi.dataclasses (c_class, field, fields, asdict, astuple, replace, is_dataclass) and
ffi.serialization, against kernels/dataclass_objects.cc built with our headers and with the
reference's: the field traits declared in C++ drive the constructor's signature, repr,
comparisons, hashing, freezing and copying."""

import copy
import inspect
import pickle
from collections import OrderedDict

import pytest
from support.build import build_with_both_headers
from support.paths import KERNELS_DIR

import ffi
from ffi import dataclasses as dc

# The classes here annotate only the fields a test reads; the warning has its own test
# (test_testing_module.py).
pytestmark = pytest.mark.filterwarnings("ignore:@c_class.*does not annotate:UserWarning")

PREFIXES = ["dcours", "dcref"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    import os

    src = os.path.join(KERNELS_DIR, "dataclass_objects.cc")
    out = build_with_both_headers(
        src, tuple(PREFIXES), "DC_PREFIX", str(tmp_path_factory.mktemp("dc"))
    )
    for path in out.values():
        ffi.load_module(path)
    return out


@pytest.fixture(scope="module", params=PREFIXES)
def k(request, libs):
    """The classes for one copy of the library, as a namespace."""
    p = request.param
    if p not in libs:
        pytest.skip("apache-tvm-ffi is not installed")

    @dc.c_class(f"{p}.Vec", eq=True, order=True, unsafe_hash=True)
    class Vec(ffi.Object):
        x: int
        y: float
        label: str = dc.field(kw_only=True)  # documents only: C++ declares the field

    @dc.c_class(f"{p}.Vec3", frozen=True)
    class Vec3(Vec):
        z: int

    @dc.c_class(f"{p}.Box")
    class Box(ffi.Object):
        def total(self):  # the class body's own methods stay
            return sum(self.counts.values())

    @dc.c_class(f"{p}.Handle")
    class Handle(ffi.Object):
        pass

    class NS:
        pass

    ns = NS()
    ns.prefix, ns.Vec, ns.Vec3, ns.Box, ns.Handle = p, Vec, Vec3, Box, Handle
    return ns


# ---- construction --------------------------------------------------------------------------------


def test_signature_follows_the_field_traits(k):
    sig = inspect.signature(k.Vec)
    assert str(sig) == (
        "(x: int, y: float = <MISSING>, note=<MISSING>, tags=<MISSING>, *, label: str = <MISSING>)"
    )
    # Inherited fields first; required ones before defaulted ones; hidden (init(false)) absent.
    assert list(inspect.signature(k.Vec3).parameters) == ["x", "z", "y", "note", "tags", "label"]
    assert k.Vec.__match_args__ == ("x", "y", "note", "tags")
    assert k.Vec3.__match_args__ == ("x", "y", "note", "tags", "z")


def test_constructor_defaults_and_keywords(k):
    v = k.Vec(1)
    assert (v.x, v.y, v.label, v.note, list(v.tags), v.hidden) == (1, 0.5, "v", "", [], 7)
    v = k.Vec(2, 3.0, "n", [4], label="q")
    assert (v.x, v.y, v.note, list(v.tags), v.label) == (2, 3.0, "n", [4], "q")
    v = k.Vec(x=5, y=dc.MISSING, label="r")  # MISSING leaves the C++ default
    assert (v.x, v.y, v.label) == (5, 0.5, "r")
    w = k.Vec3(1, 2)
    assert (w.x, w.z, w.y) == (1, 2, 0.5) and type(w) is k.Vec3


def test_constructor_errors_are_type_errors(k):
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        k.Vec()
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        k.Vec(1, hidden=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        k.Vec(1, w=3)
    with pytest.raises(TypeError):
        k.Vec("not an int")


def test_explicit_constructor_and_init_false(k, libs):
    h = k.Handle(3, "h")
    assert (h.id, h.name) == (3, "h")

    @dc.c_class(f"{k.prefix}.Handle", init=False)
    class Sealed(ffi.Object):
        pass

    with pytest.raises(TypeError, match="cannot be constructed directly"):
        Sealed(3, "h")

    @dc.c_class(f"{k.prefix}.Handle")
    class Custom(ffi.Object):
        def __init__(self, n):
            self.__ffi_init__(n, "custom")

    assert Custom(4).name == "custom"
    dc.c_class(f"{k.prefix}.Handle")(k.Handle)  # restore the class registered for the type


# ---- repr, comparison, hashing -------------------------------------------------------------------


def test_repr_leaves_out_repr_false_fields(k):
    text = repr(k.Vec(1, note="secret", label="a"))
    assert text == f'{k.prefix}.Vec(x=1, y=0.5, label="a", tags=(), hidden=7)'
    assert "secret" not in text


def test_eq_order_and_hash_skip_compare_false_fields(k):
    a, b = k.Vec(1, note="one"), k.Vec(1, note="two")
    assert a == b and not (a != b)  # note is compare(false)
    assert hash(a) == hash(b)  # and hash(false)
    assert a != k.Vec(2) and k.Vec(1) < k.Vec(2) <= k.Vec(2) and k.Vec(3) > k.Vec(2) >= k.Vec(2)
    assert len({a, b, k.Vec(2)}) == 2
    assert (a == 1) is False and a.__eq__(1) is NotImplemented
    with pytest.raises(TypeError):
        a < 1  # noqa: B015


def test_without_eq_objects_compare_by_identity(k):
    box = k.Box(k.Vec(1))
    assert box != k.Box(k.Vec(1)) and box == box


def test_eq_alone_makes_instances_unhashable(k):
    @dc.c_class(f"{k.prefix}.Vec", eq=True)
    class EqOnly(ffi.Object):
        pass

    assert EqOnly(1) == EqOnly(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(EqOnly(1))
    dc.c_class(f"{k.prefix}.Vec", eq=True, order=True, unsafe_hash=True)(k.Vec)


# ---- frozen fields and replace -------------------------------------------------------------------


def test_frozen_refuses_assignment_of_own_fields(k):
    w = k.Vec3(1, 2)
    with pytest.raises(AttributeError, match="read-only"):
        w.z = 3
    w.x = 9  # inherited from Vec, which is not frozen
    assert (w.x, w.z) == (9, 2)
    k.Vec3.z.set(w, 5)  # the escape hatch writes anyway
    assert w.z == 5
    assert [f.name for f in dc.fields(w) if f.frozen] == ["hidden", "z"]


def test_replace_copies_and_writes_frozen_fields(k):
    w = k.Vec3(1, 2, label="a")
    r = dc.replace(w, z=7, label="b")
    assert type(r) is k.Vec3 and not r.same_as(w)
    assert (r.x, r.z, r.label) == (1, 7, "b") and (w.z, w.label) == (2, "a")
    if hasattr(copy, "replace"):  # Python 3.13: copy.replace calls __replace__
        assert copy.replace(w, x=3).x == 3
    with pytest.raises(TypeError, match="unknown field"):
        dc.replace(w, nope=1)
    with pytest.raises(TypeError, match="no copy constructor"):
        dc.replace(k.Handle(1, "h"), id=2)
    with pytest.raises(TypeError, match="py_class instance"):
        dc.replace(k.Vec3, z=1)


# ---- fields, asdict, astuple, is_dataclass -------------------------------------------------------


def test_fields_describe_the_reflection(k):
    fs = {f.name: f for f in dc.fields(k.Vec)}
    assert list(fs) == ["x", "y", "label", "note", "tags", "hidden"]
    assert fs["x"].type is int and fs["x"].doc == "The first coordinate."
    assert fs["x"].default is dc.MISSING and fs["x"].default_factory is dc.MISSING
    assert fs["y"].default == 0.5 and fs["label"].kw_only and fs["label"].type is str
    assert not fs["note"].repr and not fs["note"].compare and not fs["note"].hash
    assert list(fs["tags"].default_factory()) == []
    assert not fs["hidden"].init and fs["hidden"].default == 7
    assert dc.fields(k.Vec(1)) == dc.fields(k.Vec)
    with pytest.raises(TypeError, match="c_class"):
        dc.fields(ffi.Array([1]))


def test_asdict_and_astuple_recurse(k):
    box = k.Box(k.Vec(1, tags=[2, 3]), counts={"a": 1})
    box.next = k.Box(k.Vec(4))
    d = dc.asdict(box)
    assert d["item"] == {"x": 1, "y": 0.5, "label": "v", "note": "", "tags": [2, 3], "hidden": 7}
    assert d["counts"] == {"a": 1} and type(d["counts"]) is dict
    assert d["next"]["item"]["x"] == 4 and d["next"]["next"] is None
    od = dc.asdict(box, dict_factory=OrderedDict)
    assert type(od) is OrderedDict and type(od["item"]) is OrderedDict
    t = dc.astuple(box.item)
    assert t == (1, 0.5, "v", "", [2, 3], 7)
    assert dc.astuple(k.Vec(1, tags=[5]), tuple_factory=list) == [1, 0.5, "v", "", [5], 7]
    assert box.total() == 1
    with pytest.raises(TypeError):
        dc.asdict(k.Vec)
    with pytest.raises(TypeError):
        dc.astuple({"a": 1})


def test_is_dataclass(k):
    assert dc.is_dataclass(k.Vec) and dc.is_dataclass(k.Vec(1))
    assert not dc.is_dataclass(ffi.Array([1])) and not dc.is_dataclass(ffi.Object)

    @ffi.register_object(f"{k.prefix}.Handle")
    class Plain(ffi.Object):
        pass

    assert not dc.is_dataclass(Plain)
    dc.c_class(f"{k.prefix}.Handle")(k.Handle)


def test_field_specifier_validates():
    with pytest.raises(ValueError, match="both default and default_factory"):
        dc.field(default=1, default_factory=list)
    with pytest.raises(TypeError, match="callable"):
        dc.field(default_factory=3)
    assert repr(dc.MISSING) == "<MISSING>" and pickle.loads(pickle.dumps(dc.MISSING)) is dc.MISSING


def test_missing_is_the_runtimes_missing_object():
    """As in the reference, MISSING is an ffi.Object: the runtime's missing object, one Python
    object wherever it is imported from, kept by copies and pickling."""
    import copy

    import ffi.container
    import ffi.core

    missing = dc.MISSING
    assert isinstance(missing, ffi.Object) and missing is ffi.core.MISSING is ffi.container.MISSING
    assert missing.same_as(ffi.get_global_func("ffi.GetInvalidObject")())
    assert copy.copy(missing) is missing and copy.deepcopy([missing])[0] is missing
    with pytest.raises(AttributeError):
        missing.note = 1
    with pytest.raises(TypeError, match="a subclass of its class"):
        ffi._core._wrap_as(ffi.Array([1]), type(missing))


def test_unknown_type_key_is_a_value_error():
    with pytest.raises(ValueError, match="no C\\+\\+ type is registered"):
        dc.c_class("nobody.Registers.This")(type("X", (ffi.Object,), {}))


# ---- serialization -------------------------------------------------------------------------------


def test_json_graph_round_trip_keeps_sharing(k):
    item = k.Vec(1, label="s")
    box = k.Box(item, counts={"a": 2})
    box.next = k.Box(item)
    text = ffi.serialization.to_json_graph_str(box)
    back = ffi.serialization.from_json_graph_str(text)
    assert type(back) is k.Box and back == back and dc.asdict(back) == dc.asdict(box)
    assert back.item.same_as(back.next.item)  # one node, one object
    assert pickle.loads(pickle.dumps(item)) == item
    with_meta = ffi.serialization.to_json_graph_str(ffi.Array([1, 2]), {"version": "1"})
    assert list(ffi.serialization.from_json_graph_str(with_meta)) == [1, 2]


def test_json_graph_errors_are_clear():
    with pytest.raises(ValueError):
        ffi.serialization.from_json_graph_str("{not json")
    with pytest.raises((TypeError, ValueError)):
        ffi.serialization.to_json_graph_str(ffi.get_global_func("ffi.ArraySize"))
