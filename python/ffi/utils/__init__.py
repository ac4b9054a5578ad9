"""Helpers beside the core API, under the reference package's names (``tvm_ffi.utils``):
``kwargs_wrapper`` (keyword arguments for positional functions), ``lockfile.FileLock`` (a lock
shared by processes), ``unpack_dataclass`` (dataclasses to tuples for calls) and
``embed_cubin`` (a CUDA image into an object file)."""

from . import embed_cubin, kwargs_wrapper, lockfile, unpack_dataclass
from .lockfile import FileLock

__all__ = ["FileLock", "embed_cubin", "kwargs_wrapper", "lockfile", "unpack_dataclass"]
