"""The GIL is released around calls (by default), so other Python threads run during a kernel and
a kernel's worker threads can call back into Python; signal checks never deadlock and Ctrl-C
reaches a kernel that polls for it."""

import threading

import pytest
from support.markers import FREE_THREADED
from support.subprocesses import run_python, sigint_during_poll

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_other_threads_run_during_a_call(rmod):
    # The kernel waits for a flag that only another Python thread sets: it can only be set if
    # the caller released the GIL.
    setter = threading.Thread(target=rmod.set_flag)
    timer = threading.Timer(0.05, setter.start)
    timer.start()
    assert rmod.wait_for_flag(60_000) is True
    timer.join()
    setter.join()


def test_keep_gil_is_an_explicit_opt_in(rmod):
    f = rmod.get_function("wait_for_flag")
    assert f.keep_gil is False
    f.keep_gil = True
    assert f.keep_gil is True
    # With the GIL kept, no other Python thread can set the flag during the call; without a GIL
    # (a free-threaded interpreter) it can.
    setter = threading.Timer(0.1, rmod.set_flag)
    setter.start()
    assert f(500) is FREE_THREADED
    setter.join()
    with pytest.raises(TypeError):
        f.keep_gil = 1


def test_worker_thread_calls_python_callback(rmod):
    assert rmod.callback_from_worker(lambda i: i * 2, 100) == 2 * sum(range(100))


def test_worker_thread_callback_raises(rmod):
    def cb(i):
        raise KeyError(f"boom {i}")

    with pytest.raises(KeyError, match="boom 0"):
        rmod.callback_from_worker(cb, 3)


@pytest.mark.parametrize("keep_gil", [False, True])
def test_signal_check_from_worker_never_deadlocks(reliability_path, keep_gil):
    proc = run_python(
        f"""
        import ffi
        mod = ffi.load_module({reliability_path!r})
        f = mod.get_function("check_signals_from_worker")
        f.keep_gil = {keep_gil}
        print(f())
        """,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"


def test_sigint_interrupts_a_polling_kernel(reliability_path):
    assert sigint_during_poll(reliability_path) == "interrupted"


def test_concurrent_calls_with_callbacks_and_tensors(rmod, mod):
    torch = pytest.importorskip("torch")  # the other interpreters' legs have no PyTorch

    errors = []

    def work(seed):
        try:
            for _ in range(200):
                assert rmod.callback_from_worker(lambda i: i + seed, 3) == 3 + 3 * seed
                x = torch.full((8,), float(seed))
                assert mod.sum_any(x) == 8 * seed
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_exit_with_a_python_error_left_in_a_thread_slot(reliability_path, tmp_path):
    # A callback's exception becomes an FFI error carrying the Python exception; one left raised
    # in a thread's slot at exit (and one held by a C++ static) must not crash the exit.
    proc = run_python(
        f"""
        import threading
        import ffi
        mod = ffi.load_module({reliability_path!r})
        def cb(i):
            raise ValueError("left behind")
        def worker():
            try:
                mod.callback_from_worker(cb, 1)
            except ValueError:
                pass
        t = threading.Thread(target=worker); t.start(); t.join()
        keep = ffi.convert(lambda: None)
        def raises():
            raise KeyError("held by a C++ static")
        assert mod.stash_error(raises)
        mod.stash_function(lambda: 1)
        print("done")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    assert "Fatal" not in proc.stderr and "Segmentation" not in proc.stderr


@pytest.mark.parametrize("keep_gil", [False, True])
def test_exit_while_daemon_threads_are_in_callbacks(kernels_path, keep_gil):
    # At exit CPython ends a daemon thread that retakes the GIL with pthread_exit, which unwinds
    # through the kernel's exported function and the callback's: the unwind must pass (it used to
    # be caught as an error and crash the exit), and the call it unwinds through must not release
    # its temporaries (with CPython 3.12+ the thread has no thread state then: that crashed).
    # Several runs: the timing varies.
    code = f"""
        import threading, time
        import ffi
        mod = ffi.load_module({kernels_path!r})
        call_with = mod.get_function("call_with")
        call_with.keep_gil = {keep_gil}  # the GIL is retaken in the callback's sleep either way
        def worker():
            while True:
                call_with(lambda x: time.sleep(0.001) or x, 1)
        for _ in range(4):
            threading.Thread(target=worker, daemon=True).start()
        time.sleep(0.2)
        print("exiting")
        """
    for _ in range(3):
        proc = run_python(code)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "exiting"
