"""What nanobind's stable ABI (abi3) costs a call: benchmarks/nb_baseline.cc built twice for one
CPython 3.12+ interpreter, for its own version and for the stable ABI, and each row's instructions
per call counted by callgrind (callgrind.py).

Usage: python benchmarks/bench_stable_abi.py [--python PY] [--calls N]

The interpreter needs nanobind, CMake and ninja; valgrind must be on PATH.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys

import callgrind

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench", "stable_abi")
ROWS = [
    ("no arguments", "f.nop()"),
    ("three ints", "f.add3(1, 2, 3)"),
    ("list of three ints", "f.sum_ints(l3)"),
    ("an object returned", "f.make_point(3)"),
]


def build(python: str, stable: bool) -> str:
    out = os.path.join(BUILD, "abi3" if stable else "full")
    cmake = [
        "cmake",
        "-S",
        os.path.join(ROOT, "benchmarks"),
        "-B",
        out,
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DPython_EXECUTABLE={python}",
        f"-DFFI_BENCH_STABLE_ABI={'ON' if stable else 'OFF'}",
    ]
    subprocess.check_call(cmake, stdout=subprocess.DEVNULL)
    subprocess.check_call(["cmake", "--build", out], stdout=subprocess.DEVNULL)
    (module,) = glob.glob(os.path.join(out, "nb_baseline*.so"))
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    dirs = {s: os.path.dirname(build(args.python, s)) for s in (False, True)}
    print("| row | full ABI (Ir/call) | stable ABI (Ir/call) | stable ÷ full |")
    print("| --- | ---: | ---: | ---: |")
    for name, stmt in ROWS:
        per_call = {}
        for stable, module_dir in dirs.items():
            setup = (
                f"import sys; sys.path.insert(0, {module_dir!r}); import nb_baseline as f\n"
                "l3 = [1, 2, 3]"
            )
            per_call[stable] = callgrind.per_call(args.python, setup, stmt, args.calls)
        full, abi3 = per_call[False], per_call[True]
        print(f"| {name} | {full:,.0f} | {abi3:,.0f} | {abi3 / full:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
