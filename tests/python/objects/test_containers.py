"""Containers from Python: lists, tuples and dicts convert on call (to Array and Map, nested too),
ffi.Array/List/Map/Dict behave as Python sequences and mappings, and containers returned by C++
arrive as these classes. The kernels (kernels/containers_kernels.cc) are built twice: with our
headers and with the reference's, and both builds are called with plain Python values."""

import collections
import collections.abc
import copy
import os
import pickle

import numpy as np
import pytest
import torch
from support.build import (
    build_kernel,
    build_with_reference_headers,
)
from support.paths import TESTS_DIR

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

SOURCE = os.path.join(TESTS_DIR, "kernels", "containers_kernels.cc")


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return ffi.load_module(build_kernel(SOURCE, str(tmp_path_factory.mktemp("containers"))))


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    lib = str(tmp_path_factory.mktemp("containers_ref") / "containers_ref.so")
    return ffi.load_module(build_with_reference_headers(SOURCE, lib))


@pytest.fixture(params=["ours", "reference"])
def mod(request):
    return request.getfixturevalue("ours" if request.param == "ours" else "theirs")


# ---- conversion on call -------------------------------------------------------------------------


def test_lists_tuples_dicts_convert_on_call(mod):
    assert mod.sum_ints([1, 2, 3]) == 6
    assert mod.sum_ints((4, 5)) == 9
    assert mod.sum_ints([]) == 0
    assert mod.lookup({"a": 1, "b": 2}, "b") == 2
    assert mod.map_length({}) == 0
    assert mod.nested_sum([[1, 2], (3,), []]) == 6
    assert mod.dict_of_lists_sum({"x": [1, 2], "y": (3,)}) == 6


def test_shape_parameters_take_sequences_of_ints(mod):
    assert mod.shape_product([2, 3]) == 6
    assert mod.shape_product((2, 3, 4)) == 24
    assert mod.shape_product(ffi.Array([5])) == 5
    assert mod.shape_product(ffi.List([2, 2])) == 4
    assert mod.shape_product(ffi.Shape((7,))) == 7
    assert mod.shape_product([]) == 1
    with pytest.raises(TypeError):
        mod.shape_product([1, "x"])
    with pytest.raises(TypeError):
        mod.shape_product({"a": 1})


def test_subclasses_and_large_lists_convert(mod):
    Point = collections.namedtuple("Point", "x y")
    assert mod.sum_ints(Point(2, 3)) == 5
    assert mod.lookup(collections.OrderedDict(a=7), "a") == 7
    assert mod.sum_ints(list(range(10000))) == sum(range(10000))


def test_elements_of_every_kind_round_trip(mod):
    t = np.arange(6, dtype=np.float32)
    values = [1, 2.5, "short", "a string longer than seven", None, True, b"xy", [1, [2]], {"k": 1}]
    out = mod.echo(values + [t])
    assert isinstance(out, ffi.Array)
    assert list(out[:8]) == values[:8]
    assert isinstance(out[7], ffi.Array) and isinstance(out[7][1], ffi.Array)
    assert isinstance(out[8], ffi.Map) and out[8]["k"] == 1
    assert isinstance(out[-1], ffi.Tensor) and out[-1].shape == (6,)
    assert mod.tensors_numel([t, t[:2]]) == 8


def test_returned_containers_arrive_as_classes(mod):
    d = mod.describe("nm", 3)
    assert isinstance(d, ffi.Map)
    assert d["name"] == "nm"
    assert isinstance(d["sizes"], ffi.Array) and list(d["sizes"]) == [3, 4]
    assert d["nested"]["k"][0] == "nm"
    assert list(d) == ["name", "sizes", "nested"]
    assert mod.iota(4) == [0, 1, 2, 3]


def test_containers_pass_back_unchanged(mod):
    arr = ffi.Array([1, 2, 3])
    assert mod.sum_ints(arr) == 6
    assert mod.echo(arr).same_as(arr)
    m = ffi.Map({"a": 5})
    assert mod.lookup(m, "a") == 5
    assert mod.echo_map(m).same_as(m)


def test_shared_list_and_dict_mutated_by_cpp(mod):
    lst = ffi.List([1])
    mod.list_push(lst, "x")
    assert list(lst) == [1, "x"]
    d = ffi.Dict({"a": 1})
    mod.dict_put(d, "b", [2, 3])
    assert d["b"] == [2, 3] and len(d) == 2


# ---- bad input ----------------------------------------------------------------------------------


class BadDType:
    """A value whose conversion protocol fails (the method returns the wrong kind of value)."""

    def __dlpack_data_type__(self):
        return None


