"""The same Rust kernel library under the reference runtime: the cdylib records the runtime by its
standard SONAME (``libtvm_ffi.so``, which our runtime library also carries), so a process that
imported only the reference's package (``tvm_ffi``) binds it to the reference's runtime. Run in a
fresh interpreter that never imports ``ffi``: tensors from NumPy and PyTorch, errors and panics,
values, Rust-owned buffers, and none of our libraries mapped."""

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import ffi.libinfo


def _dynamic_section(path: str) -> str:
    """``readelf -d path`` (the test is skipped without readelf)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf is not installed")
    return subprocess.run([readelf, "-d", path], capture_output=True, text=True, check=True).stdout


def _needed(dynamic: str) -> list:
    """The DT_NEEDED entries of a ``readelf -d`` listing."""
    return [
        line.split("[", 1)[1].split("]", 1)[0]
        for line in dynamic.splitlines()
        if "(NEEDED)" in line
    ]


LINUX_ONLY = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="ELF libraries and /proc/self/maps"
)


@LINUX_ONLY
def test_cdylib_needs_the_runtime_by_its_standard_soname(rust_kernels_path):
    """``readelf -d``: the Rust library needs ``libtvm_ffi.so`` (our runtime's SONAME, also the
    reference's file name) and not our runtime's file name, so either runtime serves it."""
    needed = _needed(_dynamic_section(rust_kernels_path))
    assert "libtvm_ffi.so" in needed, needed
    assert not any("ffi_runtime" in n for n in needed), needed
    ours = _dynamic_section(ffi.libinfo.get_runtime_library_path())
    assert "Library soname: [libtvm_ffi.so]" in ours


SCRIPT = r"""
import gc, importlib.util, os, sys
import numpy as np
import tvm_ffi

lib, our_libdir, with_torch = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
mod = tvm_ffi.load_module(lib)


def raises(exc, fn, *args):
    try:
        fn(*args)
    except BaseException as e:
        assert type(e) is exc, (type(e), e)
        return str(e)
    raise AssertionError(f"no {exc.__name__}")


# Tensors from NumPy, written in place.
for shape in [(5,), (2, 3), (2, 3, 4), ()]:
    x = (np.arange(int(np.prod(shape)), dtype=np.float32) * 0.5).reshape(shape)
    y = np.zeros(shape, np.float32)
    assert mod.add_one(x, y) is None
    assert (y == x + 1).all(), (x, y)
msg = raises(TypeError, mod.add_one, np.zeros(3, np.float32), np.zeros(3, np.float64))
assert "the tensor holds float64 elements, not float32" in msg, msg
msg = raises(ValueError, mod.add_one, np.zeros((2, 3), np.float32), np.zeros(6, np.float32))
assert "shapes differ: [2, 3] and [6]" in msg, msg
msg = raises(TypeError, mod.add_one, np.zeros(3, np.float32), "y")
assert "Mismatched type on argument #1 when calling: `add_one(0: Tensor, 1: Tensor) -> void`" in msg
assert "Expected `Tensor` but got `str`" in msg, msg

# PyTorch tensors.
if with_torch:
    import torch

    x = torch.randn(3, 4)
    y = torch.zeros(3, 4)
    address = y.data_ptr()
    mod.add_one(x, y)
    assert torch.equal(y, x + 1) and y.data_ptr() == address
    msg = raises(TypeError, mod.add_one, x, torch.zeros(3, 4, dtype=torch.float64))
    assert "not float32" in msg, msg
    msg = raises(ValueError, mod.add_one, x, torch.zeros(3, 2, 2))
    assert "shapes differ" in msg, msg
    # Tensor::alloc inside a PyTorch call allocates through PyTorch's allocator.
    assert mod.env_allocator(x) != 0
    t = mod.alloc_tensor([2, 3], x)
    assert torch.from_dlpack(t).flatten().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]

# Errors by kind; panics; the Rust side's own argument count check (no Python signature here).
for kind, exc in [("ValueError", ValueError), ("TypeError", TypeError), ("KeyError", KeyError),
                  ("IndexError", IndexError), ("AttributeError", AttributeError),
                  ("RuntimeError", RuntimeError)]:
    msg = raises(exc, mod.fail, kind, "from rust")
    assert "from rust" in msg, msg
