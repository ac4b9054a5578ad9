"""CUDA: build add_one.cu with ffi.cpp.build (nvcc), then call it on PyTorch CUDA tensors.

Without a GPU the library still builds and loads; calling into the CUDA runtime raises a clear
RuntimeError naming the CUDA call and error, which the script prints.

Usage: python examples/cuda/run.py [build_dir]
"""

import os
import sys

import torch

import ffi
import ffi.cpp

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    build_dir = sys.argv[1] if len(sys.argv) > 1 else None  # None: ffi's cache (~/.cache/ffi)
    lib = ffi.cpp.build(
        "add_one_cuda", cuda_files=[os.path.join(HERE, "add_one.cu")], build_directory=build_dir
    )
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
        stream.wait_stream(torch.cuda.current_stream())  # x and y were made on the default stream
        with torch.cuda.stream(stream):  # the kernel launches on PyTorch's current stream
            mod.add_one(x, y)
        stream.synchronize()
        assert torch.equal(y, x + 1), y
        print("cuda:", y.tolist())
        print("devices:", mod.device_count())
        return

    try:
        count = mod.device_count()
    except RuntimeError as err:
        print(f"no GPU: built {lib}; calling raises: RuntimeError: {err}")
    else:
        print(f"{count} GPU(s) but PyTorch has no CUDA: built {lib}; skipped the kernel call")


if __name__ == "__main__":
    main()