def test_unconvertible_element_names_the_element(ours):
    with pytest.raises(TypeError, match=r"argument #0.*list element \[1\].*__dlpack_data_type__"):
        ours.sum_ints([1, BadDType()])
    with pytest.raises(TypeError, match=r"dict value for key 'a': list element \[1\]"):
        ours.lookup({"a": [0, BadDType()]}, "a")
    with pytest.raises(TypeError, match=r"tuple element \[0\]"):
        ffi.Array([(BadDType(),)])


def test_wrong_element_type_is_a_type_error(mod):
    with pytest.raises(TypeError):
        mod.sum_ints([1, "two"])
    with pytest.raises(TypeError):
        mod.lookup({1: 2}, "a")


def test_element_beyond_int64(ours):
    # The element crosses as a BigInt, which Array<int64_t> refuses, naming where it is.
    with pytest.raises(TypeError, match=r"got `Array\[index 1: ffi.BigInt\]`"):
        ours.sum_ints([1, 2**70])
    assert ours.echo([1, 2**70])[1] == 2**70


def test_deep_nesting_raises_recursion_error(ours):
    deep: list = []
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(RecursionError):
        ours.length(deep)
    cyclic: list = [1]
    cyclic.append(cyclic)
    with pytest.raises(RecursionError):
        ffi.Array(cyclic)
    assert ours.length([[[1]]]) == 1  # and conversion works afterwards


def test_failed_conversion_leaks_nothing(ours):
    inner = ffi.Array([1])
    before = inner._use_count()
    for _ in range(3):
        with pytest.raises(TypeError):
            ours.echo([inner, inner, BadDType()])
    assert inner._use_count() == before


def test_small_list_arguments_reuse_arrays_only_when_released(ours):
    """Small list arguments are converted into arrays a thread reuses: an array the callee kept (a
    Python callback holding it, a result returning it) is never reused under it."""
    kept = []
    ffi.register_global_func("testcontainers.keep", lambda a: kept.append(a), override=True)
    keep = ffi.get_global_func("testcontainers.keep")
    inner = ffi.Array([1])
    for i in range(20):
        keep([i, "s", inner, (i,)])
        assert ours.echo([i, i + 1]) is not None
    assert [[a[0], a[1], a[3][0]] for a in kept] == [[i, "s", i] for i in range(20)]
    assert all(a[2].same_as(inner) for a in kept)
    returned = [ours.echo([i]) for i in range(5)]  # the result holds the argument's array
    assert [list(r) for r in returned] == [[i] for i in range(5)]
    before = inner._use_count()
    for _ in range(3):
        assert list(ours.echo([inner, 2])) == [inner, 2]  # not kept: values released after
    assert inner._use_count() == before
    del kept[:]
    assert inner._use_count() == 1
    assert ours.echo([]) is not None and list(ours.echo(tuple(range(8)))) == list(range(8))
    assert list(ours.echo(list(range(9)))) == list(range(9))  # past the pooled size


# ---- the classes --------------------------------------------------------------------------------


def test_array_sequence_protocol():
    a = ffi.Array([1, 2.0, "x", [3]])
    assert len(a) == 4 and bool(a) and not ffi.Array([])
    assert a[0] == 1 and a[-1] == [3] and a[1:3] == [2.0, "x"]
    assert "x" in a and 7 not in a
    assert a.index("x") == 2 and a.count(1) == 1
    assert list(reversed(a))[0] == [3]
    with pytest.raises(IndexError):
        a[4]
    with pytest.raises(IndexError):
        a[-5]
    with pytest.raises(TypeError):
        a["0"]
    assert isinstance(a, collections.abc.Sequence)
    assert not isinstance(a, collections.abc.MutableSequence)
    assert ffi.Array(i * i for i in range(3)) == [0, 1, 4]
    assert a + [5] == [1, 2.0, "x", [3], 5]


def test_array_equality_and_hash():
    a = ffi.Array([1, "x", [2]])
    assert a == [1, "x", [2]] and a == (1, "x", (2,))
    assert a == ffi.Array([1, "x", [2]]) and a == ffi.List([1, "x", [2]])
    assert a != [1, "x"] and a != "1x" and a != {1: 2}
    assert hash(a) == hash(ffi.Array([1, "x", [2]]))
    t = ffi.from_dlpack(np.zeros(2, dtype=np.float32))
    assert ffi.Array([t]) == [t]  # FFI objects compare by identity of the object
    assert ffi.Array([t]) != [ffi.from_dlpack(np.zeros(2, dtype=np.float32))]


