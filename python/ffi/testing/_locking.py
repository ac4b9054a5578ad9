"""One GPU per machine, shared by parallel test workers: :func:`run_with_gpu_lock` runs a callable
while holding a machine-wide file lock, so tests in different ``pytest -n`` workers touch the
device one at a time."""

from __future__ import annotations

import getpass
import os
import tempfile
from typing import Any, Callable, TypeVar

from ..utils import FileLock

_R = TypeVar("_R")


def gpu_lock_path() -> str:
    """The lock file: ``gpu.lock`` in ``$FFI_TEST_LOCK_DIR`` (or the reference's
    ``$TVM_FFI_TEST_LOCK_DIR``), by default in a per-user directory under the temporary directory,
    so that users of one machine do not share (and cannot block) each other's lock. The directory
    is created when missing."""
    lock_dir = os.environ.get("FFI_TEST_LOCK_DIR") or os.environ.get("TVM_FFI_TEST_LOCK_DIR")
    if lock_dir:
        lock_dir = os.path.expanduser(lock_dir)
    else:
        try:
            user = getpass.getuser()
        except Exception:  # no login name (containers): the uid names the directory
            user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
        lock_dir = os.path.join(tempfile.gettempdir(), f"ffi-test-locks-{user}")
    os.makedirs(lock_dir, exist_ok=True)
    return os.path.join(lock_dir, "gpu.lock")


def run_with_gpu_lock(func: Callable[..., _R], /, *args: Any, **kwargs: Any) -> _R:
    """Call ``func(*args, **kwargs)`` holding the machine's GPU lock, and return its result.

    Put the whole life of the device work inside `func` (allocation, launches, synchronization,
    checks); leave work that does not touch the device, such as compiling, outside it so that it
    still runs in parallel.
    """
    with FileLock(gpu_lock_path()):
        return func(*args, **kwargs)
