"""The build functions under the reference's module name (``tvm_ffi.cpp.extension``), with its
CUDA toolkit lookup, which code written for the reference calls."""

from __future__ import annotations

import os
import shutil

from ._api import build, build_inline, load, load_inline

__all__ = ["build", "build_inline", "load", "load_inline"]


def _find_cuda_home() -> str:
    """The CUDA toolkit's root directory: ``$CUDA_HOME`` or ``$CUDA_PATH``, else the directory
    above the ``bin`` of the ``nvcc`` on ``PATH``, else ``/usr/local/cuda``; RuntimeError when
    none of them exists."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home:
        return home
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        return os.path.dirname(os.path.dirname(nvcc))
    if os.path.exists("/usr/local/cuda"):
        return "/usr/local/cuda"
    raise RuntimeError("cannot find the CUDA toolkit; set CUDA_HOME to its directory")
