"""Helpers beside the core API, under the reference package's names (``tvm_ffi.utils``)."""

from . import kwargs_wrapper, lockfile, unpack_dataclass

__all__ = ["kwargs_wrapper", "lockfile", "unpack_dataclass"]
