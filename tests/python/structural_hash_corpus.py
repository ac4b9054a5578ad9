"""A corpus of values and their structural hashes (and content hashes, ffi.RecursiveHash),
computed by whichever package is named:

    python structural_hash_corpus.py tvm_ffi|ffi OBJECTS_LIBRARY

imports that package first (so that its runtime serves the process), builds every value of the
corpus with it (the object types from OBJECTS_LIBRARY, kernels/structural_objects.cc built with
the reference's headers) and prints one JSON object: name -> structural hash and
"recursive:" + name -> RecursiveHash (a string: the hash as an unsigned decimal, or
`TypeName: message` when hashing raised). test_structural_hash_values.py
compares the two packages' results.
"""

from __future__ import annotations

import importlib
import json
import math
import random
import sys

import numpy as np


class Mapped:
    """A value hashed with map_free_vars=True."""

    def __init__(self, value):
        self.value = value


def fixed_values(pkg, T) -> dict:
    """Named values of every kind (key: name; value: (value, map_free_vars))."""
    Var, Func, Binding, Meta, Plain = (T[n] for n in ("Var", "Func", "Binding", "Meta", "Plain"))
    x, y = Var("x", 32), Var("y", 16)
    shared = Binding(7)
    values = {
        "none": None,
        "true": True,
        "false": False,
        "int0": 0,
        "int1": 1,
        "int-1": -1,
        "int-big": 2**62 + 12345,
        "int-min": -(2**63),
        "float0": 0.0,
        "float-0": -0.0,
        "float1.5": 1.5,
        "float-nan": math.nan,
        "float-neg-nan": -math.nan,
        "float-inf": math.inf,
        "float-neg-inf": -math.inf,
        "str-empty": "",
        "str-1": "a",
        "str-7": "abcdefg",
        "str-8": "abcdefgh",
        "str-long": "structural hash " * 5,
        "str-unicode": "héllo wörld ✓",
        "bytes-empty": b"",
        "bytes-2": b"ab",
        "bytes-8": b"12345678",
        "bytes-long": bytes(range(40)),
        "dtype-f32": pkg.dtype("float32"),
        "dtype-i8x4": pkg.dtype("int8x4"),
        "dtype-bool": pkg.dtype("bool"),
        "device-cpu": pkg.Device("cpu", 0),
        "device-cuda1": pkg.Device("cuda", 1),
        "bigint-2^100": 2**100,
        "bigint-neg": -(2**70) - 3,
        "array-empty": pkg.Array([]),
        "array-ints": pkg.Array([1, 2, 3]),
        "array-nested": pkg.Array([pkg.Array([1]), pkg.Array([2, "x"]), None, 2.5]),
        "list-ints": pkg.List([1, 2, 3]),
        "map-empty": pkg.Map({}),
        "map-str": pkg.Map({"a": 1, "b": 2, "c": "three"}),
        "map-str-other-order": pkg.Map({"c": "three", "b": 2, "a": 1}),
        "map-int-keys": pkg.Map({1: "x", 2: "y", 100: pkg.Array([1])}),
        "map-mixed-keys": pkg.Map({"k": 1, 7: 2, 1.5: 3, None: 4}),
        "dict-str": pkg.Dict({"a": 1, "b": pkg.List([2])}),
        "shape": pkg.Shape((2, 3, 4)),
        "shape-empty": pkg.Shape(()),
        "tensor-f32": pkg.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3)),
        "tensor-i64": pkg.from_dlpack(np.array([[1, -2], [3, 4]], dtype="int64")),
        "var-mapped": Mapped(x),
        "func": Func(pkg.Array([x]), pkg.Array([1, x]), "c"),
        "func-mapped": Mapped(Func(pkg.Array([x]), pkg.Array([1, x, y]), "c")),
        "func-two-params": Func(pkg.Array([x, y]), pkg.Array([y, x]), ""),
        "func-nested": Func(
            pkg.Array([]), pkg.Array([Func(pkg.Array([y]), pkg.Array([y]), "")]), ""
        ),
        "binding": Binding(3),
        "dag-shared": pkg.Array([shared, shared, Binding(7)]),
        "meta": Meta("tag"),
        "meta-array": pkg.Array([Meta("a"), Meta("a")]),
        "plain": Plain(1),
        "map-object-keys-seen": pkg.Array([shared, pkg.Map({shared: 1, "s": 2})]),
        "map-object-keys-unseen": pkg.Map({Binding(9): 1, "s": 2}),
        "map-var-values": Mapped(pkg.Map({"x": x, "y": y})),
    }
    out = {}
    for name, value in values.items():
        mapped = isinstance(value, Mapped)
        value = value.value if mapped else value
        out[name] = (value, mapped)
        if name.startswith("tensor"):
            out[name + "-skip-content"] = (value, "skip")
    return out


def generated_values(pkg, T, count: int, seed: int) -> dict:
    """`count` random nested values (the same for a given seed in either package)."""
    rng = random.Random(seed)
    Binding, Meta = T["Binding"], T["Meta"]

    def leaf():
        kind = rng.randrange(8)
        if kind == 0:
            return rng.randrange(-(2**40), 2**40)
        if kind == 1:
            return rng.choice([0.0, -0.0, 1.25, -7.5, 1e300, math.inf])
        if kind == 2:
            return "".join(rng.choice("abcxyz_ 0é") for _ in range(rng.randrange(0, 20)))
        if kind == 3:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
        if kind == 4:
            return rng.choice([None, True, False])
        if kind == 5:
            return Binding(rng.randrange(5))
        if kind == 6:
            return Meta(rng.choice(["m", "n"]))
        return pkg.dtype(rng.choice(["float16", "int32", "uint8x2"]))

    def value(depth):
        if depth == 0 or rng.random() < 0.3:
            return leaf()
        kind = rng.randrange(4)
        n = rng.randrange(0, 5)
        if kind == 0:
            return pkg.Array([value(depth - 1) for _ in range(n)])
        if kind == 1:
            return pkg.List([value(depth - 1) for _ in range(n)])
        keys = [rng.choice([rng.randrange(100), f"k{rng.randrange(100)}"]) for _ in range(n)]
        items = {k: value(depth - 1) for k in keys}
        return pkg.Map(items) if kind == 2 else pkg.Dict(items)

    return {f"generated-{i}": (value(4), False) for i in range(count)}


def main() -> None:
    pkg = importlib.import_module(sys.argv[1])
    pkg.load_module(sys.argv[2])
    T = {
        n: pkg.register_object(f"seref.{n}")(type(n, (pkg.Object,), {}))
        for n in ("Var", "Func", "Binding", "Meta", "Plain")
    }
    values = {**fixed_values(pkg, T), **generated_values(pkg, T, count=200, seed=36)}
    recursive_hash = pkg.get_global_func("ffi.RecursiveHash")
    results = {}
    for name, (value, mode) in values.items():
        options = {"map_free_vars": mode is True, "skip_tensor_content": mode == "skip"}
        results[name] = outcome(pkg.structural_hash, value, **options)
        if mode is False:
            results["recursive:" + name] = outcome(recursive_hash, value)
    json.dump(results, sys.stdout, indent=1, sort_keys=True)


def outcome(hash_fn, *args, **kwargs) -> str:
    """The hash `hash_fn(*args, **kwargs)` gives, as an unsigned decimal, or `TypeName: message`."""
    try:
        return str(hash_fn(*args, **kwargs) & (2**64 - 1))
    except Exception as err:  # noqa: BLE001 - the error is the result
        return f"{type(err).__name__}: {err}"


if __name__ == "__main__":
    main()
