"""Side-by-side call overhead: ffi vs the reference package (apache-tvm-ffi) vs plain nanobind.

Usage: python benchmarks/bench_calls.py [--rounds N] [--gpu auto|on|off]
       python benchmarks/bench_calls.py --callgrind ROW [--calls N]

Builds the kernel library (with ffi's headers; both packages load the same binary) and a plain
nanobind module into build/bench, then runs each implementation in its own interpreter (the two
FFI runtimes export the same C symbols and cannot share a process), interleaving rounds and
keeping each case's best time (the thread's CPU time, so preemption on a shared machine does not
count). Prints a Markdown table of nanoseconds per call and ratios.

For the plain call rows the nanobind column is the floor too: a nanobind function releasing the GIL
around its body, as both FFIs do around a call (the keep_gil rows compare with one that keeps it);
so is it for the tensor-returning row, whose floor allocates with the GIL released;
for field access it is a nanobind `def_rw` attribute. For PyTorch tensors the nanobind column is the
floor: functions that only call PyTorch's own DLPack exchange API
(`torch.Tensor.__dlpack_c_exchange_api__`) on each tensor, which any FFI taking PyTorch tensors must
call too. Beside each such row: the floor as a fraction of the reference (above 0.5, half the
reference's time cannot be reached) and each package's time above the floor per tensor. The cost of
one more tensor is the least-squares slope over calls with 1 to 32 tensors. CUDA rows (three
tensors, the slope; the current-stream lookup included) are added when torch.cuda is available, or
with --gpu on.
Absolute times drift on shared machines; the ratios from one run are what to compare. With
--callgrind ROW, the row's instructions per call on each implementation instead (callgrind, start-up
cancelled out by runs of N and 2N calls): stable where times are not.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench")

# (row, statement, the nanobind statement when it differs, tensors passed). For PyTorch tensors
# the nanobind function is the floor: it only calls PyTorch's own exchange API on each tensor
# (benchmarks/nb_baseline.cc), which every FFI taking PyTorch tensors must do as well.
# Both FFIs release the GIL around a call, so their floor for the plain call rows is a nanobind
# function doing the same (nb::call_guard<nb::gil_scoped_release>); with keep_gil=True, ffi is
# compared with a plain nanobind function, which keeps it.
CASES = [
    ("no arguments", "f.nop()", "f.nop_released()", 0),
    ("three ints", "f.add3(1, 2, 3)", "f.add3_released(1, 2, 3)", 0),
    ("no arguments, keep_gil=True (ffi only)", "g.nop()", "f.nop()", 0),
    ("three ints, keep_gil=True (ffi only)", "g.add3(1, 2, 3)", "f.add3(1, 2, 3)", 0),
    ("three PyTorch tensors", "f.tensors3(tx, tx, tx)", "f.torch3(tx, tx, tx)", 3),
    # The floor keeps the GIL: this row shows what is left above it once ffi keeps it too.
    (
        "three PyTorch tensors, keep_gil=True (ffi only)",
        "g.tensors3(tx, tx, tx)",
        "f.torch3(tx, tx, tx)",
        3,
    ),
    # A kernel allocating its result (through PyTorch's allocator), to a torch.Tensor in hand.
    # The kernel runs without the GIL in both FFIs, so the floor allocates without it too
    # (PyTorch's allocator takes it again); the keep_gil row compares with a floor keeping it.
    (
        "PyTorch tensor in, torch.Tensor out",
        "r = f.make_output(tx)\nif not isinstance(r, T): r = tfd(r)",
        "r = f.make_output_released(tx)\nif not isinstance(r, T): r = tfd(r)",
        1,
    ),
    (
        "PyTorch tensor in, torch.Tensor out, keep_gil=True (ffi only)",
        "r = g.make_output(tx)\nif not isinstance(r, T): r = tfd(r)",
        "r = f.make_output(tx)\nif not isinstance(r, T): r = tfd(r)",
        1,
    ),
    ("three NumPy arrays", "f.tensors3(na, na, na)", None, 0),
    ("three ffi.Tensor", "f.tensors3(ft, ft, ft)", None, 0),
    ("from_dlpack(PyTorch)", "from_dlpack(tx)", None, 0),
    ("from_dlpack(NumPy)", "from_dlpack(na)", None, 0),
    # The floor: a nanobind object whose __dlpack__ is PyTorch's own export.
    ("torch.from_dlpack(ffi.Tensor)", "tfd(ft)", "tfd(fe)", 1),
    # A reflected int field of an object returned by the kernel library (nanobind: def_rw).
    ("field access", "pt.x", None, 0),
    ("list of three ints", "f.sum_ints(l3)", None, 0),
    ("dict of two entries", "f.map_len(d2)", None, 0),
    ("list of 10,000 ints", "f.sum_ints(l10k)", None, 0),
]
# The marginal cost of one more tensor: a kernel taking any number of arguments, called with these
# counts; the slope of a least-squares line through the times is the cost per tensor.
COUNTS = [1, 2, 4, 8, 16, 32]


def count_cases(var: str, label: str) -> list[tuple[str, str, str, int]]:
    """The rows that call with 1..32 tensors `var` (only the last one is shown in the table)."""
    rows = []
    for n in COUNTS:
        args = ", ".join([var] * n)
        rows.append((f"{n} {label}", f"f.tensors_n({args})", f"f.torch_n({args})", n))
    return rows


def gpu_cases() -> list[tuple[str, str, str, int]]:
    """CUDA tensor rows; the current-stream lookup is part of what they measure."""
    return [
        ("three CUDA tensors", "f.tensors3(tc, tc, tc)", "f.torch3(tc, tc, tc)", 3),
        *count_cases("tc", "CUDA tensors"),
    ]


IMPLS = ["ffi", "tvm_ffi", "nanobind"]
# Which way the end-to-end row got its torch.Tensor, per implementation.
PATH_KEY = "_torch_result_path"


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


# Rows whose nanobind column is a floor though they pass no tensors: a call releasing the GIL,
# and reading an int attribute (def_rw), the least any binding does for these rows.
FLOOR_ROWS = ("no arguments", "three ints", "field access")


def all_cases(gpu: bool) -> list[tuple[str, str, str | None, int]]:
    return CASES + count_cases("tx", "PyTorch tensors") + (gpu_cases() if gpu else [])


def time_case(timer: timeit.Timer, seconds: float = 0.01, repeat: int = 7) -> float:
    """Best nanoseconds per call over `repeat` timings of about `seconds` of CPU time each."""
    per_call = timer.timeit(number=20) / 20
    number = max(20, int(seconds / max(per_call, 1e-9)))
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def setup(impl: str, kernel: str, nb_build: str, gpu: bool) -> tuple[dict, list]:
    """The globals the statements run with, and this implementation's (row, statement) cases."""
    import numpy as np
    import torch

    env: dict = {"tx": torch.zeros(16), "na": np.zeros(16, dtype=np.float32)}
    env.update(l3=[1, 2, 3], d2={"a": 1, "b": 2}, l10k=list(range(10000)))
    env.update(T=torch.Tensor, tfd=torch.from_dlpack)
    if gpu:
        env["tc"] = torch.zeros(16, device="cuda")
        torch.cuda.current_stream()  # CUDA initialised before timing
    cases = all_cases(gpu)
    if impl == "nanobind":
        sys.path.insert(0, nb_build)
        import nb_baseline

        env["f"] = nb_baseline
        env["fe"] = nb_baseline.export(env["tx"])
        skip = ("ffi.Tensor", "from_dlpack", "keep_gil")
        cases = [c for c in cases if c[2] is not None or not any(s in c[0] for s in skip)]
        cases = [(name, nb or stmt, None, n) for name, stmt, nb, n in cases]
    else:
        mod = __import__(impl)
        env["f"] = mod.load_module(kernel)
        env["from_dlpack"] = mod.from_dlpack
        env["ft"] = mod.from_dlpack(env["tx"])
        cases = [c for c in cases if "keep_gil" not in c[0] or impl == "ffi"]
        if impl == "ffi":
            # The opt-in fast path: functions that keep the GIL during the call.
            import types

            g = types.SimpleNamespace(
                **{n: env["f"].get_function(n) for n in ("nop", "add3", "tensors3", "make_output")}
            )
            for fn in vars(g).values():
                fn.keep_gil = True
            env["g"] = g
    env["pt"] = env["f"].make_point(3)
    return env, [(name, stmt) for name, stmt, _, _ in cases]


