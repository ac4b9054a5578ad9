"""my_kernels: kernels compiled against ffi's headers, loaded through ffi.

The wheel holds ``my_kernels/libmy_kernels.so``, a kernel library that links no Python (its
``TVMFFI*`` symbols come from ffi's runtime, which ``import ffi`` loads), so one wheel works for
every Python 3 version.

    import my_kernels, torch
    y = torch.ones(3)
    my_kernels.axpy(2.0, torch.arange(3.0), y)  # y = 2 * x + y, in place
    my_kernels.norm(y)
"""

import os

import ffi

__version__ = "0.1.0"

_LIB_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libmy_kernels.so")
if not os.path.exists(_LIB_PATH):
    raise ImportError(f"my_kernels: the kernel library {_LIB_PATH} is missing; reinstall the wheel")

_lib = ffi.load_module(_LIB_PATH)

axpy = _lib.axpy
"""axpy(alpha: float, x: Tensor, y: Tensor) -> None: y = alpha * x + y (float32, CPU)."""
norm = _lib.norm
"""norm(x: Tensor) -> float: the Euclidean norm of a float32 CPU tensor."""

__all__ = ["axpy", "norm", "library_path"]


def library_path() -> str:
    """Path of the compiled kernel library inside the installed package."""
    return _LIB_PATH