def test_sequence_index_remove_and_insert_refuse_clearly():
    lst = ffi.List([1, "x", 1])
    assert lst.index(1) == 0 and lst.index(1, 1) == 2 and ffi.Array([1, 2]).index(2) == 1
    with pytest.raises(ValueError, match="5 is not in the List"):
        lst.index(5)
    with pytest.raises(ValueError, match="'y' is not in the List"):
        lst.remove("y")
    with pytest.raises(ValueError, match="is not in the Array"):
        ffi.Array([1]).index(1, 1)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        lst.insert("a", 1)
    lst.remove("x")
    assert lst == [1, 1]


def test_list_mutable_sequence_protocol():
    lst = ffi.List([1, 2])
    lst.append(3)
    lst.extend([4, 5])
    lst.insert(0, 0)
    assert lst == [0, 1, 2, 3, 4, 5]
    assert lst.pop() == 5 and lst.pop(0) == 0
    lst[0] = "one"
    lst[-1] = [4]
    assert lst == ["one", 2, 3, [4]]
    lst[1:3] = ["a", "b", "c"]
    assert lst == ["one", "a", "b", "c", [4]]
    del lst[0]
    del lst[::2]
    assert lst == ["b", [4]]
    lst.reverse()
    assert lst == [[4], "b"]
    lst += ["z"]
    assert lst == [[4], "b", "z"]
    lst.remove("b")
    lst.clear()
    assert len(lst) == 0
    with pytest.raises(IndexError):
        lst.pop()
    with pytest.raises(IndexError):
        lst[0] = 1
    assert isinstance(lst, collections.abc.MutableSequence)


def test_list_extend_converts_everything_before_changing():
    class Refuses:
        def __tvm_ffi_value__(self):
            raise TypeError("refused on purpose")

    lst = ffi.List([1])
    with pytest.raises(TypeError, match="refused on purpose"):
        lst.extend([2, Refuses()])
    assert lst == [1]
    lst.extend(lst)
    lst.extend(x * 10 for x in range(2))
    assert lst == [1, 1, 0, 10]


def test_list_is_shared():
    lst = ffi.List([1])
    alias = ffi.Array([lst])[0]
    alias.append(2)
    assert lst == [1, 2] and alias.same_as(lst)


def test_map_mapping_protocol():
    m = ffi.Map({"a": 1, "b": [2], 3: "c"})
    assert len(m) == 3 and m["a"] == 1 and m[3] == "c"
    assert "a" in m and "z" not in m
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        [1] in m  # noqa: B015 - refused as a dict refuses it
    assert m.get("z") is None and m.get("z", 9) == 9
    assert list(m) == ["a", "b", 3]
    assert list(m.keys()) == ["a", "b", 3]
    assert list(m.values()) == [1, [2], "c"]
    assert list(m.items()) == [("a", 1), ("b", ffi.Array([2])), (3, "c")]
    assert ("a", 1) in m.items() and ("a", 2) not in m.items()
    assert dict(m)["b"] == [2]
    with pytest.raises(KeyError):
        m["z"]
    assert isinstance(m, collections.abc.Mapping)
    assert not isinstance(m, collections.abc.MutableMapping)
    assert ffi.Map() == ffi.Map({})


def test_map_equality_and_hash():
    m = ffi.Map({"a": 1, "b": [2]})
    assert m == ffi.Map({"b": [2], "a": 1}) and m == ffi.Dict({"a": 1, "b": [2]})
    assert m != ffi.Map({"a": 1}) and m != ffi.Map({"a": 2, "b": [2]})
    assert m != {"a": 1, "b": [2]}  # as in the reference: a Map is not equal to a dict
    assert hash(m) == hash(ffi.Map({"b": [2], "a": 1}))


def test_dict_mutable_mapping_protocol():
    d = ffi.Dict({"a": 1})
    d["b"] = [2]
    d.update({"c": 3})
    assert d.setdefault("c", 9) == 3
    assert len(d) == 3 and d["b"] == [2]
    assert d.pop("a") == 1 and d.pop("a", None) is None
    del d["b"]
    assert dict(d) == {"c": 3}
    with pytest.raises(KeyError):
        del d["zz"]
    with pytest.raises(KeyError):
        d.pop("zz")
    d.clear()
    assert len(d) == 0 and not d
    assert isinstance(d, collections.abc.MutableMapping)


def test_repr_like_the_reference():
    assert repr(ffi.Array([1, 2.0, 2.5, "x", [3], [], None, True])) == (
        '(1, 2, 2.5, "x", (3,), (), None, True)'
    )
    assert repr(ffi.List([1, ffi.List([])])) == "[1, []]"
    assert repr(ffi.Map({"k": [1], "b": 1})) == '{"k": (1,), "b": 1}'
    assert repr(ffi.Dict({1: 2})) == "{1: 2}"
    assert repr(ffi.Array([ffi.from_dlpack(np.zeros(3))])) == "(float64[3]@cpu:0,)"


