"""The element types as module-level constants, under the names the reference package uses.

``str()`` of each constant is its name (``str(ffi.float8_e4m3fn) == "float8_e4m3fn"``), so the
names double as the strings ``ffi.dtype`` accepts. ``bool`` is also spelled ``bool_`` (the name
this package has always had), and ``float4_e2m1fn_x2`` (PyTorch's spelling) is the same dtype as
``float4_e2m1fnx2``: two 4-bit floats packed in a byte.
"""

from __future__ import annotations

from typing import Any

from ._core import dtype


class _NumpyNames:
    """``dtype._NUMPY_DTYPE_TO_STR`` (a name code written for the reference reads; set on the
    class by ``ffi._bootstrap``): NumPy's dtypes by the names ``ffi.dtype`` takes, built on first
    use (importing NumPy then, not with ffi)."""

    def __init__(self) -> None:
        self._table: dict[Any, str] | None = None

    def __get__(self, instance: object, owner: type | None = None) -> dict[Any, str]:
        if self._table is None:
            import numpy as np

            names = ["bool", "float16", "float32", "float64", "complex64", "complex128"]
            names += [f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)]
            self._table = {np.dtype(n): n for n in names}
        return self._table


# Named after NumPy 2's choice of ``bool``; this module therefore never calls the builtin.
bool = dtype("bool")
bool_ = bool
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("float16")
float32 = dtype("float32")
float64 = dtype("float64")
bfloat16 = dtype("bfloat16")
# 8-bit floats: e<exponent bits>m<mantissa bits>; fn = finite (no infinities), uz = unsigned zero
# (no negative zero), b11 = exponent bias 11, e8m0fnu = the exponent-only MX scale type.
float8_e3m4 = dtype("float8_e3m4")
float8_e4m3 = dtype("float8_e4m3")
float8_e4m3b11fnuz = dtype("float8_e4m3b11fnuz")
float8_e4m3fn = dtype("float8_e4m3fn")
float8_e4m3fnuz = dtype("float8_e4m3fnuz")
float8_e5m2 = dtype("float8_e5m2")
float8_e5m2fnuz = dtype("float8_e5m2fnuz")
float8_e8m0fnu = dtype("float8_e8m0fnu")
float6_e2m3fn = dtype("float6_e2m3fn")
float6_e3m2fn = dtype("float6_e3m2fn")
float4_e2m1fn = dtype("float4_e2m1fn")
float4_e2m1fnx2 = dtype("float4_e2m1fnx2")
float4_e2m1fn_x2 = float4_e2m1fnx2
