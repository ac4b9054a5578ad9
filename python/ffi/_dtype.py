"""The element type class and DLPack's type codes, where code written for the reference imports
them (``from tvm_ffi._dtype import dtype, DataTypeCode``)."""

from ._core import dtype
from ._dtype_code import DataTypeCode

__all__ = ["DataTypeCode", "dtype"]
