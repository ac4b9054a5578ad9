"""Quickstart: build a kernel with the headers alone, then call it with PyTorch and NumPy.

Usage: python examples/quickstart/run.py [build_dir]
"""

import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np
import torch

import ffi

HERE = os.path.dirname(os.path.abspath(__file__))


def build(out_dir: str) -> str:
    lib = os.path.join(out_dir, "add_one.so")
    cflags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    cmd = ["g++", "-std=c++17", "-O2", "-shared", "-fPIC", *cflags, f"{HERE}/add_one.cc", "-o", lib]
    subprocess.check_call(cmd)
    return lib


def main() -> None:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    mod = ffi.load_module(build(out_dir))
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


if __name__ == "__main__":
    main()
