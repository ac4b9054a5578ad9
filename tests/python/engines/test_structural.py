"""Structural equality and hashing from Python (``ffi.structural_equal``, ``structural_hash``,
``get_first_structural_mismatch``, ``StructuralKey``, ``ffi.access_path``): containers, tensors
from PyTorch and NumPy, and object types of every structural kind
(tests/python/kernels/structural_objects.cc, built with our headers and with the reference's)."""

import numpy as np
import pytest
import torch

import ffi
from ffi.access_path import AccessKind, AccessPath

# ---- values, containers and tensors -------------------------------------------------------------


def test_containers_by_content():
    lhs = {"items": [1, 2, {"k": 3}], "meta": {"tag": "x"}}
    rhs = {"meta": {"tag": "x"}, "items": [1, 2, {"k": 3}]}
    other = {"items": [1, 2, {"k": 4}], "meta": {"tag": "x"}}
    assert ffi.structural_equal(lhs, rhs)
    assert ffi.structural_hash(lhs) == ffi.structural_hash(rhs)
    assert not ffi.structural_equal(lhs, other)
    assert ffi.structural_hash(lhs) != ffi.structural_hash(other)
    assert 0 <= ffi.structural_hash(lhs) < 2**64
    # Types matter: int and bool, Map and Dict, Array and List differ.
    assert not ffi.structural_equal(1, True)
    assert not ffi.structural_equal(ffi.Map({"a": 1}), ffi.Dict({"a": 1}))
    assert not ffi.structural_equal(ffi.Array([1]), ffi.List([1]))
    assert ffi.structural_equal(float("nan"), float("nan"))
    assert ffi.structural_equal("x" * 100, "x" * 100)


def test_hashes_of_maps_spread():
    """Maps with the same keys and permuted values hash apart (entries enter in the order of their
    keys' hashes, each key with its value)."""
    h = ffi.structural_hash
    assert h({"a": 0, "b": 2}) != h({"a": 2, "b": 0})
    grid = {h({"a": i, "b": j, "c": k}) for i in range(12) for j in range(12) for k in range(12)}
    assert len(grid) == 12**3
    assert h({"a": 1, "b": 2}) == h(ffi.Map({"b": 2, "a": 1}))  # still order-independent


def test_mismatch_paths():
    assert ffi.get_first_structural_mismatch([1, 2], [1, 2]) is None
    lhs, rhs = ffi.get_first_structural_mismatch({"a": [1, 2]}, {"a": [1, 3]})
    assert isinstance(lhs, AccessPath)
    assert lhs == AccessPath.root().map_item("a").array_item(1) == rhs
    lhs, rhs = ffi.get_first_structural_mismatch([1, 2, 3], [1, 2])
    assert lhs == AccessPath.root().array_item(2)
    assert rhs == AccessPath.root().array_item_missing(2)
    assert [(s.kind, s.key) for s in rhs.to_steps()] == [(AccessKind.ARRAY_ITEM_MISSING, 2)]
    assert repr(rhs) == "<root>[<missing:2>]"  # the runtime's ReprPrint, as the reference shows it
    deep = AccessPath.root().attr("config").array_item(0).map_item("name")
    assert repr(deep.attr_missing("w").map_item_missing("b")) == (
        '<root>.config[0]["name"][<missing:"w">][<missing:"b">]'
    )


def test_access_paths():
    root = AccessPath.root()
    p = root.attr("layer").array_item(2).map_item("w")
    assert p.depth == 3 and p.parent == root.attr("layer").array_item(2)
    assert root.is_prefix_of(p) and p.is_prefix_of(p) and not p.is_prefix_of(root)
    assert not root.attr("other").is_prefix_of(p)
    assert p != root.attr("layer").array_item(3).map_item("w")
    assert hash(p) == hash(root.attr("layer").array_item(2).map_item("w"))
    assert root.attr_missing("f").to_steps()[0].kind == AccessKind.ATTR_MISSING
    assert root.map_item_missing("k").extend(p.to_steps()[0]).depth == 2
    with pytest.raises(ValueError, match="AccessPath.root"):
        AccessPath()


