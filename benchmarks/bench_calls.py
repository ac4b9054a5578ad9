"""Side-by-side call overhead: ffi vs the reference package (apache-tvm-ffi) vs plain nanobind.

Usage: python benchmarks/bench_calls.py [--rounds N]

Builds the kernel library (with ffi's headers; both packages load the same binary) and a plain
nanobind module into build/bench, then runs each implementation in its own interpreter (the two
FFI runtimes export the same C symbols and cannot share a process), interleaving rounds and
keeping each case's best time. Prints a Markdown table of nanoseconds per call and ratios.
Absolute times drift on shared machines; the ratios from one run are what to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench")

CASES = [
    ("no arguments", "f.nop()"),
    ("three ints", "f.add3(1, 2, 3)"),
    ("no arguments, keep_gil=True (ffi only)", "g.nop()"),
    ("three ints, keep_gil=True (ffi only)", "g.add3(1, 2, 3)"),
    ("three PyTorch tensors", "f.tensors3(tx, tx, tx)"),
    ("three NumPy arrays", "f.tensors3(na, na, na)"),
    ("three ffi.Tensor", "f.tensors3(ft, ft, ft)"),
    ("from_dlpack(PyTorch)", "from_dlpack(tx)"),
    ("from_dlpack(NumPy)", "from_dlpack(na)"),
    # A reflected int field of an object returned by the kernel library (nanobind: def_rw).
    ("field access", "pt.x"),
    ("list of three ints", "f.sum_ints(l3)"),
    ("dict of two entries", "f.map_len(d2)"),
    ("list of 10,000 ints", "f.sum_ints(l10k)"),
]
# Calls per timing for the cases too slow for the default.
NUMBER = {"list of 10,000 ints": 200}
IMPLS = ["ffi", "tvm_ffi", "nanobind"]


def build() -> tuple[str, str]:
    os.makedirs(BUILD, exist_ok=True)
    kernel = os.path.join(BUILD, "bench_kernels.so")
    cflags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    src = os.path.join(ROOT, "benchmarks", "kernels.cc")
    subprocess.check_call(
        ["g++", "-std=c++17", "-O2", "-shared", "-fPIC", *cflags, src, "-o", kernel]
    )
    nb_build = os.path.join(BUILD, "nanobind")
    subprocess.check_call(
        [
            "cmake",
            "-S",
            os.path.join(ROOT, "benchmarks"),
            "-B",
            nb_build,
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython_EXECUTABLE={sys.executable}",
        ],
        stdout=subprocess.DEVNULL,
    )
    subprocess.check_call(["cmake", "--build", nb_build], stdout=subprocess.DEVNULL)
    return kernel, nb_build


def worker(impl: str, kernel: str, nb_build: str) -> dict[str, float]:
    import numpy as np
    import torch

    env: dict = {"tx": torch.zeros(16), "na": np.zeros(16, dtype=np.float32)}
    env.update(l3=[1, 2, 3], d2={"a": 1, "b": 2}, l10k=list(range(10000)))
    if impl == "nanobind":
        sys.path.insert(0, nb_build)
        import nb_baseline

        env["f"] = nb_baseline
        cases = [
            c
            for c in CASES
            if "ffi.Tensor" not in c[0] and "from_dlpack" not in c[0] and "keep_gil" not in c[0]
        ]
    else:
        mod = __import__(impl)
        env["f"] = mod.load_module(kernel)
        env["from_dlpack"] = mod.from_dlpack
        env["ft"] = mod.from_dlpack(env["tx"])
        cases = [c for c in CASES if "keep_gil" not in c[0] or impl == "ffi"]
        if impl == "ffi":
            # The opt-in fast path: functions that keep the GIL during the call.
            import types

            g = types.SimpleNamespace(
                nop=env["f"].get_function("nop"), add3=env["f"].get_function("add3")
            )
            g.nop.keep_gil = g.add3.keep_gil = True
            env["g"] = g
    env["pt"] = env["f"].make_point(3)
    out = {}
    for name, stmt in cases:
        timer = timeit.Timer(stmt, globals=env)
        number = NUMBER.get(name) or max(1000, int(200000 / 10 ** max(0, len(stmt) // 40)))
        out[name] = min(timer.repeat(repeat=7, number=number)) / number * 1e9
    return out


def import_time(module: str, runs: int = 15) -> float:
    """Best wall time of `import <module>`, timed inside a fresh interpreter (start-up excluded)."""

    def best(code: str) -> float:
        prog = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
        return min(
            float(subprocess.check_output([sys.executable, "-c", prog], text=True))
            for _ in range(runs)
        )

    return best(f"import {module}") * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", choices=IMPLS)
    parser.add_argument("--kernel")
    parser.add_argument("--nb-build")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.kernel, args.nb_build)))
        return
    kernel, nb_build = build()
    best: dict[str, dict[str, float]] = {impl: {} for impl in IMPLS}
    for _ in range(args.rounds):
        for impl in IMPLS:
            out = subprocess.check_output(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    impl,
                    "--kernel",
                    kernel,
                    "--nb-build",
                    nb_build,
                ],
                text=True,
            )
            for case, ns in json.loads(out).items():
                best[impl][case] = min(ns, best[impl].get(case, float("inf")))
    for impl, module in [("ffi", "ffi"), ("tvm_ffi", "tvm_ffi")]:
        best[impl]["import (with PyTorch installed)"] = import_time(module)

    def fmt(v: float | None) -> str:
        if v is None:
            return "n/a"
        return f"{v / 1e6:,.1f} ms" if v >= 1e6 else f"{v:,.0f}"

    print("| case | ffi (ns) | reference (ns) | nanobind (ns) | ffi ÷ reference | ffi ÷ nanobind |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for case in list(best["ffi"]):
        ours, ref, nb = best["ffi"][case], best["tvm_ffi"].get(case), best["nanobind"].get(case)
        r_ref = f"{ours / ref:.2f}" if ref else "n/a"
        r_nb = f"{ours / nb:.2f}" if nb else "n/a"
        print(f"| {case} | {fmt(ours)} | {fmt(ref)} | {fmt(nb)} | {r_ref} | {r_nb} |")


if __name__ == "__main__":
    main()
