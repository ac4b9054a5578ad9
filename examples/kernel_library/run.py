"""Kernel library: build kernels.cc and a C++ host with CMake, then call the kernels from
PyTorch, NumPy and C++.

Usage: python examples/kernel_library/run.py [build_dir]
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))


def cmake_build(build_dir: str) -> None:
    """Configure and build the CMake project (kernels.so and host) into `build_dir`."""
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


def main() -> None:
    build_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    cmake_build(build_dir)
    mod = ffi.load_module(os.path.join(build_dir, "kernels.so"))
    print(mod.scale_add)  # the signature travels with the library

    # PyTorch: the caller allocates the output and the workspace; None is an empty Optional.
    x = torch.arange(4, dtype=torch.float32)
    out = torch.empty_like(x)
    workspace = torch.empty(4, dtype=torch.float32)
    mod.scale_add(x, None, out, workspace)
    print("torch, no bias:", out.tolist())
    mod.scale_add(x, torch.full((4,), 0.5), out, workspace)
    print("torch, bias:", out.tolist())

    # NumPy arrays pass the same way (zero-copy), any shape.
    a = np.ones((2, 3), dtype=np.float32)
    b = np.empty_like(a)
    mod.scale_add(a, a, b, np.empty(6, dtype=np.float32))
    print("numpy:", b.tolist())

    # The kernel validates its arguments; errors arrive as the matching Python exception.
    try:
        mod.scale_add(x.double(), None, out, workspace)
    except TypeError as err:
        print("TypeError:", err)
    try:
        mod.scale_add(x, None, torch.empty(3), workspace)
    except ValueError as err:
        print("ValueError:", err)

    # A tensor returned to a call that passed PyTorch tensors arrives as a torch.Tensor, without
    # copying (the kernel allocated it with PyTorch's allocator). Called with NumPy arrays, it is an
    # ffi.Tensor, which any DLPack consumer takes without copying.
    t = mod.scale_add_alloc(x, None)
    print("returned to torch:", type(t).__name__, t.tolist())
    n = np.from_dlpack(mod.scale_add_alloc(a, None))
    print("returned to numpy:", n.dtype, n.shape, n.tolist())

    # The same library from C++: host.cc links the runtime and loads kernels.so itself.
    host = os.path.join(build_dir, "host")
    lib = os.path.join(build_dir, "kernels.so")
    print(subprocess.run([host, lib], stdout=subprocess.PIPE, text=True, check=True).stdout, end="")


if __name__ == "__main__":
    main()
