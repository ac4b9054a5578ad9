"""Structural visiting and rewriting from Python (``ffi.structural_visit``,
``ffi.structural_map``, ``ffi.structural_mutate``, ``ffi.StructuralVisitor``,
``ffi.StructuralMutator``, ``ffi.InplaceMode``): callbacks that own the descent, copy on write with
sharing kept, both orders, free variables rewritten once, the mutator's remap, and errors; on
object types built with our headers and with the reference's
(tests/python/kernels/structural_objects.cc)."""

from typing import Any

import pytest

import ffi


def test_visit_callbacks_own_the_descent():
    root = ffi.Array([ffi.Array([1, 2]), ffi.Map({"k": 3}), None])
    trace: list[Any] = []

    def on_array(value, visitor):
        assert isinstance(visitor, ffi.StructuralVisitor)
        assert visitor.def_region_kind() == ffi.DefRegionKind.NONE
        trace.append(("array", len(value)))
        if len(value) == 3:
            return visitor.default_visit(value)  # descend into the outer array only
        return None

    entries = [(ffi.Array, on_array), (int, lambda v, _: trace.append(v))]
    assert ffi.structural_visit(root, entries) is None
    assert trace == [("array", 3), ("array", 2), 3]  # the inner array pruned, None never visited
    # visit() dispatches like the traversal; an interrupt ends everything and comes back.
    found = ffi.structural_visit(
        root,
        [
            (ffi.Map, lambda m, visitor: visitor.visit(m["k"])),
            (int, lambda v, _: ffi.VisitInterrupt(v * 10) if v == 3 else None),
        ],
    )
    assert found.value == 30
    # with_def_region_kind scopes the region around a call and returns its result.
    regions = []

    def in_region(value, visitor):
        return visitor.with_def_region_kind(
            ffi.DefRegionKind.DEF_SIMPLE, lambda: regions.append(visitor.def_region_kind())
        )

    ffi.structural_visit([1], (ffi.Array, in_region))
    assert regions == [ffi.DefRegionKind.DEF_SIMPLE]
    with pytest.raises(TypeError, match="None or a VisitInterrupt"):
        ffi.structural_visit([1], (int, lambda v, _: "no"))


def test_map_copies_on_write_in_both_orders():
    shared = ffi.Array(["keep"])
    root = ffi.Array([1, ffi.List([2, shared]), ffi.Dict({"a": 3}), ffi.Map({"b": 4})])
    out = ffi.structural_map(root, (int, lambda v: v + 1))
    assert not out.same_as(root)
    assert out[0] == 2 and list(out[1])[0] == 3 and out[2]["a"] == 4 and out[3]["b"] == 5
    assert out[1][1].same_as(shared)  # unchanged parts are shared, not copied
    assert isinstance(out[1], ffi.List) and isinstance(out[2], ffi.Dict)
    assert root[0] == 1 and root[1][0] == 2 and root[2]["a"] == 3  # the source is intact
    assert ffi.structural_map(root, (str, lambda s: s)).same_as(root)
    # Python lists convert as in any call; the result is an ffi container.
    assert list(ffi.structural_map([1, [2]], (int, lambda v: v * 10))[1]) == [20]
    # Post-order sees rewritten parts; pre-order rewrites the parts of the replacement.
    seen = []
    ffi.structural_map([[1]], [(int, lambda v: v + 1), (ffi.Array, lambda a: seen.append(a[0]))])
    assert seen[0] == 2
    widened = ffi.structural_map(
        [1],
        [(ffi.Array, lambda a: ffi.Array([*a, 100]) if len(a) == 1 else a), (int, lambda v: -v)],
        order="pre",
    )
    assert list(widened) == [-1, -100]
    with pytest.raises(ValueError, match="order"):
        ffi.structural_map([1], (int, abs), order="sideways")


@pytest.fixture(params=["seours", "seref"])
def T(request, structural_classes):
    if request.param not in structural_classes:
        pytest.skip("apache-tvm-ffi is not installed")
    return structural_classes[request.param]


def test_map_rewrites_objects_and_variables_once(T):
    Var, Func = T["Var"], T["Func"]
    x, y = Var("x", 32), Var("y", 16)
    func = Func([x], [x, y, 7], "a comment")
    out = ffi.structural_map(func, (int, lambda v: v * 2))
    assert isinstance(out, Func) and not out.same_as(func)
    new_x = out.params[0]
    assert new_x.bits == 64 and new_x.name == "x"
    # Uses of x become the very variable its definition was rewritten into.
    assert out.body[0].same_as(new_x)
    # y is free (no definition here): its use is not rewritten.
    assert out.body[1].same_as(y)
    assert out.body[2] == 14 and out.comment == "a comment"
    assert func.params[0].same_as(x) and x.bits == 32  # the source is intact
    # Region-aware callbacks see the definition and the uses.
    kinds: list[str] = []
    ffi.structural_map(
        func, with_def_region_kind=(Var, lambda v, kind: kinds.append(kind.name) or v)
    )
    assert kinds == ["DEF_SIMPLE", "NONE", "NONE"]