def test_tensors_by_content_or_metadata():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    assert ffi.structural_equal(x, x.clone())
    assert ffi.structural_hash(x) == ffi.structural_hash(x.clone())
    # A transposed view and its contiguous copy hold the same elements in the same order.
    t = x.t()
    assert ffi.structural_equal(t, t.contiguous())
    assert ffi.structural_hash(t) == ffi.structural_hash(t.contiguous())
    y = x.clone()
    y[1, 2] = 100
    assert not ffi.structural_equal(x, y)
    assert ffi.structural_equal(x, y, skip_tensor_content=True)
    assert ffi.structural_hash(x, skip_tensor_content=True) == ffi.structural_hash(
        y, skip_tensor_content=True
    )
    assert not ffi.structural_equal(x, x.reshape(3, 2), skip_tensor_content=True)
    assert not ffi.structural_equal(x, x.double())
    n = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert ffi.structural_equal(n, x)  # NumPy and PyTorch: same dtype, device, shape, content


def test_structural_key_in_maps_and_dicts():
    k1 = ffi.StructuralKey({"x": [1, 2], "y": [3]})
    k2 = ffi.StructuralKey({"y": [3], "x": [1, 2]})
    k3 = ffi.StructuralKey({"x": [1, 2], "y": [5]})
    assert k1 == k2 and k1 != k3 and hash(k1) == hash(k2)
    assert hash(k1) == ffi.structural_hash(k1.key)
    m = ffi.Map({k1: 1, k2: 2, k3: 3})
    assert len(m) == 2 and m[k1] == 2 and m[k3] == 3
    assert {k1: "a", k3: "b"}[k2] == "a"


# ---- object types of each kind, built with either header set -----------------------------------


@pytest.fixture(params=["seours", "seref"])
def T(request, structural_classes):
    if request.param not in structural_classes:
        pytest.skip("apache-tvm-ffi is not installed")
    return structural_classes[request.param]


def test_free_variables(T):
    a, b = T["Var"]("a", 32), T["Var"]("b", 32)
    assert ffi.structural_equal(a, a)
    assert not ffi.structural_equal(a, b)
    assert ffi.structural_hash(a) != ffi.structural_hash(b)
    assert ffi.structural_equal(a, b, map_free_vars=True)  # names are ignored
    assert ffi.structural_hash(a, map_free_vars=True) == ffi.structural_hash(b, map_free_vars=True)
    assert not ffi.structural_equal(a, T["Var"]("c", 16), map_free_vars=True)


def test_alpha_equivalence(T):
    Var, Func = T["Var"], T["Func"]
    x, y, p, q = (Var(n, 32) for n in "xypq")
    f1 = Func([x], [1, x], "comment a")
    f2 = Func([y], [1, y], "comment b")
    assert ffi.structural_equal(f1, f2)
    assert ffi.structural_hash(f1) == ffi.structural_hash(f2)
    assert not ffi.structural_equal(Func([x, y], [x, x], ""), Func([p, q], [p, q], ""))
    assert not ffi.structural_equal(Func([x, y], [x, y], ""), Func([p, q], [q, p], ""))
    assert ffi.structural_equal(
        Func([], [Func([x], [x], "")], ""), Func([], [Func([y], [y], "")], "")
    )
    lhs, rhs = ffi.get_first_structural_mismatch(Func([x], [1, x], ""), Func([x], [1, 2], ""))
    assert lhs == AccessPath.root().attr("body").array_item(1) == rhs


def test_dag_sharing_and_const_trees(T):
    B = T["Binding"]
    s1, s2, c1, c2 = B(1), B(1), B(1), B(1)
    assert ffi.structural_equal([s1, s1], [s2, s2])
    assert not ffi.structural_equal([s1, s1], [c1, c2])
    assert ffi.structural_hash([s1, s1]) != ffi.structural_hash([c1, c2])
    assert not ffi.structural_equal([c1, c2], [c1, c1])
    Meta = T["Meta"]
    assert ffi.structural_equal(Meta("v1"), Meta("v1"))
    assert not ffi.structural_equal(Meta("v1"), Meta("v2"))


def test_type_without_kind_is_a_type_error(T):
    Plain = T["Plain"]
    with pytest.raises(TypeError, match=r"Plain"):
        ffi.structural_equal(Plain(1), Plain(1))
    with pytest.raises(TypeError, match=r"Plain"):
        ffi.structural_hash(Plain(1))