def test_pickle_and_copy():
    for value in (
        ffi.Array([1, "x", [2.5]]),
        ffi.List([1, [2]]),
        ffi.Map({"a": [1], "b": {"c": 2}}),
        ffi.Dict({"a": 1}),
    ):
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value) and back == value and not back.same_as(value)
        deep = copy.deepcopy(value)
        assert type(deep) is type(value) and deep == value and not deep.same_as(value)
        shallow = copy.copy(value)  # a new container sharing the elements
        assert type(shallow) is type(value) and shallow == value and not shallow.same_as(value)
    # Pickling keeps values shared inside a container shared (its JSON graph, as for any
    # object); a container the graph cannot hold (a Python object in it) pickles by elements.
    inner = ffi.List([1])
    for shared in (ffi.Array([inner, inner]), ffi.Map({"a": inner, "b": inner})):
        back = pickle.loads(pickle.dumps(shared))
        first, second = (
            (back[0], back[1]) if isinstance(back, ffi.Array) else (back["a"], back["b"])
        )
        assert first.same_as(second) and not first.same_as(inner) and list(first) == [1]
    with_python = pickle.loads(pickle.dumps(ffi.Array([1, frozenset({2})])))
    assert list(with_python) == [1, frozenset({2})]
    # deepcopy keeps sharing and cycles (the runtime's ffi.DeepCopy).
    inner = ffi.List([1])
    cyclic = ffi.List([inner, inner])
    cyclic.append(cyclic)
    deep = copy.deepcopy(cyclic)
    assert deep[0].same_as(deep[1]) and not deep[0].same_as(inner) and deep[2].same_as(deep)
    cyclic.pop()
    deep.pop()


def test_containers_that_hold_themselves():
    """A List or Dict that holds itself shows as ``...`` there, equals itself and hashes (as the
    reference's do; recursing never ended)."""
    cyclic = ffi.List([1])
    cyclic.append(cyclic)
    assert repr(cyclic) == "[1, ...]" and cyclic == cyclic and hash(cyclic) == hash(cyclic)
    assert cyclic[1] == cyclic and cyclic in ffi.Array([cyclic])
    d = ffi.Dict({"a": 1})
    d["self"] = d
    assert repr(d) == '{"a": 1, "self": ...}' and d == d and hash(d) == hash(d)
    nested = ffi.Array([cyclic, d])
    assert repr(nested) == '([1, ...], {"a": 1, "self": ...})' and nested == nested
    cyclic.pop()
    d.pop("self")
    assert repr(cyclic) == "[1]" and repr(d) == '{"a": 1}'


def test_deepcopy_copies_host_tensors():
    """copy.deepcopy of a tensor (alone or in a container) copies its elements into a new compact
    tensor, as deepcopy of a NumPy array or PyTorch tensor does; sharing in the container is kept.
    Before, the copy shared the memory."""
    a = np.arange(12.0).reshape(3, 4)
    t = ffi.from_dlpack(a)
    c = copy.deepcopy(t)
    a[0, 0] = 99.0
    assert not c.same_as(t) and np.from_dlpack(c)[0, 0] == 0.0
    strided = copy.deepcopy(ffi.from_dlpack(a[::-1, ::2]))
    assert np.from_dlpack(strided).tolist() == a[::-1, ::2].tolist()
    assert list(strided.strides) == [2, 1]
    pair = copy.deepcopy(ffi.Array([t, t, "a string longer than seven bytes", ffi.Shape((2,))]))
    assert pair[0].same_as(pair[1]) and pair[0].data_ptr() != t.data_ptr()
    assert pair[2] == "a string longer than seven bytes" and pair[3] == (2,)
    x = torch.arange(6, dtype=torch.int16).reshape(2, 3).t()
    assert torch.from_dlpack(copy.deepcopy(ffi.from_dlpack(x))).tolist() == x.tolist()
    assert copy.deepcopy(ffi.from_dlpack(np.zeros((0, 3)))).shape == (0, 3)


def test_construction_errors():
    with pytest.raises(TypeError):
        ffi.Array(5)
    with pytest.raises(TypeError):
        ffi.Map([1, 2])
    with pytest.raises(TypeError, match="dict key"):
        ffi.Map({BadDType(): 1})
    token = object()  # any other object is held as an OpaquePyObject, as in the reference
    assert list(ffi.Map({token: 1}).keys())[0] is token
    assert ffi.convert([1, 2]) == [1, 2] and isinstance(ffi.convert({"a": 1}), ffi.Map)