def test_mutate_callbacks_and_the_mutator(T):
    Var, Func = T["Var"], T["Func"]
    x, z = Var("x", 32), Var("z", 8)
    func = Func([x], [x, 1], "")
    modes = []

    def on_func(value, mutator, inplace_mode):
        assert isinstance(mutator, ffi.StructuralMutator)
        modes.append(ffi.InplaceMode(inplace_mode))
        mutator.var_remap_set(value.params[0], z)
        assert mutator.var_remap_get(value.params[0]).same_as(z)
        return mutator.default_mutate(value)

    out = ffi.structural_mutate(func, [(Func, on_func), (int, lambda v, m: v + 100)])
    # The remap answers the definition and the uses alike.
    assert out.params[0].same_as(z) and out.body[0].same_as(z) and out.body[1] == 101
    assert modes == [ffi.InplaceMode.DISALLOW]  # the caller still holds `func`
    # A matched callback's result is final: its parts are not rewritten again.
    assert ffi.structural_mutate(func, (Func, lambda v, m: ffi.Array([1]))) == ffi.Array([1])
    # mutate() dispatches through the callbacks; a remap miss is None.
    probe = []

    def on_array(value, mutator):
        probe.append(mutator.var_remap_get(x))
        return ffi.Array([mutator.mutate(v) for v in value])

    out = ffi.structural_mutate([1, 2], [(ffi.Array, on_array), (int, lambda v, m: -v)])
    assert list(out) == [-1, -2]
    assert probe == [None]


def test_mutate_errors():
    with pytest.raises(TypeError, match="value, mutator"):
        ffi.structural_mutate([1], (int, lambda v: v))
    with pytest.raises(TypeError, match="callback type"):
        ffi.structural_mutate([1], (list, lambda v, m: v))

    def boom(value, mutator):
        raise KeyError("inner")

    with pytest.raises(KeyError, match="inner"):
        ffi.structural_mutate([1], (int, boom))
    with pytest.raises(KeyError, match="inner"):
        ffi.structural_map([1], (int, lambda v: boom(v, None)))
    with pytest.raises(TypeError, match="object"):
        ffi.structural_mutate([1], (ffi.Array, lambda v, m: m.var_remap_get(1)))


def test_moved_roots_are_rewritten_in_place():
    # A list handed over with _move() is owned by the rewrite alone: changed in place.
    items = ffi.List([1, ffi.List([2])])
    address = items.id_
    out = ffi.structural_map(items._move(), (int, lambda v: v + 1))
    assert out.id_ == address and out[0] == 2 and out[1][0] == 3
    assert items.id_ == 0  # the Python object gave its reference away
    with pytest.raises(RuntimeError, match="holds no FFI object"):
        items._move()
    with pytest.raises(TypeError, match="argument #0"):
        ffi.structural_map(items, (int, abs))
    # Without _move() the caller's list is kept and a new one comes back.
    kept = ffi.List([1])
    assert not ffi.structural_map(kept, (int, lambda v: v + 1)).same_as(kept) and kept[0] == 1
    # The mode a mutate callback sees follows ownership.
    modes = []

    def on_list(value, mutator, inplace_mode):
        modes.append(ffi.InplaceMode(inplace_mode))
        return value

    ffi.structural_mutate(ffi.List([1])._move(), (ffi.List, on_list))
    ffi.structural_mutate(kept, (ffi.List, on_list))
    assert modes == [ffi.InplaceMode.ALLOW, ffi.InplaceMode.DISALLOW]
    # Stored in a container, a moved object moves there.
    inner = ffi.Array([5])
    address = inner.id_
    outer = ffi.Array([inner._move()])
    assert outer[0].id_ == address and inner.id_ == 0
    assert "ObjectRValueRef" in repr(outer._move())


@pytest.mark.parametrize(
    "key", ["ffi.String", "ffi.Bytes", "ffi.BigInt", "ffi.Array", "ffi.List", "ffi.Map", "ffi.Dict"]
)
def test_standard_types_have_both_mutation_hooks(key):
    # As the reference's runtime registers them: a mutator compiled from either header set finds a
    # hook for every standard type it meets. Without one it walks the value's fields, and strings,
    # bytes and big integers have neither fields nor a shallow copy (TVM's simplifier failed on
    # a string attribute with "__ffi_shallow_copy__ must be an ffi.Function").
    index = ffi._core.type_key_to_index(key)
    for attr in ("__s_mutate__", "__s_maybe_inplace_mutate__"):
        assert ffi._core._type_attr(index, attr) is not None, attr


def test_mutate_leaves_strings_bytes_and_big_ints_as_they_are():
    big = 1 << 100
    root = ffi.Array(["text", b"bytes", big, 3])
    out = ffi.structural_mutate(root, (int, lambda v, m: v + 1 if v < 10 else v))
    assert list(out) == ["text", b"bytes", big, 4]
