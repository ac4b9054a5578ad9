"""PyTorch's DLPack exchange API for PyTorch releases that have none (before 2.10).

PyTorch 2.10 and later publish ``torch.Tensor.__dlpack_c_exchange_api__``: C functions through
which ffi passes tensors to a kernel without a Python call, allocates the tensors a kernel makes
through PyTorch's allocator, and gives the kernel PyTorch's current CUDA stream. Without it, calls
still work, through the ``__dlpack__`` protocol, but a kernel sees no current stream, allocates
outside PyTorch, and tensors it returns come back as ``ffi.Tensor``.

For an older PyTorch, ffi provides the table itself, the first time a call meets a PyTorch tensor
(never at ``import ffi``), from the first of:

1. ``torch-c-dlpack-ext`` (``pip install torch-c-dlpack-ext``), if installed: prebuilt tables for
   PyTorch 2.4 to 2.9;
2. a shim built earlier for this PyTorch, cached in ``$FFI_CACHE_DIR/torch_exchange`` (default
   ``~/.cache/ffi/torch_exchange``), which needs no compiler to load;
3. a shim built now from ``_torch_exchange_api.cc`` against the installed PyTorch (about a minute,
   once), through ``ffi.cpp.build``.

Either way the table is set on ``torch.Tensor`` under its standard name, where every consumer of
the convention finds it. When nothing provides it (no compiler, or ``FFI_TORCH_EXCHANGE_SHIM=0``),
calls keep the ``__dlpack__`` path and, unless the variable chose that, a
:class:`TorchExchangeWarning` says what is lost and how to get it back. To build the shim ahead of
time (say, in an image that will have no compiler)::

    python -m ffi.torch_exchange
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import importlib
import importlib.util
import os
import sys
import sysconfig
import warnings

from . import _version
from .cpp import BuildError
from .cpp import build as _build_library
from .cpp._build import _cache_root

__all__ = ["TorchExchangeWarning", "ensure_exchange_api", "provider", "shim_path"]

#: The name PyTorch 2.10+ gives the table on ``torch.Tensor`` (a ``dlpack_exchange_api`` capsule).
ATTRIBUTE = "__dlpack_c_exchange_api__"
#: The name earlier providers used (an int address or a capsule).
OLD_ATTRIBUTE = "__c_dlpack_exchange_api__"
#: ``0`` keeps ffi from building the shim (a cached one is still used).
ENV_SHIM = "FFI_TORCH_EXCHANGE_SHIM"

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_exchange_api.cc")
_CAPSULE_FUNCTION = "FFITorchExchangeAPICapsule"

# What provided the table in this process (see provider()); None until ensure_exchange_api runs.
_provider: str | None = None
# The shim libraries loaded, kept so that the table they hold outlives every tensor type using it.
_loaded: list[ctypes.PyDLL] = []


class TorchExchangeWarning(RuntimeWarning):
    """PyTorch lacks the DLPack exchange API and ffi could not provide it: calls with PyTorch
    tensors take the slower ``__dlpack__`` path, without PyTorch's stream and allocator."""


def _torch():
    """The imported PyTorch module, or None: this module never imports PyTorch itself."""
    return sys.modules.get("torch")


def _has_table(torch) -> bool:
    tensor = torch.Tensor
    return getattr(tensor, ATTRIBUTE, None) is not None or (
        getattr(tensor, OLD_ATTRIBUTE, None) is not None
    )


