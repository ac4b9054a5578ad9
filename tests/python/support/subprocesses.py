"""Code run in a fresh interpreter: what a process-wide state (signals, exit, a second runtime)
must not leak into the test session."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def run_python(
    code: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (with `env` added to this one's environment); a deadlock
    shows up as a timeout, not a hung suite."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )


def sigint_during_poll(lib_path: str, first: str = "") -> str:
    """Runs `poll_signals(60_000)` of the library at `lib_path` in a fresh Python (after the
    statement `first`), sending it SIGINT after 0.2 s: what it printed."""
    proc = run_python(
        f"""
        import os, signal, threading
        {first}
        import ffi
        # A job started in the background by a non-interactive shell (CI) inherits SIGINT ignored,
        # and Python then installs no handler: install Python's own explicitly.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        mod = ffi.load_module({lib_path!r})
        threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            mod.poll_signals(60_000)
        except KeyboardInterrupt:
            print("interrupted")
        else:
            print("not interrupted")
        """
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()
