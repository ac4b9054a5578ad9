"""The testing library's global functions (``testing.*``) as attributes of this module.

Loading this module loads the testing library unless one is in the process already: ours
(``libffi_testing.so``) and the reference package's (``libtvm_ffi_testing.so``, which ``import
tvm_ffi`` loads) register the same names and carry the same SONAME, so whichever came first serves
both packages and neither registers a name twice.
"""

from __future__ import annotations

import ctypes
import os
import sys

from .. import libinfo
from .._core import Function
from ..registry import init_ffi_api

#: The SONAME both testing libraries carry.
TESTING_SONAME = "libtvm_ffi_testing.so"


def _library_path() -> str:
    """The testing library beside the runtime (a wheel's ``ffi/lib``, or a CMake build tree's
    ``src/testing``), or the file ``FFI_TESTING_LIBRARY_PATH`` names."""
    name = "ffi_testing.dll" if sys.platform.startswith("win") else "libffi_testing.so"
    if sys.platform == "darwin":
        name = "libffi_testing.dylib"
    override = os.environ.get("FFI_TESTING_LIBRARY_PATH")
    if override:
        candidates = [os.path.join(override, name) if os.path.isdir(override) else override]
    else:
        lib_dir = libinfo.get_lib_dir()
        candidates = [os.path.join(lib_dir, name), os.path.join(lib_dir, "src", "testing", name)]
    return libinfo._first_existing(
        candidates,
        f"the testing library {name}",
        "It is built with the package (pip install .), or by CMake with "
        "-DFFI_BUILD_TESTING_LIBRARY=ON; FFI_TESTING_LIBRARY_PATH may name it.",
    )


def _load() -> ctypes.CDLL:
    """The testing library serving the process, loading ours only when none is there."""
    if hasattr(os, "RTLD_NOLOAD"):
        try:
            return ctypes.CDLL(TESTING_SONAME, mode=ctypes.RTLD_GLOBAL | os.RTLD_NOLOAD)
        except OSError:
            pass
    return ctypes.CDLL(_library_path(), mode=ctypes.RTLD_GLOBAL)


LIB = _load()
init_ffi_api("testing", __name__)

__all__ = sorted(name for name, value in list(globals().items()) if isinstance(value, Function))
