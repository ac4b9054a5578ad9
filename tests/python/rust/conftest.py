"""Fixtures of the Rust tests: the kernel library rust/test-kernels (a ``cdylib`` written with the
``ffi`` crate's ``#[ffi::export]``), built once per session by cargo against the installed
package's runtime, and loaded by our runtime."""

import os
import shutil
import subprocess
import sys

import pytest
from support.cargo import RUST_DIR, TARGET_DIR, cargo_env

#: The library's file name, by platform.
LIBRARY_NAME = {"darwin": "libffi_test_kernels.dylib", "win32": "ffi_test_kernels.dll"}.get(
    sys.platform, "libffi_test_kernels.so"
)


@pytest.fixture(scope="session")
def rust_kernels_path(tmp_path_factory):
    """rust/test-kernels built by cargo (offline, debug), copied to a file of the session's own
    (so that a later build never rewrites a library this process has loaded). Skipped where cargo
    is not installed; a failed build fails the tests with cargo's output. Under pytest-xdist each
    worker runs cargo: cargo's lock on the target directory makes the second a no-op."""
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: the Rust kernel library cannot be built")
    proc = subprocess.run(
        [cargo, "build", "--offline", "-p", "ffi-test-kernels"],
        cwd=RUST_DIR,
        env=cargo_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        pytest.fail(f"cargo build of rust/test-kernels failed:\n{proc.stdout}\n{proc.stderr}")
    built = os.path.join(TARGET_DIR, "debug", LIBRARY_NAME)
    assert os.path.isfile(built), f"cargo reported success but {built} is missing"
    path = str(tmp_path_factory.mktemp("rust_kernels") / LIBRARY_NAME)
    shutil.copyfile(built, path)
    return path


@pytest.fixture(scope="session")
def rust_mod(rust_kernels_path):
    """The Rust kernel library loaded by our runtime (``ffi.load_module``)."""
    import ffi

    return ffi.load_module(rust_kernels_path)