def worker(impl: str, kernel: str, nb_build: str, gpu: bool) -> dict:
    import torch

    env, cases = setup(impl, kernel, nb_build, gpu)
    out: dict = {}
    result = env["f"].make_output(env["tx"])
    out[PATH_KEY] = (
        "returned as torch.Tensor"
        if isinstance(result, torch.Tensor)
        else f"returned {type(result).__module__}.{type(result).__name__}, then torch.from_dlpack"
    )
    for name, stmt in cases:
        # The thread's CPU time, not the wall clock: on a shared machine a timing that spans a
        # preemption would otherwise count the other process's time slice. No row waits.
        out[name] = time_case(timeit.Timer(stmt, globals=env, timer=time.thread_time))
    return out


def count_worker(impl: str, kernel: str, nb_build: str, row: str, calls: int) -> None:
    """Runs row `row`'s statement `calls` times (under callgrind, see instructions())."""
    env, cases = setup(impl, kernel, nb_build, False)
    stmt = dict(cases).get(row)
    if stmt is None:
        sys.exit(3)  # no such row for this implementation
    body = "".join(f"    {line}\n" for line in stmt.splitlines())
    exec(compile(f"for _ in range({calls}):\n{body}", "<row>", "exec"), env)


def instructions(row: str, kernel: str, nb_build: str, calls: int) -> dict[str, float | None]:
    """Instructions per call of `row` for each implementation, by callgrind: (Ir of a run making
    2 * `calls` calls - Ir of one making `calls`) / `calls`, so start-up cancels out."""
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result: dict[str, float | None] = {}
    for impl in IMPLS:
        counts = []
        for n in (calls, 2 * calls):
            cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
            cmd += [sys.executable, __file__, "--count-worker", impl, "--kernel", kernel]
            cmd += ["--nb-build", nb_build, "--row", row, "--calls", str(n)]
            run = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if run.returncode == 3:
                break
            run.check_returncode()
            counts += [int(run.stderr.rsplit("Collected : ", 1)[1].split()[0])]
        result[impl] = (counts[1] - counts[0]) / calls if counts else None
    return result


