"""What a call into a Rust kernel library costs next to the same kernels in C++: the exports of
benchmarks/kernels.cc (built with the headers) and their twins in benchmarks/rust_kernels
(#[ffi::export], cargo --release), called from Python with the same arguments, on our runtime
(`ffi`) and on the reference's (`tvm_ffi`), which loads the same two libraries. Instructions per
call counted by callgrind (callgrind.py).

Usage: python benchmarks/bench_rust.py [--calls N]

Needs cargo, a C++ compiler and valgrind; the reference package for its columns.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import callgrind

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench", "rust")
ROWS = [
    ("no arguments", "f.nop()"),
    ("three ints", "f.add3(1, 2, 3)"),
    ("three NumPy arrays", "f.tensors3(a, a, a)"),
    ("list of three ints", "f.sum_ints(l3)"),
]


def config(flag: str) -> str:
    return subprocess.check_output([sys.executable, "-m", "ffi.config", flag], text=True).strip()


def build_cpp() -> str:
    out = os.path.join(BUILD, "kernels_cpp.so")
    cxx = os.environ.get("CXX", "c++")
    source = os.path.join(ROOT, "benchmarks", "kernels.cc")
    subprocess.check_call(
        [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", f"-I{config('--includedir')}", source]
        + ["-o", out]
    )
    return out


def build_rust() -> str:
    env = dict(os.environ, FFI_LIBDIR=config("--libdir"), CARGO_TARGET_DIR=BUILD)
    crate = os.path.join(ROOT, "benchmarks", "rust_kernels")
    subprocess.check_call(["cargo", "build", "--release", "--offline", "-q"], cwd=crate, env=env)
    return os.path.join(BUILD, "release", "libbench_rust_kernels.so")


def per_call(package: str, library: str, stmt: str, calls: int) -> float:
    setup = (
        f"import numpy as np, {package} as pkg\n"
        f"f = pkg.load_module({library!r}); a = np.zeros(4, np.float32); l3 = [1, 2, 3]"
    )
    return callgrind.per_call(sys.executable, setup, stmt, calls)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    os.makedirs(BUILD, exist_ok=True)
    libraries = {"C++": build_cpp(), "Rust": build_rust()}
    packages = ["ffi"]
    if (
        subprocess.run([sys.executable, "-c", "import tvm_ffi"], capture_output=True).returncode
        == 0
    ):
        packages.append("tvm_ffi")
    header = "| row | runtime | C++ (Ir/call) | Rust (Ir/call) | Rust ÷ C++ |"
    print(header)
    print("| --- | --- | ---: | ---: | ---: |")
    for name, stmt in ROWS:
        for package in packages:
            cpp, rust = (per_call(package, libraries[k], stmt, args.calls) for k in ("C++", "Rust"))
            runtime = "ours" if package == "ffi" else "reference"
            print(f"| {name} | {runtime} | {cpp:,.0f} | {rust:,.0f} | {rust / cpp:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
