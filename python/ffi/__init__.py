"""ffi: an open ABI and FFI for machine-learning systems.

Load a kernel library and call it with zero-copy tensors::

    import ffi, torch
    mod = ffi.load_module("build/kernels.so")
    mod.add_one(torch.arange(3.0), out)

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


class _RefuseReferenceRuntime:
    """Import hook: once ffi is loaded, importing tvm_ffi would bind its C symbols to ffi's
    runtime and abort; refuse it with a clear error instead."""

    def find_spec(self, name, path=None, target=None):
        if name == "tvm_ffi":
            raise ImportError(
                "tvm_ffi cannot be imported into a process that has imported ffi: both "
                "implement the same C ABI symbols. Use one of them per process."
            )
        return None


_sys.meta_path.insert(0, _RefuseReferenceRuntime())

from . import _dtypes  # noqa: E402
from ._core import (  # noqa: E402
    Device,
    Function,
    Object,
    Tensor,
    convert,
    dtype,
    from_dlpack,
    get_global_func,
    remove_global_func,
    set_tensor_results,
)
from ._dtypes import (  # noqa: E402
    bfloat16,
    bool_,
    float4_e2m1fn,
    float4_e2m1fn_x2,
    float4_e2m1fnx2,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .api import (  # noqa: E402
    DLDeviceType,
    Module,
    Shape,
    device,
    get_raw_stream,
    list_global_func_names,
    load_module,
    register_error,
    register_global_func,
    use_raw_stream,
    use_torch_stream,
)
from .containers import Array, Dict, List, Map  # noqa: E402
from .registry import (  # noqa: E402
    get_global_func_metadata,
    get_registered_type_keys,
    init_ffi_api,
    register_object,
)

__all__ = [
    "__version__",
    "Array",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
    "float4_e2m1fnx2",
    "float4_e2m1fn_x2",
    "DLDeviceType",
    "Device",
    "Dict",
    "Function",
    "List",
    "Map",
    "Module",
    "Object",
    "Shape",
    "Tensor",
    "convert",
    "device",
    "dtype",
    "from_dlpack",
    "get_global_func",
    "get_global_func_metadata",
    "get_registered_type_keys",
    "get_raw_stream",
    "init_ffi_api",
    "libinfo",
    "list_global_func_names",
    "load_module",
    "register_error",
    "register_global_func",
    "register_object",
    "remove_global_func",
    "set_tensor_results",
    "use_raw_stream",
    "use_torch_stream",
]

# The reference's name for the boolean dtype. Bound last and left out of __all__: from here on it
# shadows the builtin `bool` in this module, and `from ffi import *` must not do so in the caller's.
bool = _dtypes.bool