def import_time(module: str, runs: int = 5) -> float:
    """Best wall time of `import <module>`, timed inside a fresh interpreter (start-up excluded)."""

    def best(code: str) -> float:
        prog = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
        return min(
            float(subprocess.check_output([sys.executable, "-c", prog], text=True))
            for _ in range(runs)
        )

    return best(f"import {module}") * 1e9


def slope(points: list[tuple[int, float]]) -> float:
    """Nanoseconds per tensor: the slope of the least-squares line through (tensors, ns)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def fmt(v: float | None) -> str:
    if v is None:
        return "n/a"
    return f"{v / 1e6:,.1f} ms" if v >= 1e6 else f"{v:,.0f}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def table(best: dict[str, dict[str, float]], gpu: bool) -> list[str]:
    """The Markdown table; the 1..32 tensor rows are shown as the 32 row and the fitted slope."""
    # (row, {impl: ns}, tensors in the row: 0 for none, None for a per-tensor slope row)
    rows: list[tuple[str, dict[str, float | None], int | None]] = []
    tensors = {name: n for name, _, _, n in all_cases(gpu)}
    groups = ["PyTorch tensors"] + (["CUDA tensors"] if gpu else [])
    counted = {f"{n} {group}" for n in COUNTS for group in groups}

    def row_of(name: str) -> dict[str, float | None]:
        return {impl: best[impl].get(name) for impl in IMPLS}

    for name in best["ffi"]:
        if name in counted or name.startswith("import"):
            continue
        rows.append((name, row_of(name), tensors.get(name, 0)))
        group = name.removeprefix("three ")
        if group in groups:
            rows.append((f"{COUNTS[-1]} {group}", row_of(f"{COUNTS[-1]} {group}"), COUNTS[-1]))
            fits = {i: slope([(n, best[i][f"{n} {group}"]) for n in COUNTS]) for i in IMPLS}
            one = group.removesuffix("s")
            rows.append((f"one more {one} (slope, {COUNTS[0]}–{COUNTS[-1]} tensors)", fits, None))
    rows += [(name, row_of(name), 0) for name in best["ffi"] if name.startswith("import")]
    lines = [
        "| case | ffi (ns) | reference (ns) | nanobind / floor (ns) | ffi ÷ reference "
        "| floor ÷ reference | above the floor, ns per tensor: ffi / reference |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, t, n in rows:
        ours, ref, nb = t["ffi"], t["tvm_ffi"], t["nanobind"]
        floor_ref, above = "", ""
        if name in FLOOR_ROWS and nb is not None and ref is not None:
            floor_ref = ratio(nb, ref) + (" (≤ 0.5 impossible)" if nb / ref > 0.5 else "")
        if n != 0 and nb is not None and ours is not None:
            # Tensor rows: the nanobind column is the floor. A slope row is already per tensor.
            per = 1 if n is None else n
            ref_above = "n/a"
            if ref is not None:
                floor_ref = ratio(nb, ref) + (" (≤ 0.5 impossible)" if nb / ref > 0.5 else "")
                ref_above = f"{(ref - nb) / per:.1f}"
            above = f"{(ours - nb) / per:.1f} / {ref_above}"
        lines.append(
            f"| {name} | {fmt(ours)} | {fmt(ref)} | {fmt(nb)} | {ratio(ours, ref)} "
            f"| {floor_ref} | {above} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--gpu",
        choices=["auto", "on", "off"],
        default="auto",
        help="CUDA tensor rows (auto: when torch.cuda.is_available())",
    )
    parser.add_argument(
        "--callgrind",
        metavar="ROW",
        help="instructions per call of this row (its exact name) on each implementation, by "
        "callgrind, instead of the timed table",
    )
    parser.add_argument("--calls", type=int, default=5000, help="calls per --callgrind run")
    parser.add_argument("--worker", choices=IMPLS)
    parser.add_argument("--count-worker", choices=IMPLS)
    parser.add_argument("--row")
    parser.add_argument("--kernel")
    parser.add_argument("--nb-build")
    args = parser.parse_args()
    if args.count_worker:
        count_worker(args.count_worker, args.kernel, args.nb_build, args.row, args.calls)
        return
    if args.gpu == "auto":
        import torch

        gpu = torch.cuda.is_available()
    else:
        gpu = args.gpu == "on"
    if args.worker:
        print(json.dumps(worker(args.worker, args.kernel, args.nb_build, gpu)))
        return
    kernel, nb_build = build()
    if args.callgrind:
        ir = instructions(args.callgrind, kernel, nb_build, args.calls)
        cells = [f"{ir[impl]:,.0f}" if ir[impl] is not None else "n/a" for impl in IMPLS]
        print("| row | ffi (Ir) | reference (Ir) | nanobind / floor (Ir) | ffi ÷ reference |")
        print("| --- | ---: | ---: | ---: | ---: |")
        print(f"| {args.callgrind} | {' | '.join(cells)} | {ratio(ir['ffi'], ir['tvm_ffi'])} |")
        return
    best: dict[str, dict[str, float]] = {impl: {} for impl in IMPLS}
    paths: dict[str, str] = {}
    for _ in range(args.rounds):
        for impl in IMPLS:
            cmd = [sys.executable, __file__, "--worker", impl, "--kernel", kernel]
            cmd += ["--nb-build", nb_build, "--gpu", "on" if gpu else "off"]
            out = json.loads(subprocess.check_output(cmd, text=True))
            paths[impl] = out.pop(PATH_KEY)
            for case, ns in out.items():
                best[impl][case] = min(ns, best[impl].get(case, float("inf")))
    for impl, module in [("ffi", "ffi"), ("tvm_ffi", "tvm_ffi")]:
        best[impl]["import (with PyTorch installed)"] = import_time(module)
    print("\n".join(table(best, gpu)))
    print()
    names = {"ffi": "ffi", "tvm_ffi": "reference", "nanobind": "floor"}
    print(
        "torch.Tensor in hand: "
        + "; ".join(f"{names[impl]}: {path}" for impl, path in paths.items())
    )


if __name__ == "__main__":
    main()
