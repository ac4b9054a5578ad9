"""ffi: an open ABI and FFI for machine-learning systems.

Load a kernel library and call it with zero-copy tensors::

    import ffi, torch
    mod = ffi.load_module("build/kernels.so")
    mod.add_one(torch.arange(3.0), out)

Importing the package loads the runtime library (``lib/libffi_runtime.so``) with ``RTLD_GLOBAL``,
so that kernel libraries built against the headers alone find the ``TVMFFI*`` symbols they use;
when a TVM-FFI runtime is already loaded (``tvm_ffi`` imported first), that one is used instead.
Importing stays cheap: no NumPy, no PyTorch, no subprocesses.
"""

import ctypes as _ctypes

# First, before anything else of the package: loads the runtime and the extension, then does every
# other step importing the package takes, in order (see ffi/_bootstrap.py).
from . import _bootstrap

# The runtime serving the process: one already loaded (tvm_ffi imported first), else ours. A later
# `import tvm_ffi` shares it (docs/coexistence.md).
_LIB: _ctypes.CDLL = _bootstrap.LIB
#: The runtime library serving the process, loaded with ctypes (the reference's ``tvm_ffi.LIB``):
#: its C functions (``TVMFFI*``) can be called through it.
LIB: _ctypes.CDLL = _LIB

from . import _dtypes, _runtime, access_path, libinfo  # noqa: E402
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
from ._version import __version__, __version_tuple__  # noqa: E402
from .api import DLDeviceType, ObjectConvertible, Shape, convert_func, device  # noqa: E402
from .container import Array, Dict, List, Map  # noqa: E402
from .error import Error, register_error  # noqa: E402
from .module import Module, ModulePropertyMask, load_module, system_lib  # noqa: E402
from .registry import (  # noqa: E402
    get_global_func_metadata,
    get_registered_type_keys,
    init_ffi_api,
    list_global_func_names,
    register_global_func,
    register_object,
)
from .stream import StreamContext, get_raw_stream, use_raw_stream, use_torch_stream  # noqa: E402
from .structural import (  # noqa: E402
    DefRegionKind,
    InplaceMode,
    StructuralKey,
    StructuralMutator,
    StructuralVisitor,
    VisitInterrupt,
    WalkOrder,
    WalkResult,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
    structural_map,
    structural_mutate,
    structural_visit,
    structural_walk,
)


def runtime_info() -> dict:
    """Which runtime library serves this process.

    Returns a dict: ``path`` (the library file the loader mapped), ``implementation`` (``"ffi"``
    for this package's runtime, ``"reference"`` for another TVM-FFI runtime, e.g. the one
    ``tvm_ffi`` loaded first) and ``abi_version`` (the C ABI version it reports).
    """
    return _runtime.info(_LIB)


__all__ = [
    "__version__",
    "__version_tuple__",
    "runtime_info",
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
    "ObjectConvertible",
    "convert_func",
    "StreamContext",
    "system_lib",
    "Error",
    "ModulePropertyMask",
    "Object",
    "Shape",
    "StructuralKey",
    "StructuralMutator",
    "StructuralVisitor",
    "InplaceMode",
    "Tensor",
    "DefRegionKind",
    "VisitInterrupt",
    "WalkOrder",
    "WalkResult",
    "access_path",
    "convert",
    "device",
    "dtype",
    "from_dlpack",
    "get_global_func",
    "get_global_func_metadata",
    "get_registered_type_keys",
    "get_first_structural_mismatch",
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
    "structural_equal",
    "structural_hash",
    "structural_map",
    "structural_mutate",
    "structural_visit",
    "structural_walk",
    "use_raw_stream",
    "use_torch_stream",
]


def __getattr__(name: str):  # noqa: ANN202
    """``ffi.core``, ``ffi.cpp``, ``ffi.dataclasses`` (and ``ffi.method``), ``ffi.serialization``
    and ``ffi.utils`` load on first use (import stays cheap), as do ``ffi._dtype`` and
    ``ffi._ffi_api`` (the reference's module names); they stay out of __all__ so that
    ``from ffi import *`` never shadows the standard ``dataclasses``."""
    import importlib

    if name in ("core", "cpp", "dataclasses", "serialization", "utils", "_dtype", "_ffi_api"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "method":  # the reference's top-level name for ffi.dataclasses.method
        return importlib.import_module(f"{__name__}.dataclasses").method
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The reference's name for the boolean dtype. Bound last and left out of __all__: from here on it
# shadows the builtin `bool` in this module, and `from ffi import *` must not do so in the caller's.
bool = _dtypes.bool
