"""Markers of tests that need a tool or a device: nvcc, an NVIDIA GPU, mypy, cargo."""

import importlib.util
import shutil
import sysconfig

import pytest

import ffi.cpp


def _have_nvcc() -> bool:
    """Whether ffi.cpp finds nvcc (NVCC, PATH, the CUDA toolkit's usual place)."""
    try:
        ffi.cpp._build._compiler("nvcc")
    except ffi.cpp.BuildError:
        return False
    return True


def _have_cuda_torch() -> bool:
    try:
        import torch  # absent on some interpreters the suite runs on
    except ImportError:
        return False
    return torch.cuda.is_available()


#: Whether the interpreter is a free-threaded build (CPython 3.13t and later): no GIL.
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

#: Skips a test without nvcc: its CUDA kernels compile wherever nvcc is installed.
needs_nvcc = pytest.mark.skipif(not _have_nvcc(), reason="nvcc is not installed")
#: Skips a test without cargo: the Rust crates (rust/) and the Rust example build with it.
needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
#: Skips a test without an NVIDIA GPU and PyTorch's CUDA build to run it.
needs_gpu = pytest.mark.skipif(not _have_cuda_torch(), reason="needs an NVIDIA GPU")


def on_gpu(fn):
    """Marks a test that runs CUDA code: `gpu`, and skipped without nvcc or a GPU."""
    return pytest.mark.gpu(needs_nvcc(needs_gpu(fn)))


def needs_mypy(test):
    """Skips `test` without mypy; under pytest-xdist (``--dist loadgroup``) all mypy runs share one
    worker, so the session's cache (the ``mypy_cache`` fixture) is warm after the first."""
    test = pytest.mark.xdist_group("mypy")(test)
    return pytest.mark.skipif(
        importlib.util.find_spec("mypy") is None, reason="mypy is not installed"
    )(test)
