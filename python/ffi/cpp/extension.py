"""The build functions under the reference's module name (``tvm_ffi.cpp.extension``), with its
CUDA toolkit lookup, which code written for the reference calls. Only re-exports of
``ffi.cpp``'s own names."""

from ._api import build, build_inline, load, load_inline
from ._build import _find_cuda_home as _find_cuda_home

__all__ = ["build", "build_inline", "load", "load_inline"]
