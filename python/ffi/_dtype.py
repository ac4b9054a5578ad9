"""The element type class and DLPack's type codes, where code written for the reference imports
them (``from tvm_ffi._dtype import dtype, DataTypeCode``)."""

from __future__ import annotations

from enum import IntEnum

from ._core import dtype

__all__ = ["DataTypeCode", "dtype"]


class DataTypeCode(IntEnum):
    """DLPack's type codes (``DLDataTypeCode``), as ``dtype.type_code`` reports them."""

    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    COMPLEX = 5
    BOOL = 6
    Float8E3M4 = 7
    Float8E4M3 = 8
    Float8E4M3B11FNUZ = 9
    Float8E4M3FN = 10
    Float8E4M3FNUZ = 11
    Float8E5M2 = 12
    Float8E5M2FNUZ = 13
    Float8E8M0FNU = 14
    Float6E2M3FN = 15
    Float6E3M2FN = 16
    Float4E2M1FN = 17
