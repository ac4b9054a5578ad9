"""Calls from several Python threads at once: throughput by thread count, ours next to the
reference's, each in a process of its own.

Usage: python benchmarks/bench_threads.py [--threads 1,2,4] [--calls N] [--rounds R]

Each thread calls a compiled kernel `add(a, b)` (two ints in, one out) `--calls` times; the table
gives calls per second over all threads (wall time, best of `--rounds`) and the speed-up over one
thread. On a free-threaded interpreter (CPython 3.13t) the calls run in parallel where the
extension keeps the GIL off; with a GIL they take turns (a call releases it while the kernel runs,
so some overlap remains). The reference runs where its package imports on this interpreter (it
ships no free-threaded wheel for 3.13t). Wall time: run it on an otherwise idle machine, and
compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: Builds the kernel with the implementation's own ffi.cpp, then times the threads. argv: the
#: implementation, the thread counts, calls per thread, rounds. Prints one JSON object.
WORKER = r"""
import json, sys, threading, time
impl, counts, calls, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if impl == "ffi":
    import ffi.cpp as cpp
else:
    import tvm_ffi.cpp as cpp
source = "int64_t add(int64_t a, int64_t b) { return a + b; }"
mod = cpp.load_inline("bench_threads_add", cpp_sources=source, functions=["add"])
add = mod.add
gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True

def run(n):
    # Each thread times itself; the span runs from the first start to the last end.
    start, spans = threading.Barrier(n), []
    def body():
        start.wait()
        t0 = time.perf_counter()
        for i in range(calls):
            add(i, 1)
        spans.append((t0, time.perf_counter()))
    threads = [threading.Thread(target=body) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return n * calls / (max(e for _, e in spans) - min(s for s, _ in spans))

for _ in range(calls // 10):
    add(1, 2)
rates = {}
for n in [int(c) for c in counts.split(",")]:
    rates[n] = max(run(n) for _ in range(rounds))
print(json.dumps({"gil": gil, "rates": rates}))
"""


def measure(impl: str, threads: str, calls: int, rounds: int, worker: str) -> dict | None:
    """The worker's results for `impl`, or None when its package does not import here."""
    proc = subprocess.run(
        [sys.executable, worker, impl, threads, str(calls), str(rounds)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"{impl}: not run ({proc.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2,4")
    parser.add_argument("--calls", type=int, default=200000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    worker = os.path.join(tempfile.mkdtemp(), "bench_threads_worker.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    results = {impl: measure(impl, args.threads, args.calls, args.rounds, worker)
               for impl in ("ffi", "tvm_ffi")}  # fmt: skip
    print("| threads | ffi (calls/s) | ffi speed-up | reference (calls/s) | reference speed-up |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n in args.threads.split(","):
        cells = []
        for impl in ("ffi", "tvm_ffi"):
            r = results[impl]
            if r is None:
                cells += ["—", "—"]
            else:
                rate, one = r["rates"][n], r["rates"][args.threads.split(",")[0]]
                cells += [f"{rate:,.0f}", f"{rate / one:.2f}"]
        print(f"| {n} | " + " | ".join(cells) + " |")
    gil = {impl: r["gil"] for impl, r in results.items() if r is not None}
    print(f"\nPython {sys.version.split()[0]}; GIL enabled during the run: {json.dumps(gil)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
