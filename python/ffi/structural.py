"""Structural equality and hashing: whether two values have the same structure, with variables
compared up to renaming.

Containers compare by content (maps whatever their order), tensors by dtype, device, shape and
(unless ``skip_tensor_content``) content, reflected objects by the structural kind their C++ type
declares (``_type_s_eq_hash_kind``: tree, const-tree, DAG, free variable or unique instance) and
the field flags ``SEqHashIgnore`` / ``SEqHashDefPattern`` / ``SEqHashDefSimple``. An object whose
type declares no kind is a TypeError. The rules are in docs/structural.md; the runtime implements
them (``ffi.StructuralEqual``, ``ffi.StructuralHash``, ``ffi.GetFirstStructuralMismatch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _core
from ._core import Object
from .registry import register_object

if TYPE_CHECKING:
    from .access_path import AccessPath

__all__ = ["StructuralKey", "get_first_structural_mismatch", "structural_equal", "structural_hash"]

_equal = _core.get_global_func("ffi.StructuralEqual")
_hash = _core.get_global_func("ffi.StructuralHash")
_mismatch = _core.get_global_func("ffi.GetFirstStructuralMismatch")
_make_key = _core.get_global_func("ffi.StructuralKey")
_keys_equal = _core.get_global_func("ffi.StructuralKeyEqual")

_U64 = (1 << 64) - 1


def structural_equal(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> bool:
    """Whether `lhs` and `rhs` are structurally equal.

    With `map_free_vars`, free variables outside any definition may bind to each other (otherwise
    an unbound variable equals only itself). With `skip_tensor_content`, tensors compare by dtype,
    device and shape only (content comparison needs host memory: ValueError for device tensors).
    Python lists, tuples and dicts convert as in any call::

        ffi.structural_equal({"a": [1, 2]}, {"a": [1, 2]})   # True
    """
    return bool(_equal(lhs, rhs, map_free_vars, skip_tensor_content))


def structural_hash(
    value: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> int:
    """A hash of `value` consistent with :func:`structural_equal` (equal values hash alike), as an
    unsigned 64-bit integer; the options as there."""
    return int(_hash(value, map_free_vars, skip_tensor_content)) & _U64


def get_first_structural_mismatch(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> tuple[AccessPath, AccessPath] | None:
    """Where `lhs` and `rhs` first differ, as ``(path into lhs, path into rhs)``, or None when
    they are structurally equal; the options as :func:`structural_equal`."""
    found = _mismatch(lhs, rhs, map_free_vars, skip_tensor_content)
    return None if found is None else (found[0], found[1])


@register_object("ffi.StructuralKey", init=False)
class StructuralKey(Object):
    """A value that dicts (and :class:`ffi.Map`) find by structure instead of identity::

        cache = {ffi.StructuralKey([1, {"a": 2}]): "hit"}
        cache[ffi.StructuralKey([1, {"a": 2}])]   # "hit"

    ``key`` is the value, ``hash_i64`` its structural hash (signed, as stored).
    """

    key: Any
    hash_i64: int

    def __init__(self, key: Any) -> None:
        self.__init_handle_by_constructor__(_make_key, key)

    def __hash__(self) -> int:
        return self.hash_i64 & _U64

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StructuralKey) and bool(_keys_equal(self, other))

    def __ne__(self, other: object) -> bool:
        return not self == other
