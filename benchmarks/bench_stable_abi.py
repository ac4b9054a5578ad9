"""What nanobind's stable ABI (abi3) costs a call: benchmarks/nb_baseline.cc built twice for one
CPython 3.12+ interpreter, for its own version and for the stable ABI, and each row's instructions
per call counted by callgrind ((Ir of 2N calls - Ir of N calls) / N, so start-up cancels).

Usage: python benchmarks/bench_stable_abi.py [--python PY] [--calls N]

The interpreter needs nanobind, CMake and ninja; valgrind must be on PATH.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile

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


def instructions(python: str, module_dir: str, stmt: str, calls: int) -> int:
    code = (
        f"import sys; sys.path.insert(0, {module_dir!r}); import nb_baseline as f; l3 = [1, 2, 3]\n"
        f"for _ in range({calls}): {stmt}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.check_call(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, "-c", code],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


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
            n = args.calls
            one = instructions(args.python, module_dir, stmt, n)
            two = instructions(args.python, module_dir, stmt, 2 * n)
            per_call[stable] = (two - one) / n
        full, abi3 = per_call[False], per_call[True]
        print(f"| {name} | {full:,.0f} | {abi3:,.0f} | {abi3 / full:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
