"""Map and Dict built and read by a library compiled against this project's headers, loaded by the
reference runtime (the apache-tvm-ffi Python package, in a fresh interpreter of its own): its
tables, and the reference's, cross in both directions and are read inline by the other's code."""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest
from support.build import build_kernel
from support.paths import TESTS_DIR


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    try:
        importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    src = os.path.join(TESTS_DIR, "kernels", "map_kernels.cc")
    return build_kernel(src, str(tmp_path_factory.mktemp("map")))


def test_our_tables_in_the_reference_runtime(lib):
    code = f"""
        import tvm_ffi
        mod = tvm_ffi.load_module({lib!r})
        # Our tables, small and dense, read by the reference's package.
        for n in (0, 3, 12, 100):
            m = mod.workspace_sizes(n)
            assert isinstance(m, tvm_ffi.Map) and len(m) == n
            assert list(m.keys()) == [f"ws{{i}}" for i in range(n)]
            assert all(m[f"ws{{i}}"] == i * 1024 for i in range(n))
            assert "absent" not in m
            assert mod.total(m, None) == sum(i * 1024 for i in range(n))
        # The reference's tables read by our code, with conversions of the elements.
        big = tvm_ffi.Map({{f"key{{i}}": i for i in range(30)}})
        assert mod.total(big, {{3: 4, 5: 6}}) == sum(range(30)) + 12 + 30
        assert mod.keys(tvm_ffi.Map({{"b": 1, "a": 2, "c": 3}})) == "b,a,c,"
        assert mod.lookup(big, "key29") == 29
        try:
            mod.lookup(big, "absent")
            raise AssertionError("no KeyError")
        except KeyError as e:
            assert "key is not in Map" in str(e)
        # A reference Dict grown in place by our code, through small and dense forms.
        d = tvm_ffi.Dict({{"x": 1}})
        for i in range(40):
            mod.dict_put(d, f"k{{i}}", i)
        assert len(d) == 41 and d["k39"] == 39 and d["x"] == 1
        assert list(d.keys())[:3] == ["x", "k0", "k1"]
        print("ok")
    """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
