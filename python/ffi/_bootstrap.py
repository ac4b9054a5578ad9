"""Everything importing ffi does besides defining names, in the one order it needs.

``ffi/__init__.py`` imports this module first, so it runs once, before any other module of the
package loads (importing ``ffi.container`` or ``ffi.core`` first imports the package first). The
other modules only define names; the steps that change state outside a module are all here:

1. the runtime library: the one already in the process, else ours with ``RTLD_GLOBAL`` (kernel
   libraries resolve their ``TVMFFI*`` symbols against it), before the extension, which links it;
2. the extension ``ffi._core``, whose ``Object`` gets its metaclass before any class derives from
   it (the modules imported next define such classes);
3. the classes the extension hands out for the built-in types (``Shape``, the containers,
   ``Module``, ...) and the classes bound to the runtime's reflected types (``Error``, the
   structural and access path types);
4. what the package adds to the extension's classes (copying and pickling objects,
   ``cls.__tvm_ffi_type_info__``, ``Function.__from_extern_c__``, ...) and the extension's
   hooks into ``ffi.module``;
5. the import hook that steers a later ``import tvm_ffi`` onto the runtime serving the process.

Modules loaded later on demand (``ffi.dataclasses``, ``ffi.testing``) bind their own classes with
the public decorators as they load; they need no more than what is done here.
"""

from __future__ import annotations

import ctypes

from . import _runtime

# 1. The runtime serving the process: one already loaded (tvm_ffi imported first), else ours.
LIB: ctypes.CDLL = _runtime.load()

# 2. The extension, against that runtime; then the metaclass, before any class derives from Object.
from . import _core  # noqa: E402
from ._object_meta import ObjectMeta  # noqa: E402

_core._set_object_metaclass(ObjectMeta)

from . import _dtypes, _type_info, api, container, error, module, registry  # noqa: E402
from ._abi import TypeIndex  # noqa: E402
from .access_path import AccessPath, AccessStep  # noqa: E402
from .structural import (  # noqa: E402
    StructuralKey,
    StructuralMutator,
    StructuralVisitor,
    VisitInterrupt,
)

# 3. Values of the built-in types arrive as these classes.
for _index, _cls in (
    (TypeIndex.SHAPE, api.Shape),
    (TypeIndex.OPAQUE_PY_OBJECT, api.OpaquePyObject),
    (TypeIndex.ARRAY, container.Array),
    (TypeIndex.LIST, container.List),
    (TypeIndex.MAP, container.Map),
    (TypeIndex.DICT, container.Dict),
    (TypeIndex.MODULE, module.Module),
):
    _core._register_class(_index, _cls)

# Objects of the runtime's reflected types arrive as these classes, their fields and methods
# attributes (each class defines its own constructor, if any).
for _key, _cls in (
    ("ffi.Error", error.Error),
    ("ffi.StructuralKey", StructuralKey),
    ("ffi.VisitInterrupt", VisitInterrupt),
    ("ffi.StructuralVisitor", StructuralVisitor),
    ("ffi.StructuralMutator", StructuralMutator),
    ("ffi.reflection.AccessStep", AccessStep),
    ("ffi.reflection.AccessPath", AccessPath),
):
    registry.register_object(_key, init=False)(_cls)
del _index, _key, _cls

# 4. What the package adds to the extension's classes: every object (of a registered class or
# not) copies, pickles and describes its type; functions are made from C symbols; dtype knows
# NumPy's names.
_core.Object.__copy__ = api._object_copy  # type: ignore[method-assign]
_core.Object.__deepcopy__ = api._object_deepcopy  # type: ignore[method-assign]
_core.Object.__reduce__ = api._object_reduce  # type: ignore[method-assign,assignment]
_core.Object.__ctypes_handle__ = api._object_ctypes_handle  # type: ignore[method-assign]
_core.Object.__tvm_ffi_type_info__ = _type_info.TypeInfoAttribute()  # type: ignore[attr-defined]
_core.Function.__from_extern_c__ = staticmethod(api._from_extern_c)  # type: ignore[attr-defined]
_core.Function.__from_mlir_packed_safe_call__ = staticmethod(  # type: ignore[attr-defined]
    api._from_mlir_packed_safe_call
)
_core.dtype._NUMPY_DTYPE_TO_STR = _dtypes._NumpyNames()  # type: ignore[attr-defined]

# The extension calls these: for each module arriving in Python, for the signature of a typed
# function, and for the metadata of each global function looked up.
_core._set_hooks(module.Module._populate, module._signature_from_metadata, module._global_metadata)


# 5. A later `import tvm_ffi` shares this runtime (docs/coexistence.md).
def _adapt_runtime_to_reference_package(package_dir: str) -> None:
    """Shows the runtime the reference package about to share it (a runtime that a host loaded
    may not be ours, and then has nothing to adapt)."""
    adapt = _core.get_global_func("ffi.EnumAdaptToReferencePackage", allow_missing=True)
    if adapt is not None:
        adapt(package_dir)


_runtime.share_with_reference_package(LIB, _adapt_runtime_to_reference_package)
