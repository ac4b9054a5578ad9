"""Rust: a kernel library written in Rust, called from Python and from a Rust host.

1. cargo builds src/lib.rs as a cdylib (librust_kernels.so) and src/bin/host.rs as a program.
2. Python loads the cdylib with ffi.load_module and calls it with PyTorch tensors and NumPy
   arrays; keyword arguments and the signature come from the export's metadata.
3. The Rust host loads the same library and calls it with tensors over Rust buffers.
4. The quickstart's C++ host (examples/quickstart/host.cc) loads it too, as it would a C++ one.

Usage: python examples/rust/run.py [target_dir]
"""

import inspect
import os
import subprocess
import sys

import numpy as np
import torch

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))


def cargo_build(target_dir: str) -> None:
    """Builds the library and the host into `target_dir`, against the installed runtime."""
    libdir = subprocess.check_output(
        [sys.executable, "-m", "ffi.config", "--libdir"], text=True
    ).strip()
    env = dict(os.environ, FFI_LIBDIR=libdir, CARGO_TARGET_DIR=target_dir)
    subprocess.run(["cargo", "build", "--quiet", "--offline"], cwd=HERE, env=env, check=True)


def cxx_host(out: str) -> str:
    """Compiles the quickstart's C++ host against the installed headers and runtime."""
    flags = subprocess.check_output(
        [sys.executable, "-m", "ffi.config", "--cflags", "--ldflags", "--libs"], text=True
    ).split()
    source = os.path.join(HERE, "..", "quickstart", "host.cc")
    cxx = os.environ.get("CXX", "c++")
    subprocess.run([cxx, "-std=c++17", "-O1", source, "-o", out, *flags], check=True)
    return out


def main() -> None:
    target_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "target"))
    cargo_build(target_dir)
    library = os.path.join(target_dir, "debug", "librust_kernels.so")

    mod = ffi.load_module(library)
    print(f"signature: scale{inspect.signature(mod.scale)}")

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = torch.empty_like(x)
    mod.add_one(x, y)
    print(f"torch: {y.tolist()}")

    scaled = mod.scale(x, alpha=0.5)
    print(f"scale returned {type(scaled).__module__}.{type(scaled).__name__}: {scaled.tolist()}")

    a = np.ones(4, dtype=np.float32)
    b = np.zeros(4, dtype=np.float32)
    mod.add_one(a, b)
    print(f"numpy: {b.tolist()}")

    try:
        mod.add_one(x, torch.empty(4))
    except ValueError as error:
        print(f"error: {error}")

    host = os.path.join(target_dir, "debug", "host")
    sys.stdout.flush()
    subprocess.run([host, library], check=True)
    subprocess.run([cxx_host(os.path.join(target_dir, "cxx_host")), library], check=True)


if __name__ == "__main__":
    main()
