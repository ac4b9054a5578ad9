"""Shared fixtures: the kernel library the Python tests call, built once per session with nothing
but ``python -m ffi.config --cflags``; and ``compile_cached``, through which fixtures build the
libraries they load."""

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# JAX on a GPU takes most of its memory at first use unless told otherwise; the xdist workers and
# PyTorch share the one GPU.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

_TORCH_INSTALLED = importlib.util.find_spec("torch") is not None
_IMPORTS_TORCH = re.compile(r"^(import torch|torch = )", re.M)


def pytest_ignore_collect(collection_path, config):
    """Without PyTorch (an interpreter its wheel is not built for), the test files that import it
    at the top are not collected; the rest runs (tests/run_all.sh interpreters)."""
    if _TORCH_INSTALLED or collection_path.suffix != ".py":
        return None
    return bool(_IMPORTS_TORCH.search(collection_path.read_text(encoding="utf-8"))) or None


# Where compile_cached keeps what it built: shared by the xdist workers of one session (set by
# _compile_cache_root before any test).
_COMPILE_CACHE = None


@pytest.fixture(scope="session", autouse=True)
def _compile_cache_root(tmp_path_factory):
    """The session's compile cache: beside the workers' own temporary directories (their common
    parent is the session's) under xdist, in the session's directory without it."""
    global _COMPILE_CACHE
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    _COMPILE_CACHE = os.path.join(root, "compile-cache")
    os.makedirs(_COMPILE_CACHE, exist_ok=True)


def compile_cached(cmd: list, output: str) -> subprocess.CompletedProcess:
    """Runs the compiler command `cmd`, which writes `output`, or copies the file that the same
    command (the same arguments and sources) wrote earlier in this session in any worker: xdist
    spreads a module's tests over both workers, and each would build the module's libraries.
    Copied, not shared, so that each fixture loads a file of its own, as it would have built it.
    Returns the compiler's result (the first run's output on a copy)."""
    if _COMPILE_CACHE is None:  # outside a pytest session
        return subprocess.run(cmd, capture_output=True, text=True)
    sources = [a for a in cmd if a.endswith((".c", ".cc", ".cu")) and os.path.isfile(a)]
    digest = hashlib.sha256(json.dumps([a if a != output else "<output>" for a in cmd]).encode())
    for src in sources:
        with open(src, "rb") as f:
            digest.update(f.read())
    entry = os.path.join(_COMPILE_CACHE, digest.hexdigest()[:32])
    with open(entry + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the other waits and copies
        if os.path.exists(entry + ".json"):
            with open(entry + ".json") as f:
                result = json.load(f)
            shutil.copyfile(entry + ".out", output)
            return subprocess.CompletedProcess(cmd, 0, result["stdout"], result["stderr"])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            shutil.copyfile(output, entry + ".out")
            with open(entry + ".json", "w") as f:
                json.dump({"stdout": proc.stdout, "stderr": proc.stderr}, f)
        return proc


def shared_build_dir(name: str) -> "str | None":
    """A build directory that every xdist worker of this session sees, for ``ffi.cpp.build`` (whose
    own cache and lock then build a library once for all workers); None outside a session."""
    return None if _COMPILE_CACHE is None else os.path.join(_COMPILE_CACHE, name)


def _have_nvcc() -> bool:
    import ffi.cpp

    try:
        ffi.cpp._build._compiler("nvcc")
    except ffi.cpp.BuildError:
        return False
    return True


def _have_cuda_torch() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# Markers of the CUDA tests: nvcc compiles their kernels (a check on any machine that has it); an
# NVIDIA GPU and PyTorch's CUDA build run them.
needs_nvcc = pytest.mark.skipif(not _have_nvcc(), reason="nvcc is not installed")
needs_gpu = pytest.mark.skipif(not _have_cuda_torch(), reason="needs an NVIDIA GPU")


def on_gpu(fn):
    """Marks a test that runs CUDA code: `gpu`, and skipped without nvcc or a GPU."""
    return pytest.mark.gpu(needs_nvcc(needs_gpu(fn)))


def build_kernel(src: str, out_dir: str) -> str:
    lib = os.path.join(out_dir, os.path.splitext(os.path.basename(src))[0] + ".so")
    cflags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    warnings = ["-Wall", "-Wextra", "-Werror"]
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", *warnings, *cflags, src, "-o", lib]
    proc = compile_cached(cmd, lib)
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
