"""Values with shared parts (DAGs) cost what their distinct parts cost, in every operation that
walks them: structural equality, hashing and the first mismatch, content equality and hashing
(ffi.RecursiveEq / RecursiveHash), and Python's `==` and `hash()` on containers and dataclasses.

A 40-level DAG (each level holds the previous one twice) has 41 distinct nodes and 2^40 paths: a
walk that does not remember shared parts never finishes. Each check runs in a child process with a
generous limit (a minute), so a walk that follows every path fails the test instead of hanging the
suite; no time is measured.
"""

import subprocess
import sys
import textwrap

import pytest

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

SCRIPT = textwrap.dedent(
    """
    import ffi
    from ffi.dataclasses import py_class

    @py_class("test_shared.Node", eq=True, unsafe_hash=True)
    class Node(ffi.Object):
        left: object
        right: object

    @py_class("test_shared.Bind", structural_eq="dag", eq=True, unsafe_hash=True)
    class Bind(ffi.Object):
        value: object

    def array_dag(levels, leaf):
        node = ffi.Array([leaf, "leaf"])
        for _ in range(levels):
            node = ffi.Array([node, node])
        return node

    def map_dag(levels):
        node = ffi.Map({"leaf": 1})
        for i in range(levels):
            node = ffi.Map({"a": node, "b": node, "i": i})
        return node

    def node_dag(levels, cls):
        node = cls(1, 2) if cls is Node else cls(1)
        for _ in range(levels):
            node = Node(node, node)
        return node

    re = ffi.get_global_func("ffi.RecursiveEq")
    rh = ffi.get_global_func("ffi.RecursiveHash")
    for build in (lambda: array_dag(40, 1), lambda: map_dag(40), lambda: node_dag(40, Node),
                  lambda: node_dag(40, Bind)):
        a, b, c = build(), build(), build()
        assert ffi.structural_equal(a, b)
        assert ffi.structural_hash(a) == ffi.structural_hash(b)
        assert ffi.get_first_structural_mismatch(a, b) is None
        assert re(a, b) and rh(a) == rh(b)
        assert a == b and hash(a) == hash(b)
        # A different leaf, shared all the way up, is found.
    x, y = array_dag(40, 1), array_dag(40, 2)
    assert not ffi.structural_equal(x, y) and not re(x, y) and x != y
    assert ffi.get_first_structural_mismatch(x, y) is not None
    assert ffi.structural_hash(x) != ffi.structural_hash(y) and hash(x) != hash(y)
    print("ok")
    """
)


def test_shared_values_cost_their_distinct_parts():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
