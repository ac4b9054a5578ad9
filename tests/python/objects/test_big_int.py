"""Integers beyond 64 bits: Python ints cross as BigInt objects and come back as ints, containers
and maps hold them by value, the runtime's globals compare, hash, print and serialize them, and
BigInt arithmetic in C++ (kernels/big_int_kernels.cc, built with our headers and with the
reference's) agrees with Python's on many values around every word boundary."""

import os
import pickle
import random

import pytest
from support.build import build_with_both_headers, built_copy
from support.paths import TESTS_DIR

import ffi

SRC = os.path.join(TESTS_DIR, "kernels", "big_int_kernels.cc")


COPIES = ["ours", "reference"]


@pytest.fixture(scope="module", params=COPIES)
def big(request, tmp_path_factory):
    return ffi.load_module(built_copy(request.param, COPIES, SRC, "UNUSED", tmp_path_factory))


def samples(n=60, seed=7):
    """Values at and around the word boundaries, and random ones of up to five words."""
    edges = [0, 1, -1, 2, 3, 7, 2**31, 2**32 - 1, 2**62, 2**63 - 1, -(2**63)]
    for bits in (63, 64, 65, 127, 128, 129, 191, 192, 256, 320):
        edges += [2**bits, 2**bits - 1, 2**bits + 1, -(2**bits), -(2**bits) + 1, -(2**bits) - 1]
    rng = random.Random(seed)
    rand = [rng.choice((-1, 1)) * rng.getrandbits(rng.randint(1, 320)) for _ in range(n)]
    return edges + rand


def test_python_ints_round_trip_through_calls_and_containers():
    echo = ffi.get_global_func("ffi.Array")
    for v in samples():
        assert ffi.convert(v) == v and type(ffi.convert(v)) is int
        assert echo(v)[0] == v
        assert ffi.Array([v, v])[1] == v and ffi.List([v])[0] == v
        assert list(ffi.Array([v])) == [v]
    # An int subclass beyond 64 bits crosses by value too.
    import enum

    class Huge(enum.IntEnum):
        BIG = 2**70

    assert ffi.convert(Huge.BIG) == 2**70


def test_maps_find_big_keys_by_value():
    m = ffi.Map({2**70: "a", -(2**80): "b", 5: "c"})
    assert m[2**70] == "a" and m[-(2**80)] == "b" and m[5] == "c"
    assert 2**70 in m and 2**71 not in m
    d = ffi.Dict()
    d[2**100] = 1
    d[2**100] = 2  # the same key: replaced, not added
    assert len(d) == 1 and d[2**100] == 2


def test_runtime_globals_compare_hash_print_and_serialize():
    g = ffi.get_global_func
    a, b = 2**100, 2**100 + 1
    assert ffi.structural_equal(a, a) and not ffi.structural_equal(a, b)
    assert ffi.structural_hash(ffi.Array([a])) == ffi.structural_hash(ffi.Array([2**100]))
    assert g("ffi.RecursiveEq")(a, 2**100) and g("ffi.RecursiveLt")(5, a)
    assert g("ffi.RecursiveLt")(-a, 5) and g("ffi.RecursiveGt")(b, a)
    assert g("ffi.RecursiveHash")(a) == g("ffi.RecursiveHash")(2**100)
    assert g("ffi.ReprPrint")(-a) == str(-a) and repr(ffi.Array([a])) == f"({a},)"
    assert ffi.Array([a]) == ffi.Array([2**100]) and hash(ffi.Array([a])) == hash(ffi.Array([a]))
    text = ffi.serialization.to_json_graph_str(ffi.Array([a, -b, 3]))
    assert '{"type":"ffi.BigInt","data":"1267650600228229401496703205376"}' in text
    assert list(ffi.serialization.from_json_graph_str(text)) == [a, -b, 3]
    assert list(pickle.loads(pickle.dumps(ffi.Array([a, -b])))) == [a, -b]
    assert g("ffi.json.Stringify")(ffi.Array([a]), None) == f"[{a}]"
    bad = '{"root_index":0,"nodes":[{"type":"ffi.BigInt","data":"12x"}]}'
    with pytest.raises(ValueError, match="not a decimal integer"):
        ffi.serialization.from_json_graph_str(bad)


OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "floormod": lambda a, b: a % b,
    "truncdiv": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "truncmod": lambda a, b: a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)),
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "min": min,
    "max": max,
    "iadd": lambda a, b: a + b,
    "imul": lambda a, b: a * b,
}
OPS["div"], OPS["mod"] = OPS["truncdiv"], OPS["truncmod"]


