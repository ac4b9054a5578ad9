"""Running test code on several threads: workers started together, and a background step
repeated while they run."""

import contextlib
import itertools
import sys
import threading


def run_in_threads(work, threads):
    """Runs `work(thread_index)` on `threads` threads started together; re-raises the first
    exception any of them raised."""
    start = threading.Barrier(threads)
    errors = []

    def body(i):
        try:
            start.wait()
            work(i)
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the test's thread
            errors.append(e)

    pool = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]


@contextlib.contextmanager
def meanwhile(step, switch_interval=None):
    """Calls `step(round)` (rounds 0, 1, ...) over and over on a thread of its own while the block
    runs, and re-raises what it raised. With `switch_interval`, the interpreter switches threads
    that often meanwhile (a tiny one makes threads interleave inside short calls)."""
    stop, errors = threading.Event(), []

    def loop():
        try:
            for r in itertools.count():
                if stop.is_set():
                    return
                step(r)
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the test's thread
            errors.append(e)

    previous = sys.getswitchinterval()
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    thread = threading.Thread(target=loop)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(previous)
    if errors:
        raise errors[0]
