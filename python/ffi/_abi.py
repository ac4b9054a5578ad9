"""The C ABI's constants, as the extension was compiled against them.

``ffi._core`` exports each enumeration of the headers it was built with as a read-only table
named after the C enum and keyed by the enumerators' names (``_core.TVMFFITypeIndex["kTVMFFIInt"]``;
src/python/abi_constants.cc), with the sizes of the C types objects are laid out in and the ABI
version. This module gives the rest of the package the values it uses, under Python names; no
number is written here, so none can drift from ``<ffi/c_api.h>``, ``<ffi/c_reflection_api.h>``
or ``<ffi/dlpack.h>``.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import _core

__all__ = [
    "ALIGNOF",
    "DL_DATA_TYPE_CODE",
    "DL_DEVICE_TYPE",
    "SIZEOF",
    "VERSION",
    "AccessKind",
    "DefRegionKind",
    "FieldFlag",
    "InplaceMode",
    "SEqHashKind",
    "TypeIndex",
    "WalkOrder",
    "WalkResult",
]

_TYPE_INDEX = _core.TVMFFITypeIndex
_FIELD_FLAG = _core.TVMFFIFieldFlagBitMask
_SEQ_HASH_KIND = _core.TVMFFISEqHashKind
_DEF_REGION_KIND = _core.TVMFFIDefRegionKind


class TypeIndex:
    """``TVMFFITypeIndex``: what an Any holds (below ``STATIC_OBJECT_BEGIN``, a value stored in
    the Any itself) or what kind of object a ``TVMFFIObject`` is."""

    ANY = _TYPE_INDEX["kTVMFFIAny"]
    NONE = _TYPE_INDEX["kTVMFFINone"]
    INT = _TYPE_INDEX["kTVMFFIInt"]
    BOOL = _TYPE_INDEX["kTVMFFIBool"]
    FLOAT = _TYPE_INDEX["kTVMFFIFloat"]
    OPAQUE_PTR = _TYPE_INDEX["kTVMFFIOpaquePtr"]
    DATA_TYPE = _TYPE_INDEX["kTVMFFIDataType"]
    DEVICE = _TYPE_INDEX["kTVMFFIDevice"]
    DLTENSOR_PTR = _TYPE_INDEX["kTVMFFIDLTensorPtr"]
    RAW_STR = _TYPE_INDEX["kTVMFFIRawStr"]
    BYTE_ARRAY_PTR = _TYPE_INDEX["kTVMFFIByteArrayPtr"]
    OBJECT_RVALUE_REF = _TYPE_INDEX["kTVMFFIObjectRValueRef"]
    SMALL_STR = _TYPE_INDEX["kTVMFFISmallStr"]
    SMALL_BYTES = _TYPE_INDEX["kTVMFFISmallBytes"]
    STATIC_OBJECT_BEGIN = _TYPE_INDEX["kTVMFFIStaticObjectBegin"]
    OBJECT = _TYPE_INDEX["kTVMFFIObject"]
    STR = _TYPE_INDEX["kTVMFFIStr"]
    BYTES = _TYPE_INDEX["kTVMFFIBytes"]
    ERROR = _TYPE_INDEX["kTVMFFIError"]
    FUNCTION = _TYPE_INDEX["kTVMFFIFunction"]
    SHAPE = _TYPE_INDEX["kTVMFFIShape"]
    TENSOR = _TYPE_INDEX["kTVMFFITensor"]
    ARRAY = _TYPE_INDEX["kTVMFFIArray"]
    MAP = _TYPE_INDEX["kTVMFFIMap"]
    MODULE = _TYPE_INDEX["kTVMFFIModule"]
    OPAQUE_PY_OBJECT = _TYPE_INDEX["kTVMFFIOpaquePyObject"]
    LIST = _TYPE_INDEX["kTVMFFIList"]
    DICT = _TYPE_INDEX["kTVMFFIDict"]
    BIG_INT = _TYPE_INDEX["kTVMFFIBigInt"]
    DYN_OBJECT_BEGIN = _TYPE_INDEX["kTVMFFIDynObjectBegin"]


class FieldFlag:
    """``TVMFFIFieldFlagBitMask``: the bits of a reflected field's flags (and, for
    ``IS_STATIC_METHOD``, of a method's)."""

    WRITABLE = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskWritable"]
    HAS_DEFAULT = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskHasDefault"]
    IS_STATIC_METHOD = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskIsStaticMethod"]
    SEQ_HASH_IGNORE = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskSEqHashIgnore"]
    SEQ_HASH_DEF_PATTERN = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskSEqHashDefPattern"]
    SEQ_HASH_DEF_SIMPLE = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskSEqHashDefSimple"]
    DEFAULT_FROM_FACTORY = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskDefaultFromFactory"]
    REPR_OFF = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskReprOff"]
    COMPARE_OFF = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskCompareOff"]
    HASH_OFF = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskHashOff"]
    INIT_OFF = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskInitOff"]
    KW_ONLY = _FIELD_FLAG["kTVMFFIFieldFlagBitMaskKwOnly"]