@pytest.mark.parametrize("op", sorted(OPS))
def test_binary_operations_agree_with_python(big, op):
    values = samples(30, seed=hash(op) % 1000)
    for a in values:
        for b in values:
            if b == 0 and op in ("div", "mod", "truncdiv", "truncmod", "floordiv", "floormod"):
                continue
            assert big.binary(op, a, b) == OPS[op](a, b), (op, a, b)


def test_division_by_zero_and_shifts(big):
    for op in ("div", "mod", "floordiv", "floormod"):
        with pytest.raises(ZeroDivisionError):
            big.binary(op, 2**100, 0)
        with pytest.raises(ZeroDivisionError):
            big.binary(op, 5, 0)
    for a in samples(20):
        for k in (0, 1, 13, 63, 64, 65, 127, 200):
            assert big.binary("shl", a, k) == a << k, (a, k)
            assert big.binary("shr", a, k) == a >> k, (a, k)
        assert big.binary("shr", a, 2**80) == (-1 if a < 0 else 0)
    with pytest.raises(ValueError):
        big.binary("shl", 1, -1)
    with pytest.raises(ValueError):
        big.binary("shr", 2**70, -(2**70))


def test_mixed_operands_comparisons_and_unary(big):
    for a in samples(25):
        for b in (0, 1, -1, 7, -(2**63), 2**63 - 1):
            assert big.mixed("add", a, b, True) == a + b and big.mixed("sub", a, b, False) == b - a
            assert big.mixed("mul", a, b, False) == a * b
            assert big.mixed("and", a, b, True) == a & b
            if a != 0:
                assert big.mixed("floordiv", a, b, False) == b // a
        for b in samples(25, seed=3):
            bits = big.compare(a, b)
            expect = [a == b, a != b, a < b, a <= b, a > b, a >= b]
            assert [bool(bits >> i & 1) for i in range(6)] == expect, (a, b)
        assert big.unary("neg", a) == -a and big.unary("pos", a) == a
        assert big.unary("invert", a) == ~a
        assert big.unary("preinc", a) == a + 1 and big.unary("predec", a) == a - 1
        assert big.unary("postinc", a) == 1
        assert big.truth(a) == (a != 0)


def test_conversions(big):
    for a in samples(40):
        assert big.to_text(a) == str(a)
        assert big.from_text(str(a)) == a
        assert big.echo(a) == a
        assert big.as_int64(a) == (a if -(2**63) <= a < 2**63 else None)
        assert big.as_uint64_low(a) == (a & 0xFFFFFFFF if 0 <= a < 2**64 else None)
        if abs(a) < 2**1000:
            assert big.to_double(a) == float(a), a  # nearest, ties to even, as Python rounds
    assert big.from_text("+42") == 42 and big.from_text("x") is None and big.from_text("") is None
    assert big.from_uint64_max() == 2**64 - 1
    for d in (0.0, -1.5, 2.0**63, -(2.0**63), 2.0**64 + 2**12, -1e30, 1.7e308, 123456.9):
        assert big.from_double(d) == int(d), d
    with pytest.raises(ValueError):
        big.from_double(float("nan"))
    with pytest.raises(OverflowError):
        big.from_double(float("inf"))
    with pytest.raises(OverflowError):
        big.to_int64(2**64)
    assert big.to_int64(-(2**63)) == -(2**63)
    with pytest.raises(OverflowError):
        big.to_double(2**1100)
    # Ties round to even: 2^53 + 1 is halfway between two doubles.
    assert big.to_double(2**53 + 1) == float(2**53 + 1) == 2.0**53
    assert big.to_double(2**80 + 2**27 + 1) == float(2**80 + 2**27 + 1)


def test_hash_is_the_same_whichever_headers_built_it(tmp_path_factory):
    libs = build_with_both_headers(
        SRC, ["ours", "reference"], "UNUSED", tmp_path_factory.mktemp("h")
    )
    if "reference" not in libs:
        pytest.skip("the reference package is not installed")
    ours, ref = ffi.load_module(libs["ours"]), ffi.load_module(libs["reference"])
    for a in samples(30):
        assert ours.hash_of(a) == ref.hash_of(a), a


def test_int_parameters_refuse_big_values(big):
    with pytest.raises(TypeError, match="BigInt"):
        big.mixed("add", 1, 2**64, True)
