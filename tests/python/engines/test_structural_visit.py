"""Structural walking from Python (``ffi.structural_walk``, ``ffi.VisitInterrupt``,
``ffi.WalkOrder``, ``ffi.WalkResult``, ``ffi.DefRegionKind``): orders, typed callbacks and their
catch-alls, SKIP, interrupts, containers and map values (not keys), and def regions on object
types built with our headers and with the reference's (tests/python/kernels/structural_objects.cc).
Visiting and rewriting are in test_structural_mutate.py."""

from typing import Any, Optional

import pytest

import ffi


def test_orders_and_typed_callbacks():
    root = ffi.Array([ffi.Array([1]), 2.5, "tag"])
    trace: list[str] = []
    callbacks = [
        (ffi.Array, lambda v: trace.append(f"array:{len(v)}")),
        ((int, float), lambda v: trace.append(f"number:{v}")),
        (str, lambda v: trace.append(f"str:{v}")),
    ]
    assert ffi.structural_walk(root, callbacks, order="pre") is None
    assert trace == ["array:3", "array:1", "number:1", "number:2.5", "str:tag"]
    trace.clear()
    assert ffi.structural_walk(root, callbacks, order=ffi.WalkOrder.POSTORDER) is None
    assert trace == ["number:1", "array:1", "number:2.5", "str:tag", "array:3"]
    trace.clear()
    ffi.structural_walk(root, callbacks)  # post-order by default, as the reference
    assert trace[-1] == "array:3"
    # Python lists convert as in any call; a bare callable takes every value.
    seen: list[Any] = []
    ffi.structural_walk([1, "x" * 100], seen.append, order="pre")
    assert len(seen) == 3 and seen[1:] == [1, "x" * 100]


def test_catch_alls_first_match_and_skip():
    root = ffi.Array([1, ffi.Array([2])])
    trace: list[str] = []
    ffi.structural_walk(
        root,
        [
            (ffi.Object, lambda v: trace.append(f"object:{type(v).__name__}")),
            (Any, lambda v: trace.append(f"any:{v}")),
            (int, lambda v: trace.append("never")),
        ],
        order="pre",
    )
    assert trace == ["object:Array", "any:1", "object:Array", "any:2"]
    trace.clear()
    ffi.structural_walk(ffi.Array([True]), (object, lambda v: trace.append(type(v).__name__)))
    assert trace == ["bool", "Array"]
    trace.clear()
    ffi.structural_walk(
        root,
        [
            (ffi.Array, lambda v: trace.append(f"array:{len(v)}") or ffi.WalkResult.SKIP),
            (object, lambda v: trace.append("child")),
        ],
        order="pre",
    )
    assert trace == ["array:2"]
    # int and bool are different types.
    trace.clear()
    ffi.structural_walk(ffi.Array([1, True]), (bool, lambda v: trace.append(repr(v))))
    assert trace == ["True"]


def test_interrupt_stops_and_returns_payload():
    seen: list[int] = []

    # Optional, not `X | None`: the annotation is evaluated, and CPython 3.9 has no `|` on classes.
    def on_int(v: int) -> Optional[ffi.VisitInterrupt]:
        seen.append(v)
        return ffi.VisitInterrupt({"found": v}) if v == 2 else None

    result = ffi.structural_walk(ffi.Array([1, 2, 3]), (int, on_int))
    assert isinstance(result, ffi.VisitInterrupt)
    assert ffi.structural_equal(result.value, {"found": 2})
    assert seen == [1, 2]
    assert ffi.VisitInterrupt().value is None
    payload = ffi.Array([1])
    assert ffi.VisitInterrupt(payload).value.same_as(payload)


def test_containers_and_map_values():
    root = ffi.Array([ffi.Map({"numbers": ffi.Array([1, 2]), "meta": ffi.Dict({"flag": True})}), 3])
    kinds: list[str] = []
    scalars: list[int] = []
    strings: list[str] = []
    ffi.structural_walk(
        root,
        [
            (ffi.Array, lambda v: kinds.append("array")),
            (ffi.Map, lambda v: kinds.append("map")),
            (ffi.Dict, lambda v: kinds.append("dict")),
            ((int, bool), lambda v: scalars.append(int(v))),
            (str, strings.append),
        ],
    )
    assert sorted(kinds) == ["array", "array", "dict", "map"]
    assert sorted(scalars) == [1, 1, 2, 3]
    # A map's keys are not among its parts (as in the reference).
    assert strings == []


def test_errors():
    with pytest.raises(ValueError, match="order"):
        ffi.structural_walk([1], print, order="sideways")
    with pytest.raises(TypeError, match="callback type"):
        ffi.structural_walk([1], (list, print))
    with pytest.raises(TypeError, match="entry"):
        ffi.structural_walk([1], [print])
    with pytest.raises(TypeError, match="VisitInterrupt"):
        ffi.structural_walk([1], (int, lambda v: "not a result"))
    with pytest.raises(ValueError, match="WalkResult"):
        ffi.structural_walk([1], (int, lambda v: 5))

    def boom(v: Any) -> None:
        raise KeyError("inner")

    with pytest.raises(KeyError, match="inner"):
        ffi.structural_walk([1], (int, boom))


@pytest.fixture(params=["seours", "seref"])
def T(request, structural_classes):
    if request.param not in structural_classes:
        pytest.skip("apache-tvm-ffi is not installed")
    return structural_classes[request.param]


def test_def_regions_and_ignored_fields(T):
    Var, Func = T["Var"], T["Func"]
    x, y = Var("x", 32), Var("y", 16)
    root = ffi.Array([Func([x], [x, y], "a comment"), "tag"])
    trace: list[str] = []
    result = ffi.structural_walk(
        root,
        [
            (ffi.Array, lambda v: trace.append(f"array:{len(v)}")),
            (str, lambda v: trace.append(f"str:{v}")),
            (int, lambda v: trace.append(f"bits:{v}")),
        ],
        with_def_region_kind=(
            Var,
            lambda v, kind: trace.append(f"{v.name}:{kind.name}"),
        ),
        order="pre",
    )
    assert result is None
    # The comment and the names are ignored fields; the parameters are a simple def region,
    # inside which a variable's own fields are walked outside it.
    assert trace == [
        "array:2",
        "array:1",
        "x:DEF_SIMPLE",
        "bits:32",
        "array:2",
        "x:NONE",
        "bits:32",
        "y:NONE",
        "bits:16",
        "str:tag",
    ]
    # A class's callbacks take its values and nothing else.
    funcs: list[Any] = []
    ffi.structural_walk(root, (Func, funcs.append))
    assert len(funcs) == 1 and funcs[0].params[0].same_as(x)
    assert isinstance(ffi.DefRegionKind(ffi.DefRegionKind.DEF_PATTERN), int)
