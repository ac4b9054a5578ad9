"""The global function registry under threads: a lookup is one step, whatever another thread
registers or removes meanwhile."""

import sys
import threading

import ffi

NAME = "ffi_registry_threads.f"


def test_lookups_while_another_thread_registers_and_removes():
    # get_global_func reads a function and then its metadata: a removal in between used to raise
    # KeyError from the second read. A tiny switch interval makes threads interleave inside it.
    stop = threading.Event()
    errors, found = [], []

    def churn():
        i = 0
        while not stop.is_set():
            ffi.register_global_func(NAME, lambda x, i=i: x + i, override=True)
            ffi.remove_global_func(NAME)
            i += 1

    def look():
        seen = 0
        try:
            for _ in range(100000):
                f = ffi.get_global_func(NAME, allow_missing=True)
                if f is not None:
                    assert f(0) >= 0
                    seen += 1
        except Exception as e:  # noqa: BLE001 - reported below, with its type
            errors.append(e)
        found.append(seen)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=look) for _ in range(2)]
        churner = threading.Thread(target=churn)
        churner.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        churner.join()
    finally:
        sys.setswitchinterval(interval)
        ffi.remove_global_func(NAME)
    assert errors == []
    assert ffi.get_global_func(NAME, allow_missing=True) is None
    assert len(found) == 2


def test_lookup_of_a_function_replaced_meanwhile_is_one_of_them():
    # Replacing (override=True) while others look: each lookup returns one registered function,
    # never an error, never None.
    stop = threading.Event()
    results, errors = set(), []
    ffi.register_global_func(NAME, lambda: 0, override=True)

    def churn():
        i = 0
        while not stop.is_set():
            ffi.register_global_func(NAME, lambda i=i % 3: i, override=True)
            i += 1

    def look():
        try:
            for _ in range(100000):
                results.add(ffi.get_global_func(NAME)())
        except Exception as e:  # noqa: BLE001 - reported below, with its type
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=look) for _ in range(2)]
        churner = threading.Thread(target=churn)
        churner.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        churner.join()
    finally:
        sys.setswitchinterval(interval)
        ffi.remove_global_func(NAME)
    assert errors == []
    assert results <= {0, 1, 2}
