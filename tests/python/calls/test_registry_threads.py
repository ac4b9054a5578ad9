"""The global function registry under threads: a lookup is one step, whatever another thread
registers or removes meanwhile."""

import pytest
from support.threads import meanwhile, run_in_threads

import ffi

NAME = "ffi_registry_threads.f"


@pytest.fixture
def registered_name():
    """NAME, removed again after the test."""
    yield NAME
    ffi.remove_global_func(NAME)


def test_lookups_while_another_thread_registers_and_removes(registered_name):
    # get_global_func reads a function and then its metadata: a removal in between used to raise
    # KeyError from the second read. A tiny switch interval makes threads interleave inside it.
    def churn(i):
        ffi.register_global_func(NAME, lambda x, i=i: x + i, override=True)
        ffi.remove_global_func(NAME)

    found = []

    def look(_):
        seen = 0
        for _ in range(100000):
            f = ffi.get_global_func(NAME, allow_missing=True)
            if f is not None:
                assert f(0) >= 0
                seen += 1
        found.append(seen)

    with meanwhile(churn, switch_interval=1e-6):
        run_in_threads(look, 2)
    assert ffi.get_global_func(NAME, allow_missing=True) is None
    assert len(found) == 2


def test_lookup_of_a_function_replaced_meanwhile_is_one_of_them(registered_name):
    # Replacing (override=True) while others look: each lookup returns one registered function,
    # never an error, never None.
    results = set()
    ffi.register_global_func(NAME, lambda: 0, override=True)

    def churn(i):
        ffi.register_global_func(NAME, lambda i=i % 3: i, override=True)

    def look(_):
        for _ in range(100000):
            results.add(ffi.get_global_func(NAME)())

    with meanwhile(churn, switch_interval=1e-6):
        run_in_threads(look, 2)
    assert results <= {0, 1, 2}
