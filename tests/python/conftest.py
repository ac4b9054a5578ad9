"""Shared fixtures: the kernel library the Python tests call, built once per session with nothing
but ``python -m ffi.config --cflags``."""

import os
import shlex
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def build_kernel(src: str, out_dir: str) -> str:
    lib = os.path.join(out_dir, os.path.splitext(os.path.basename(src))[0] + ".so")
    cflags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    warnings = ["-Wall", "-Wextra", "-Werror"]
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", *warnings, *cflags, src, "-o", lib]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return lib


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory):
    """One mypy cache for the session's mypy runs: the standard library, NumPy and the package are
    analysed once (a cold run takes about 20 s, a warm one 1 s)."""
    return tmp_path_factory.mktemp("mypy_cache")


@pytest.fixture(scope="session")
def kernels_path(tmp_path_factory):
    return build_kernel(
        os.path.join(HERE, "kernels", "py_kernels.cc"), str(tmp_path_factory.mktemp("kernels"))
    )


@pytest.fixture(scope="session")
def mod(kernels_path):
    import ffi

    return ffi.load_module(kernels_path)


@pytest.fixture(scope="session")
def reliability_path(tmp_path_factory):
    return build_kernel(
        os.path.join(HERE, "kernels", "reliability_kernels.cc"),
        str(tmp_path_factory.mktemp("reliability")),
    )


@pytest.fixture(scope="session")
def rmod(reliability_path):
    import ffi

    return ffi.load_module(reliability_path)


@pytest.fixture(scope="session")
def structural_classes(tmp_path_factory):
    """The object types of kernels/structural_objects.cc (one per structural kind), built once
    with our headers (prefix "seours") and, when the reference package is installed, with its
    headers ("seref"): {prefix: {"Var": class, "Func": class, ...}}."""
    from test_reflection_interop import build_with_both_headers

    import ffi

    out = str(tmp_path_factory.mktemp("structural_objects"))
    src = os.path.join(HERE, "kernels", "structural_objects.cc")
    classes = {}
    for prefix, path in build_with_both_headers(src, ("seours", "seref"), "SE_PREFIX", out).items():
        ffi.load_module(path)
        classes[prefix] = {
            n: ffi.register_object(f"{prefix}.{n}")(type(n, (ffi.Object,), {}))
            for n in ["Var", "Func", "Binding", "Meta", "Plain"]
        }
    return classes
