"""ffi.utils.lockfile.FileLock: the reference's advisory file lock (ffi.cpp builds take it)."""

import subprocess
import sys
import threading

import pytest

from ffi.utils.lockfile import FileLock


def test_acquire_release_and_exclusion(tmp_path):
    path = str(tmp_path / "a.lock")
    first, second = FileLock(path), FileLock(path)
    assert first.acquire() is True and first.locked
    # Held: another instance cannot take it, and this one does not take it twice.
    assert second.acquire() is False and not second.locked
    assert first.acquire() is False
    with pytest.raises(RuntimeError, match="already held"):
        first.blocking_acquire(timeout=0)
    with pytest.raises(TimeoutError, match="within 0.2 s"):
        second.blocking_acquire(timeout=0.2, poll_interval=0.01)
    first.release()
    first.release()  # releasing a lock not held does nothing
    assert second.acquire() is True
    second.release()


def test_context_manager_releases_on_error(tmp_path):
    path = str(tmp_path / "b.lock")
    with pytest.raises(KeyError):
        with FileLock(path) as lock:
            assert lock.locked and not FileLock(path).acquire()
            raise KeyError("inside")
    assert not lock.locked
    other = FileLock(path)
    assert other.acquire() is True
    other.release()


def test_threads_wait_for_each_other(tmp_path):
    path = str(tmp_path / "c.lock")
    inside, overlaps = [0], []

    def work():
        with FileLock(path):
            inside[0] += 1
            overlaps.append(inside[0])
            inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [1] * 8


def test_another_process_holds_it(tmp_path):
    path = str(tmp_path / "d.lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from ffi.utils.lockfile import FileLock\n"
            f"lock = FileLock({path!r}); assert lock.acquire(); print('held', flush=True)\n"
            "sys.stdin.readline()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert FileLock(path).acquire() is False
    finally:
        holder.communicate("\n", timeout=30)
    lock = FileLock(path)
    assert lock.blocking_acquire(timeout=10) is True
    lock.release()


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        FileLock(str(tmp_path / "no" / "such" / "dir.lock")).acquire()
