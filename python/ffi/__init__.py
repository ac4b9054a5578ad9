"""ffi: an open ABI and FFI for machine-learning systems.

Importing the package loads the runtime library (``lib/libffi_runtime.so``) with ``RTLD_GLOBAL``,
so that kernel libraries built against the headers alone find the ``TVMFFI*`` symbols they use.
Importing stays cheap: no NumPy, no PyTorch, no subprocesses.
"""

import ctypes as _ctypes
import sys as _sys

from . import libinfo
from ._version import __version__


def _load_runtime() -> _ctypes.CDLL:
    # Both runtimes export the same C symbols; in one process the second would bind to the first.
    if "tvm_ffi" in _sys.modules:
        raise ImportError(
            "ffi cannot be imported into a process that has imported tvm_ffi: both implement the "
            "same C ABI symbols. Use one of them per process."
        )
    try:
        path = libinfo.get_runtime_library_path()
    except RuntimeError as err:
        raise ImportError(str(err)) from None
    try:
        return _ctypes.CDLL(path, mode=_ctypes.RTLD_GLOBAL)
    except OSError as err:
        raise ImportError(f"ffi: failed to load the runtime library {path}: {err}") from err


_LIB = _load_runtime()

__all__ = ["__version__", "libinfo"]