class SEqHashKind:
    """``TVMFFISEqHashKind``: how structural equality and hashing treat a type's objects."""

    UNSUPPORTED = _SEQ_HASH_KIND["kTVMFFISEqHashKindUnsupported"]
    TREE_NODE = _SEQ_HASH_KIND["kTVMFFISEqHashKindTreeNode"]
    FREE_VAR = _SEQ_HASH_KIND["kTVMFFISEqHashKindFreeVar"]
    DAG_NODE = _SEQ_HASH_KIND["kTVMFFISEqHashKindDAGNode"]
    CONST_TREE_NODE = _SEQ_HASH_KIND["kTVMFFISEqHashKindConstTreeNode"]
    UNIQUE_INSTANCE = _SEQ_HASH_KIND["kTVMFFISEqHashKindUniqueInstance"]


class DefRegionKind:
    """``TVMFFIDefRegionKind``: the definition region a structural visit is in."""

    NONE = _DEF_REGION_KIND["kTVMFFIDefRegionKindNone"]
    PATTERN = _DEF_REGION_KIND["kTVMFFIDefRegionKindPattern"]
    SIMPLE = _DEF_REGION_KIND["kTVMFFIDefRegionKindSimple"]


class AccessKind:
    """``ffi::reflection::AccessKind``: how one step of an access path reaches a part."""

    ATTR = _core.AccessKind["kAttr"]
    ARRAY_ITEM = _core.AccessKind["kArrayItem"]
    MAP_ITEM = _core.AccessKind["kMapItem"]
    ATTR_MISSING = _core.AccessKind["kAttrMissing"]
    ARRAY_ITEM_MISSING = _core.AccessKind["kArrayItemMissing"]
    MAP_ITEM_MISSING = _core.AccessKind["kMapItemMissing"]


class WalkOrder:
    """``ffi::WalkOrder``: whether a structural walk calls back before or after the children."""

    PRE_ORDER = _core.WalkOrder["kPreOrder"]
    POST_ORDER = _core.WalkOrder["kPostOrder"]


class WalkResult:
    """``ffi::WalkResult``'s codes: walk on into a part's children, or skip them."""

    ADVANCE = _core.WalkResult["kAdvance"]
    SKIP = _core.WalkResult["kSkip"]


class InplaceMode:
    """``ffi::InplaceMode``: whether a structural mutation may change a value in place."""

    DISALLOW = _core.InplaceMode["kDisallow"]
    ALLOW = _core.InplaceMode["kAllow"]


#: DLPack's device types (``DLDeviceType``), by name (``"kDLCPU"``).
DL_DEVICE_TYPE: Mapping[str, int] = _core.DLDeviceType
#: DLPack's element type codes (``DLDataTypeCode``), by name (``"kDLFloat"``).
DL_DATA_TYPE_CODE: Mapping[str, int] = _core.DLDataTypeCode
#: Sizes in bytes of ``TVMFFIObject`` (the object header), ``TVMFFIAny`` and the C types reflected
#: fields are stored as (``int64_t``, ``double``, ``bool``, ``void*``).
SIZEOF: Mapping[str, int] = _core.sizeof
#: Alignments of the types in :data:`SIZEOF`.
ALIGNOF: Mapping[str, int] = _core.alignof
#: The C ABI version (major, minor, patch) the extension was compiled against.
VERSION: tuple[int, int, int] = _core.TVM_FFI_VERSION
