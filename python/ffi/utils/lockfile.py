"""An advisory lock on a file shared by processes and threads (the reference's
``tvm_ffi.utils.lockfile``): ``ffi.cpp`` holds one while it builds a library into a cache
directory, so concurrent builds of one library do the work once."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from typing import Any

__all__ = ["FileLock"]


class FileLock:
    """An exclusive ``flock`` on `lock_file_path` (created when missing)::

        with FileLock("/tmp/my.lock"):      # waits as long as it takes
            ...
        lock = FileLock("/tmp/my.lock")
        if lock.acquire():                  # or blocking_acquire(timeout=10)
            try:
                ...
            finally:
                lock.release()

    The lock belongs to the open file, so two instances (in two threads or two processes)
    exclude each other; one instance holds it at most once. Advisory: only code that takes the
    lock is kept out.
    """

    def __init__(self, lock_file_path: str) -> None:
        self.lock_file_path = lock_file_path
        self._file_descriptor: int | None = None

    @property
    def locked(self) -> bool:
        """Whether this instance holds the lock."""
        return self._file_descriptor is not None

    def acquire(self) -> bool:
        """Take the lock without waiting: True when taken, False when it is held (by another
        instance, or already by this one). Errors other than contention (no such directory, no
        permission) are raised as OSError."""
        if self._file_descriptor is not None:
            return False
        fd = os.open(self.lock_file_path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno in (errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._file_descriptor = fd
        return True

    def blocking_acquire(self, timeout: float | None = None, poll_interval: float = 0.1) -> bool:
        """Take the lock, trying every `poll_interval` seconds; True once taken. TimeoutError
        after `timeout` seconds (None: wait as long as it takes); RuntimeError when this instance
        holds it already (waiting would never end)."""
        if self._file_descriptor is not None:
            raise RuntimeError(f"the lock {self.lock_file_path} is already held by this FileLock")
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.acquire():
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(
                    f"could not take the lock {self.lock_file_path} within {timeout} s"
                )
            time.sleep(poll_interval)
        return True

    def release(self) -> None:
        """Give the lock up; nothing happens when this instance does not hold it."""
        if self._file_descriptor is None:
            return
        fd, self._file_descriptor = self._file_descriptor, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.blocking_acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
