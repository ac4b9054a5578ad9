"""Building the Rust crates (rust/) from the tests: where, and with which environment."""

import os
import subprocess
import sys

from support.paths import ROOT

#: The Cargo workspace.
RUST_DIR = os.path.join(ROOT, "rust")
#: Where the tests build: a target directory of their own under rust/target, kept between runs
#: (cargo rebuilds only what changed) and apart from the one a developer's cargo uses.
TARGET_DIR = os.path.join(RUST_DIR, "target", "python-tests")


def runtime_libdir() -> str:
    """The installed package's runtime directory, as the crates' build script finds it."""
    out = subprocess.run(
        [sys.executable, "-m", "ffi.config", "--libdir"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def cargo_env() -> dict:
    """The environment for cargo: this interpreter's runtime (FFI_LIBDIR, PYTHON), the tests'
    target directory, and no LD_LIBRARY_PATH (programs must find the runtime by themselves)."""
    env = dict(os.environ, FFI_LIBDIR=runtime_libdir(), PYTHON=sys.executable)
    env["CARGO_TARGET_DIR"] = TARGET_DIR
    env.pop("LD_LIBRARY_PATH", None)
    return env
