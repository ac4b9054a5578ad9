"""DLPack's type codes as the reference's ``DataTypeCode`` enum (``ffi._dtype`` shows it at the
reference's module path). A module of its own so that it loads on first use: making the enum
takes a fifth of a millisecond that ``import ffi`` does not spend."""

from __future__ import annotations

from enum import IntEnum

from ._abi import DL_DATA_TYPE_CODE as _CODE

__all__ = ["DataTypeCode"]


class DataTypeCode(IntEnum):
    """DLPack's type codes (``DLDataTypeCode``), as ``dtype.type_code`` reports them."""

    INT = _CODE["kDLInt"]
    UINT = _CODE["kDLUInt"]
    FLOAT = _CODE["kDLFloat"]
    HANDLE = _CODE["kDLOpaqueHandle"]
    BFLOAT = _CODE["kDLBfloat"]
    COMPLEX = _CODE["kDLComplex"]
    BOOL = _CODE["kDLBool"]
    Float8E3M4 = _CODE["kDLFloat8_e3m4"]
    Float8E4M3 = _CODE["kDLFloat8_e4m3"]
    Float8E4M3B11FNUZ = _CODE["kDLFloat8_e4m3b11fnuz"]
    Float8E4M3FN = _CODE["kDLFloat8_e4m3fn"]
    Float8E4M3FNUZ = _CODE["kDLFloat8_e4m3fnuz"]
    Float8E5M2 = _CODE["kDLFloat8_e5m2"]
    Float8E5M2FNUZ = _CODE["kDLFloat8_e5m2fnuz"]
    Float8E8M0FNU = _CODE["kDLFloat8_e8m0fnu"]
    Float6E2M3FN = _CODE["kDLFloat6_e2m3fn"]
    Float6E3M2FN = _CODE["kDLFloat6_e3m2fn"]
    Float4E2M1FN = _CODE["kDLFloat4_e2m1fn"]
