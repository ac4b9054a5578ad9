"""Quickstart: one kernel (add_one.cc), built two ways and called from three hosts.

1. CMake builds add_one.so with the headers alone (ffi::headers), plus two hosts that link the
   runtime (ffi::runtime): host (C++) and host_c (plain C, the stable C ABI only).
2. Python loads add_one.so and calls it with PyTorch tensors and NumPy arrays.
3. ffi.cpp.load_inline compiles the same source text and Python calls that build too.
4. The C++ and C hosts load add_one.so themselves and call it.

Usage: python examples/quickstart/run.py [build_dir]
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

import ffi
import ffi.cpp

HERE = os.path.dirname(os.path.abspath(__file__))


def cmake_build(build_dir: str) -> None:
    """Configure and build the CMake project (add_one.so, host, host_c) into `build_dir`."""
    ffi_dir = subprocess.check_output(
        [sys.executable, "-m", "ffi.config", "--cmakedir"], text=True
    ).strip()
    configure = ["cmake", "-S", HERE, "-B", build_dir, f"-Dffi_DIR={ffi_dir}"]
    configure.append("-DCMAKE_BUILD_TYPE=Release")
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    # CMake's progress goes to stderr so that stdout holds only the example's results.
    subprocess.run(configure, check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", build_dir], check=True, stdout=sys.stderr)


def inline_source() -> str:
    """add_one.cc without its include and export lines, which load_inline writes itself."""
    with open(os.path.join(HERE, "add_one.cc"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    skip = ("#include <ffi/ffi.h>", "FFI_DLL_EXPORT_TYPED_FUNC(")
    return "\n".join(line for line in lines if not line.startswith(skip)) + "\n"


def run_host(build_dir: str, host: str) -> None:
    """Runs a host program on add_one.so and passes its output through."""
    cmd = [os.path.join(build_dir, host), os.path.join(build_dir, "add_one.so")]
    print(subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True).stdout, end="")


def main() -> None:
    build_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    cmake_build(build_dir)
    mod = ffi.load_module(os.path.join(build_dir, "add_one.so"))
    print(mod.add_one)  # the signature travels with the library

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = torch.empty_like(x)
    mod.add_one(x, y)  # zero-copy: the kernel writes into y's memory
    print("torch:", y.tolist())

    a = np.linspace(0, 1, 4, dtype=np.float32)
    b = np.empty_like(a)
    mod.add_one(a, b)
    print("numpy:", b.tolist())

    try:
        mod.add_one(torch.zeros(3, dtype=torch.float64), torch.zeros(3))
    except TypeError as err:
        print("error:", err)

    # The same kernel from source text: load_inline adds `#include <ffi/ffi.h>` and
    # FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one), compiles, caches (~/.cache/ffi, or
    # $FFI_CACHE_DIR) and loads the library.
    inline = ffi.cpp.load_inline(
        name="add_one_inline", cpp_sources=inline_source(), functions=["add_one"]
    )
    y = torch.zeros(2, 3)
    inline.add_one(x, y)
    print("load_inline torch:", y.tolist())

    # The same add_one.so from C++ (host.cc) and from C (host.c), each loading it itself.
    run_host(build_dir, "host")
    run_host(build_dir, "host_c")


if __name__ == "__main__":
    main()
