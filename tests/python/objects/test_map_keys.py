"""Keys of ffi.Map and ffi.Dict from Python behave as a dict's keys: what Python refuses as a key
is refused alike (TypeError), and every key Python accepts is found again, by an equal key.

Strings, numbers, None, bytes and FFI objects are FFI values compared as such. A key that would
convert to a new FFI object each time (a tuple, a frozenset, a callable, a tensor, any other
Python object) is held as itself (an OpaquePyObject) and found by Python's hash and ==, so that
the same key, or an equal one, finds it again; reading the keys gives the objects back.
"""

import threading

import pytest

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


class Point:
    """A hashable Python key with value equality."""

    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x

    def __hash__(self):
        return hash(("Point", self.x))


class BadHash:
    def __hash__(self):
        raise RuntimeError("no hash for you")


KEYS = [
    pytest.param(lambda: (1, 2), id="tuple"),
    pytest.param(lambda: (1, ("a", None)), id="nested-tuple"),
    pytest.param(lambda: frozenset({1, 2}), id="frozenset"),
    pytest.param(lambda: Point(3), id="value-object"),
]


@pytest.mark.parametrize("make", KEYS)
@pytest.mark.parametrize("container", [ffi.Map, ffi.Dict])
def test_equal_keys_find_each_other(container, make):
    m = container({make(): "v", "s": 1})
    assert m[make()] == "v" and make() in m and m.get(make()) == "v"
    assert [k for k in m if k != "s"] == [make()]  # the key itself comes back
    assert container({make(): "v", "s": 1}) == m  # entries match by key


@pytest.mark.parametrize("container", [ffi.Map, ffi.Dict])
def test_identity_keys_are_found_by_the_same_object(container):
    o, f = object(), lambda: 1
    m = container({o: 1, f: 2})
    assert m[o] == 1 and m[f] == 2
    assert object() not in m and (lambda: 1) not in m
    assert set(m) == {o, f}


def test_dict_keys_set_get_and_delete():
    d = ffi.Dict()
    d[(1, 2)] = "a"
    d[(1, 2)] = "b"  # the same key: replaced
    d[Point(1)] = "p"
    assert len(d) == 2 and d[(1, 2)] == "b" and d[Point(1)] == "p"
    del d[(1, 2)]
    assert (1, 2) not in d and len(d) == 1
    assert d.pop(Point(1)) == "p" and len(d) == 0
    assert d.setdefault((3,), "x") == "x" and d[(3,)] == "x"


@pytest.mark.parametrize("key", [[1], {"a": 1}, {1}, bytearray(b"x")], ids=repr)
def test_unhashable_keys_are_refused_as_a_dict_refuses_them(key):
    d = ffi.Dict({"kept": 1})
    name = type(key).__name__
    with pytest.raises(TypeError, match=f"unhashable type: '{name}'"):
        d[key] = 1
    with pytest.raises(TypeError, match="unhashable"):
        d[key]
    with pytest.raises(TypeError, match="unhashable"):
        key in d  # noqa: B015
    with pytest.raises(TypeError, match="unhashable"):
        ffi.Map({"a": 1}).get(key)
    assert dict(d) == {"kept": 1}  # left intact


class StaleningHash:
    """Unhashable, and its __hash__ changes its own class first: CPython's type cache then misses
    on the next attribute lookup of the class, and a miss clears a pending exception."""

    def __hash__(self):
        type(self).hashed = getattr(type(self), "hashed", 0) + 1
        raise TypeError("unhashable type: 'StaleningHash'")


def test_an_unhashable_key_stays_refused_when_the_type_cache_misses():
    d = ffi.Dict({"kept": 1})
    for lookup in (lambda k: d[k], lambda k: k in d, lambda k: ffi.Map({"a": 1}).get(k)):
        with pytest.raises(TypeError, match="unhashable type: 'StaleningHash'"):
            lookup(StaleningHash())
    assert dict(d) == {"kept": 1}


def test_a_failing_hash_propagates_and_leaves_the_map_intact():
    d = ffi.Dict({"kept": 1})
    with pytest.raises(RuntimeError, match="no hash for you"):
        d[BadHash()] = 1
    assert dict(d) == {"kept": 1}


def test_held_keys_are_found_from_other_threads():
    m = ffi.Map({(i, "k"): i for i in range(50)})
    found = []

    def look():
        found.append(all(m[(i, "k")] == i for i in range(50)))

    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == [True] * 4


def test_plain_keys_are_ffi_values():
    # Strings, numbers and FFI objects are FFI values: C++ sees them as such.
    arr = ffi.Array([1])
    m = ffi.Map({"s": 1, 2: 2, 2.5: 3, None: 4, b"b": 5, arr: 6})
    assert m["s"] == 1 and m[2] == 2 and m[2.5] == 3 and m[None] == 4 and m[b"b"] == 5
    assert m[arr] == 6 and ffi.Array([1]) not in m  # an FFI object is its own key