def _torch_key(torch) -> str:
    """What a shim built for `torch` depends on: its build, its place, this interpreter and the
    shim's source (a shim links PyTorch's C++ and Python libraries)."""
    with open(_SOURCE, "rb") as f:
        source = f.read()
    parts = [
        torch.__version__,
        os.path.dirname(os.path.abspath(torch.__file__)),
        str(getattr(torch.version, "cuda", None)),
        str(getattr(torch.version, "hip", None)),
        sysconfig.get_config_var("SOABI") or "",
        _version.__version__,
        hashlib.sha256(source).hexdigest(),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def shim_path(torch=None) -> str:
    """Where the shim for `torch` (default: the imported PyTorch) is cached, built or not."""
    torch = torch if torch is not None else _torch()
    if torch is None:
        raise RuntimeError("PyTorch is not imported")
    version = torch.__version__.split("+")[0]
    name = f"libffi_torch_exchange_{version}_{_torch_key(torch)}.so"
    return os.path.join(_cache_root(), "torch_exchange", name)


def _cuda_include_dir() -> str:
    """A directory with the CUDA runtime's headers, which PyTorch's CUDA stream header includes:
    $CUDA_HOME or $CUDA_PATH, else /usr/local/cuda, else the ``nvidia-cuda-runtime`` package where
    it is complete. Raises BuildError naming where it looked."""
    homes = [os.environ.get(e, "") for e in ("CUDA_HOME", "CUDA_PATH")]
    candidates = [os.path.join(h, "include") for h in homes if h] + ["/usr/local/cuda/include"]
    try:
        spec = importlib.util.find_spec("nvidia.cuda_runtime")  # imports the `nvidia` namespace
    except ImportError:
        spec = None
    if spec is not None:
        candidates += [os.path.join(p, "include") for p in spec.submodule_search_locations or []]
    for directory in candidates:
        # cuda_runtime_api.h includes crt/host_defines.h, which some packagings leave out.
        needed = ("cuda_runtime_api.h", os.path.join("crt", "host_defines.h"))
        if all(os.path.isfile(os.path.join(directory, name)) for name in needed):
            return directory
    raise BuildError(
        "PyTorch is a CUDA build and the shim needs the CUDA runtime's headers for its streams; "
        f"found in none of {candidates} (set CUDA_HOME to a CUDA toolkit)"
    )


def _build_shim(torch, path: str) -> None:
    """Compiles the shim against `torch` into `path` (ffi.cpp.build's cache does the rest)."""
    if getattr(torch.version, "hip", None):
        raise BuildError("the shim does not support ROCm builds of PyTorch")
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    lib_dir = os.path.join(torch_dir, "lib")
    cxx11_abi = int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    cflags = ["-std=c++17", f"-D_GLIBCXX_USE_CXX11_ABI={cxx11_abi}", "-w"]
    include_dirs = [
        os.path.join(torch_dir, "include"),
        os.path.join(torch_dir, "include", "torch", "csrc", "api", "include"),
        sysconfig.get_paths()["include"],
    ]
    libraries = ["-ltorch_python", "-ltorch", "-ltorch_cpu", "-lc10"]
    if getattr(torch.version, "cuda", None):
        cflags.append("-DFFI_TORCH_CUDA")
        include_dirs.append(_cuda_include_dir())
        libraries.append("-lc10_cuda")
    _build_library(
        "ffi_torch_exchange",
        cpp_files=[_SOURCE],
        extra_cflags=cflags,
        extra_include_paths=include_dirs,
        extra_ldflags=[f"-L{lib_dir}", f"-Wl,-rpath,{lib_dir}", *libraries],
        output=path,
    )


def _install(torch, path: str) -> None:
    """Loads the shim at `path` and sets its table on torch.Tensor."""
    lib = ctypes.PyDLL(path)  # PyDLL: the function creates a Python object, under the GIL
    make_capsule = getattr(lib, _CAPSULE_FUNCTION)
    make_capsule.restype = ctypes.py_object
    make_capsule.argtypes = []
    capsule = make_capsule()
    _loaded.append(lib)
    setattr(torch.Tensor, ATTRIBUTE, capsule)


def ensure_exchange_api(build: bool | None = None) -> str:
    """Gives the imported PyTorch a DLPack exchange API if it has none; returns what provides it:
    ``"pytorch"`` (its own, or one set before ffi looked), ``"torch-c-dlpack-ext"``,
    ``"cached shim"``, ``"built shim"``, or ``"none"``.

    `build` says whether a missing shim may be compiled now (default: unless
    ``FFI_TORCH_EXCHANGE_SHIM=0``). Raises RuntimeError when PyTorch is not imported, and
    ffi.cpp.BuildError when the build was allowed and failed.
    """
    global _provider
    torch = _torch()
    if torch is None:
        raise RuntimeError("PyTorch is not imported: import torch first")
    if _has_table(torch):  # provided earlier in this process, or PyTorch's own
        _provider = _provider or "pytorch"
        return _provider
    try:
        importlib.import_module("torch_c_dlpack_ext")  # sets the table on import, if it has one
    except ImportError:
        pass
    if _has_table(torch):
        _provider = "torch-c-dlpack-ext"
        return _provider
    path = shim_path(torch)
    if os.path.isfile(path):
        _install(torch, path)
        _provider = "cached shim"
        return _provider
    if build is None:
        build = os.environ.get(ENV_SHIM, "1") != "0"
    if not build:
        _provider = "none"
        return _provider
    _build_shim(torch, path)
    _install(torch, path)
    _provider = "built shim"
    return _provider


def provider() -> str | None:
    """What provided PyTorch's exchange API in this process (as ensure_exchange_api returns it),
    or None before anything asked."""
    return _provider


def _provide() -> None:
    """Called once by the extension, the first time a call meets a PyTorch tensor without the API:
    provides it, or warns that calls fall back (never raises: the call goes on either way)."""
    global _provider
    try:
        ensure_exchange_api()  # "none" only where FFI_TORCH_EXCHANGE_SHIM=0 chose the fallback
    except (BuildError, OSError, AttributeError, RuntimeError) as err:
        _provider = "none"
        warnings.warn(
            f"PyTorch {_torch().__version__} has no DLPack exchange API and ffi could not provide "
            f"one ({err}); calls pass PyTorch tensors through __dlpack__, without PyTorch's "
            "current stream and allocator. Install torch-c-dlpack-ext, or a C++ compiler, or "
            f"set {ENV_SHIM}=0 to silence this.",
            TorchExchangeWarning,
            stacklevel=2,
        )


def main(argv: list[str] | None = None) -> int:
    """``python -m ffi.torch_exchange``: imports PyTorch, provides its exchange API (building the
    shim if needed) and prints what provides it and, for a shim, where it lies."""
    parser = argparse.ArgumentParser(prog="python -m ffi.torch_exchange", description=__doc__)
    parser.add_argument("--no-build", action="store_true", help="never compile the shim")
    args = parser.parse_args(argv)
    importlib.import_module("torch")
    found = ensure_exchange_api(build=not args.no_build)
    print(f"torch {_torch().__version__}: exchange API from {found}")
    if found.endswith("shim"):
        print(shim_path())
    return 0 if found != "none" else 1


if __name__ == "__main__":
    sys.exit(main())
