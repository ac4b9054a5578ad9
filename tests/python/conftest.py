"""Fixtures and collection rules only (the helpers tests share are in support/): the session's
compile cache, the kernel libraries most tests call, built once per session with nothing but
``python -m ffi.config --cflags``, and the files left out where PyTorch is not installed."""

import importlib.util
import os
import re

import pytest
from support.build import build_kernel, build_with_both_headers, set_compile_cache
from support.paths import KERNELS_DIR

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


@pytest.fixture(scope="session", autouse=True)
def _compile_cache_root(tmp_path_factory):
    """The session's compile cache: beside the workers' own temporary directories (their common
    parent is the session's) under xdist, in the session's directory without it."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    set_compile_cache(os.path.join(root, "compile-cache"))


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory):
    """One mypy cache for the session's mypy runs: the standard library, NumPy and the package are
    analysed once (a cold run takes about 20 s, a warm one 1 s)."""
    return tmp_path_factory.mktemp("mypy_cache")


@pytest.fixture(scope="session")
def kernels_path(tmp_path_factory):
    return build_kernel(
        os.path.join(KERNELS_DIR, "py_kernels.cc"), str(tmp_path_factory.mktemp("kernels"))
    )


@pytest.fixture(scope="session")
def fmod(tmp_path_factory):
    """tests/python/kernels/framework_kernels.cc: tensors kept, returned and made by a kernel."""
    import ffi

    path = build_kernel(
        os.path.join(KERNELS_DIR, "framework_kernels.cc"), str(tmp_path_factory.mktemp("framework"))
    )
    return ffi.load_module(path)


@pytest.fixture(scope="session")
def mod(kernels_path):
    import ffi

    return ffi.load_module(kernels_path)


@pytest.fixture(scope="session")
def reliability_path(tmp_path_factory):
    return build_kernel(
        os.path.join(KERNELS_DIR, "reliability_kernels.cc"),
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
    import ffi

    out = str(tmp_path_factory.mktemp("structural_objects"))
    src = os.path.join(KERNELS_DIR, "structural_objects.cc")
    classes = {}
    for prefix, path in build_with_both_headers(src, ("seours", "seref"), "SE_PREFIX", out).items():
        ffi.load_module(path)
        classes[prefix] = {
            n: ffi.register_object(f"{prefix}.{n}")(type(n, (ffi.Object,), {}))
            for n in ["Var", "Func", "Binding", "Meta", "Plain"]
        }
    return classes
