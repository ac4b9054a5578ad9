"""Builds that use nothing but `python -m ffi.config`: kernels from the headers alone, C and C++
hosts linked to the runtime, and binary interop with the reference package both ways."""

import importlib.metadata
import os
import shlex
import subprocess
import sys
import textwrap

import pytest
from support.paths import ROOT

# Tools, headers and examples: not run again on other interpreters (run_all.sh interpreters).
pytestmark = pytest.mark.tooling

HOSTS = os.path.join(ROOT, "tests", "python", "hosts")


def _config(*flags):
    out = subprocess.run(
        [sys.executable, "-m", "ffi.config", *flags], capture_output=True, text=True, check=True
    )
    return shlex.split(out.stdout)


def _run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def _build(cmd):
    out = _run(cmd)
    assert out.returncode == 0, f"{' '.join(cmd)}\n{out.stderr}"


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("config_builds")


@pytest.fixture(scope="module")
def our_kernel(build_dir):
    """The test kernel library, compiled with `--cflags` only (no link flags)."""
    lib = str(build_dir / "test_kernels.so")
    src = os.path.join(ROOT, "tests", "cpp", "kernels", "test_kernels.cc")
    _build(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", *_config("--cflags"), src, "-o", lib])
    return lib


@pytest.fixture(scope="module")
def cpp_host(build_dir):
    exe = str(build_dir / "cpp_host")
    flags = _config("--cflags", "--ldflags", "--libs")
    _build(["g++", "-std=c++17", os.path.join(HOSTS, "cpp_host.cc"), "-o", exe, *flags])
    return exe


def test_c_kernel_and_c_loader(build_dir):
    example = os.path.join(ROOT, "examples", "stable_c_abi")
    kernel = str(build_dir / "add_one_c.so")
    loader = str(build_dir / "load_and_call")
    cflags = _config("--cflags")
    _build(["gcc", "-std=c99", "-shared", "-fPIC", *cflags, f"{example}/add_one_c.c", "-o", kernel])
    _build(
        ["gcc", "-std=c99", *cflags, f"{example}/load_and_call.c", "-o", loader]
        + _config("--ldflags", "--libs")
    )
    out = _run([loader, kernel], check=True)
    assert out.stdout.split() == ["2", "3", "4", "5", "6"]


def test_cpp_host_calls_our_kernel(cpp_host, our_kernel):
    assert _run([cpp_host, our_kernel, "add_int", "40", "2"]).stdout == "42\n"
    out = _run([cpp_host, our_kernel, "missing_function", "1", "2"])
    assert out.returncode == 1 and "no function missing_function" in out.stderr


def test_cpp_host_reports_missing_library(cpp_host, build_dir):
    out = _run([cpp_host, str(build_dir / "nope.so"), "f", "1", "2"])
    assert out.returncode == 3
    assert out.stdout.startswith("RuntimeError: Cannot load module: file")


def _reference_package_dir():
    # Located through its installed files, never imported: the reference runtime must not share
    # a process with ours (ffi refuses the import).
    try:
        dist = importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("apache-tvm-ffi is not installed")
    return str(dist.locate_file("tvm_ffi"))


def _reference_include_dir():
    return os.path.join(_reference_package_dir(), "include")


def test_reference_built_kernel_runs_in_our_runtime(cpp_host, build_dir):
    lib = str(build_dir / "reference_kernels.so")
    src = os.path.join(ROOT, "tests", "cpp", "kernels", "reference_kernels.cc")
    inc = _reference_include_dir()
    _build(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{inc}", src, "-o", lib])
    assert _run([cpp_host, lib, "add", "40", "2"]).stdout == "42\n"
    out = _run([cpp_host, lib, "fail", "1", "2"])  # wrong argument count: their TypeError
    assert out.returncode == 3
    assert out.stdout.startswith("TypeError: Mismatched number of arguments when calling: `fail")


def test_our_kernel_runs_in_the_reference_runtime(our_kernel):
    _reference_package_dir()
    code = textwrap.dedent(
        f"""
        import tvm_ffi
        mod = tvm_ffi.load_module({our_kernel!r})
        assert mod.add_int(40, 2) == 42
        assert mod.greet("there", None) == "hello, there!"
        assert mod.apply_twice(lambda x: x * 10, 2) == 200
        try:
            mod.fail_value(5)
        except ValueError as err:
            assert "bad value 5" in str(err), err
        else:
            raise AssertionError("no error")
        try:
            mod.add_int(1, "x")
        except TypeError as err:
            assert "Mismatched type on argument #1" in str(err), err
        else:
            raise AssertionError("no error")
        print("ok")
        """
    )
    out = _run([sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_reference_built_kernel_called_from_python(build_dir):
    import numpy as np
    import torch

    import ffi

    lib = str(build_dir / "reference_kernels_py.so")
    src = os.path.join(ROOT, "tests", "cpp", "kernels", "reference_kernels.cc")
    _build(
        [
            "g++",
            "-std=c++17",
            "-O1",
            "-shared",
            "-fPIC",
            f"-I{_reference_include_dir()}",
            src,
            "-o",
            lib,
        ]
    )
    mod = ffi.load_module(lib)
    assert mod.add(40, 2) == 42
    assert mod.concat("a fairly long string, ", "from Python") == (
        "a fairly long string, from Python"
    )
    assert mod.call_back(lambda x: x * 10, 4) == 41
    x = torch.arange(3.0)
    y = torch.zeros(3)
    mod.add_one(x, y)
    assert y.tolist() == [1.0, 2.0, 3.0]
    a = np.arange(3, dtype=np.float32)
    b = np.zeros(3, dtype=np.float32)
    mod.add_one(a, b)
    assert b.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="reference kernel failed: why"):
        mod.fail("why")
