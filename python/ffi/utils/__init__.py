"""Helpers beside the core API, under the reference package's names (``tvm_ffi.utils``):
``kwargs_wrapper`` (keyword arguments for positional functions), ``lockfile.FileLock`` (a lock
shared by processes), ``unpack_dataclass`` (dataclasses to tuples for calls) and
``embed_cubin`` (a CUDA image into an object file; loaded on first use, so that
``python -m ffi.utils.embed_cubin`` runs it as a fresh module)."""

from typing import Any

from . import kwargs_wrapper, lockfile, unpack_dataclass
from .lockfile import FileLock

__all__ = ["FileLock", "embed_cubin", "kwargs_wrapper", "lockfile", "unpack_dataclass"]


def __getattr__(name: str) -> Any:
    if name == "embed_cubin":
        import importlib

        return importlib.import_module(f"{__name__}.embed_cubin")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
