"""Cubin launcher: build the CMake project (a fatbin embedded into a host-compiled library), then
call its kernel on PyTorch CUDA tensors.

Without a GPU the library still builds and loads; the first launch raises a clear RuntimeError
naming the CUDA error when the fatbin is loaded (preload), which the script prints.

Usage: python examples/cuda/cubin/run.py <build_dir>
"""

import os
import subprocess
import sys

import torch

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))


def cmake_build(build_dir: str) -> str:
    ffi_dir = subprocess.check_output(
        [sys.executable, "-m", "ffi.config", "--cmakedir"], text=True
    ).strip()
    configure = ["cmake", "-S", HERE, "-B", build_dir, f"-Dffi_DIR={ffi_dir}"]
    subprocess.run(configure, check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", build_dir], check=True, stdout=sys.stderr)
    return os.path.join(build_dir, "ops.so")


def main() -> None:
    lib = cmake_build(sys.argv[1])
    mod = ffi.load_module(lib)
    print(mod.add_one)

    # Arguments are checked before any CUDA call, so this works on any machine.
    try:
        mod.add_one(torch.zeros(3), torch.zeros(3))
    except ValueError as err:
        print("ValueError:", err)

    if torch.cuda.is_available():
        x = torch.arange(8, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # the kernel launches on PyTorch's current stream
            mod.add_one(x, y)
        stream.synchronize()
        assert torch.equal(y, x + 1), y
        print("cuda:", y.tolist())
        return

    # No usable GPU: loading the embedded fatbin fails with an error that says why.
    try:
        mod.preload()
    except RuntimeError as err:
        print(f"no GPU: RuntimeError: {err}")
    else:
        print("GPU present but PyTorch has no CUDA: the fatbin loaded; skipped the kernel call")


if __name__ == "__main__":
    main()