for i in range(10):
    msg = raises(RuntimeError, mod.panics, f"panic {i}")
    assert f"Rust panic: panic {i}" in msg, msg
    assert mod.scale(1.5, None) == 3.0
assert "Rust panic: boom" in raises(RuntimeError, mod.make_panicker("boom"))
assert mod.scale(1.5) == 3.0 and mod.scale(1.5, 3.0) == 4.5
msg = raises(TypeError, mod.scale)
assert "Mismatched number of arguments when calling: `scale(" in msg and "got 0" in msg, msg
assert mod.get_function_doc("add_one").startswith("Adds one to every element of `x`")

# A Python exception through Rust: as the reference passes one through its own C++ functions.
def callback(*args):
    raise ValueError("from the callback")

apply = tvm_ffi.get_global_func("testing.apply", allow_missing=True)
msg = raises(ValueError, mod.call_back, callback, 1)
assert "from the callback" in msg, msg
if apply is not None:
    assert raises(ValueError, apply, callback, 1) == msg
assert mod.call_back(lambda v: v * 2, 21) == 42
assert mod.catch_error(callback) == "ValueError: from the callback"

# Values.
for v in [0, -(2**63), 2**63 - 1, 1.5, True, None, "short", "a string over seven bytes",
          "h\u00e9llo \u2713", b"\x00\xff", b"bytes over seven"]:
    r = mod.echo(v)
    assert r == v and isinstance(r, type(v)), (v, r)  # long str: tvm_ffi.String, a str
assert mod.echo_string("a string over seven bytes") == "a string over seven bytes"
assert mod.sum_list([1, 2, 3]) == 6 and list(mod.range_list(3)) == [0, 1, 2]
assert mod.map_get({"a": 1, "b": "x"}, "b") == "x" and mod.map_get({"a": 1}, "z") is None
assert mod.add_i64(2**63 - 1, -1) == 2**63 - 2
assert mod.make_adder(3)(4) == 7
obj = object()
before = sys.getrefcount(obj)
assert mod.echo(obj) is obj
assert sys.getrefcount(obj) == before

# Rust-owned buffers: freed once when the last holder goes.
live, freed = mod.live_buffers()
t = mod.make_tensor(4)
view = np.from_dlpack(t)
assert view.tolist() == [0.0, 1.0, 2.0, 3.0]
assert tuple(mod.live_buffers()) == (live + 1, freed)
del t, view
gc.collect()
assert tuple(mod.live_buffers()) == (live, freed + 1)

# One runtime, the reference's; nothing of ours loaded.
maps = [line.split()[-1] for line in open("/proc/self/maps") if line.rstrip().endswith(".so")]
runtimes = {os.path.realpath(p) for p in maps if os.path.basename(p) == "libtvm_ffi.so"}
reference_lib = os.path.join(os.path.dirname(tvm_ffi.__file__), "lib", "libtvm_ffi.so")
assert runtimes == {os.path.realpath(reference_lib)}, runtimes
ours = os.path.realpath(our_libdir)
assert not [p for p in maps if os.path.realpath(p).startswith(ours + os.sep)], maps
assert not [p for p in maps if "ffi_runtime" in os.path.basename(p)], maps
assert "ffi" not in sys.modules
print("rust-on-reference-ok")
"""


@LINUX_ONLY
def test_rust_library_on_the_reference_runtime(rust_kernels_path):
    """The same cdylib loaded by ``tvm_ffi.load_module`` in a process that imported only the
    reference's package: it binds to the reference's runtime (our runtime library is never
    mapped) and behaves as under ours."""
    if importlib.util.find_spec("tvm_ffi") is None:
        pytest.skip("apache-tvm-ffi is not installed")
    with_torch = importlib.util.find_spec("torch") is not None
    our_libdir = os.path.dirname(ffi.libinfo.get_runtime_library_path())
    proc = subprocess.run(
        [sys.executable, "-", rust_kernels_path, our_libdir, "1" if with_torch else "0"],
        input=textwrap.dedent(SCRIPT),
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, RUST_BACKTRACE="0"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "rust-on-reference-ok"
