"""Values nested deeper than a thread's stack can follow: releasing them takes bounded stack, and
every runtime function that recurses through a value (copying, comparing, hashing, printing,
JSON, JSON graphs, structural visits) raises ``RecursionError`` instead of crashing, leaving the
value intact. Each of these crashed the process before."""

import copy
import json
import pickle
import threading

import pytest

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

# Deeper than any build's frames fit in the 1 MiB thread stack the walkers run on below (768 KiB
# usable after the runtime's reserve: under 8 bytes a level).
DEPTH = 100_000


def chain(depth=DEPTH, make=ffi.Array):
    value = make([])
    for _ in range(depth):
        value = make([value])
    return value


def on_small_stack(fn):
    """Runs `fn` on a thread with a 1 MiB stack; returns what it returned or raised."""
    outcome = []

    def run():
        try:
            outcome.append(fn())
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            outcome.append(e)

    old = threading.stack_size(1 << 20)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old)
    assert len(outcome) == 1
    return outcome[0]


@pytest.mark.parametrize("make", [ffi.Array, ffi.List], ids=["Array", "List"])
def test_releasing_a_deep_chain_does_not_overflow_the_stack(make):
    value = chain(300_000, make)
    del value  # the runtime's deleters run 300,000 levels deep
    maps = ffi.Map({})
    for _ in range(100_000):
        maps = ffi.Map({"k": maps})
    dicts = ffi.Dict({})
    for _ in range(100_000):
        dicts = ffi.Dict({"k": dicts})
    del maps, dicts


def test_releasing_a_deep_chain_on_a_small_thread_stack():
    value = chain()
    holder = [value]
    del value

    def release():
        holder.clear()
        return "released"

    assert on_small_stack(release) == "released"


global_fn = ffi.get_global_func


WALKERS = {
    "deep copy": lambda v: global_fn("ffi.DeepCopy")(v),
    "copy.deepcopy": copy.deepcopy,
    "structural_hash": ffi.structural_hash,
    "structural_equal": lambda v: ffi.structural_equal(v, chain()),
    "first mismatch": lambda v: ffi.get_first_structural_mismatch(v, chain()),
    "recursive eq": lambda v: global_fn("ffi.RecursiveEq")(v, chain()),
    "recursive lt": lambda v: global_fn("ffi.RecursiveLt")(v, chain()),
    "recursive hash": lambda v: global_fn("ffi.RecursiveHash")(v),
    "repr print": lambda v: global_fn("ffi.ReprPrint")(v),
    "json stringify": lambda v: global_fn("ffi.json.Stringify")(v, None),
    "json graph": lambda v: ffi.serialization.to_json_graph_str(v),
    "pickle": pickle.dumps,
    "structural_walk": lambda v: ffi.structural_walk(v),
    "structural_visit": lambda v: ffi.structural_visit(v),
    "structural_map": lambda v: ffi.structural_map(v),
}


@pytest.mark.parametrize("name", sorted(WALKERS))
def test_walkers_refuse_nesting_deeper_than_the_stack(name):
    value = chain()
    error = on_small_stack(lambda: WALKERS[name](value))
    assert isinstance(error, RecursionError), repr(error)
    assert "nests deeper than the stack allows" in str(error)
    # Intact: a shallow part of the same value still goes through the same walker.
    shallow = value
    for _ in range(DEPTH - 50):
        shallow = shallow[0]
    WALKERS[name](shallow)
    assert len(value) == 1


def test_json_parse_refuses_deep_text():
    parse = global_fn("ffi.json.Parse")
    error = on_small_stack(lambda: parse("[" * DEPTH + "]" * DEPTH))
    assert isinstance(error, RecursionError), repr(error)
    error = on_small_stack(lambda: parse('{"a":' * DEPTH + "1" + "}" * DEPTH))
    assert isinstance(error, RecursionError), repr(error)
    assert len(parse("[" * 100 + "]" * 100)) == 1


def test_json_graph_reading_refuses_a_deep_graph():
    nodes = [{"type": "ffi.Array", "data": []}]
    nodes += [{"type": "ffi.Array", "data": [i]} for i in range(DEPTH)]
    text = json.dumps({"root_index": DEPTH, "nodes": nodes})
    error = on_small_stack(lambda: ffi.serialization.from_json_graph_str(text))
    assert isinstance(error, RecursionError), repr(error)
    assert "FromJSONGraph" in str(error)
