"""Runtime engines, by instructions: the reference's Python package (`tvm_ffi`) running the same
operations on the reference runtime and on ours, counted with callgrind.

Usage: python benchmarks/bench_engines.py [--ops OP,...] [--repeat N (200)] [--wall]

Each operation runs in a process of its own per runtime (`ours`: `import ffi` first, so our
runtime serves `tvm_ffi`), under `valgrind --tool=callgrind`, once with N repetitions and once with
2N; instructions per operation = (Ir(2N) - Ir(N)) / N, so start-up and set-up cancel. Callgrind's
counts do not depend on the machine's load, unlike wall time. `--wall` instead times each
operation by the process's CPU time, best of several batches, without valgrind. Prints a Markdown
table: per operation, ours and the reference's count (or microseconds) and the ratio ours / ref.

The operations (values built the same way in both processes; see WORKER):
- structural_equal / structural_hash / recursive_hash of a large nested value (200 maps of
  arrays of ints, floats and strings), equal_dag of two separately built 16-level DAGs of arrays
  (each level holds the previous twice);
- json_write / json_read: the JSON graph of that value, written and read back;
- repr of that value.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

#: Runs operation argv[2] argv[3] times on the runtime argv[1] names; with argv[4] == "wall"
#: prints the best CPU microseconds per operation instead.
WORKER = r"""
import sys, time
runtime, op, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
wall = len(sys.argv) > 4
if runtime == "ours":
    import ffi
import tvm_ffi

def nested(tag):
    return tvm_ffi.Array([
        tvm_ffi.Map({f"key{i}": tvm_ffi.Array([i, i * 0.5, f"{tag}value{i}"]), "n": i})
        for i in range(200)
    ])

def dag(levels):
    node = tvm_ffi.Array([1, "leaf"])
    for _ in range(levels):
        node = tvm_ffi.Array([node, node])
    return node

value = nested("v")
if op == "structural_equal":
    other = nested("v")
    run = lambda: tvm_ffi.structural_equal(value, other)
elif op == "equal_dag":
    a, b = dag(16), dag(16)
    run = lambda: tvm_ffi.structural_equal(a, b)
elif op == "structural_hash":
    run = lambda: tvm_ffi.structural_hash(value)
elif op == "recursive_hash":
    f = tvm_ffi.get_global_func("ffi.RecursiveHash")
    run = lambda: f(value)
elif op == "json_write":
    run = lambda: tvm_ffi.serialization.to_json_graph_str(value)
elif op == "json_read":
    text = tvm_ffi.serialization.to_json_graph_str(value)
    run = lambda: tvm_ffi.serialization.from_json_graph_str(text)
elif op == "repr":
    run = lambda: repr(value)
else:
    sys.exit(f"unknown operation {op}")
run()  # warm: lazily made functions and caches
if wall:
    best = float("inf")
    for _ in range(7):
        start = time.process_time()
        for _ in range(repeat):
            run()
        best = min(best, (time.process_time() - start) / repeat)
    print(best * 1e6)
else:
    for _ in range(repeat):
        run()
"""

OPS = [
    "structural_equal",
    "structural_hash",
    "recursive_hash",
    "equal_dag",
    "json_write",
    "json_read",
    "repr",
]


def instructions(worker: str, runtime: str, op: str, repeat: int, out_dir: str) -> int:
    """Ir of one process running `op` `repeat` times under callgrind."""
    out = os.path.join(out_dir, f"{runtime}.{op}.{repeat}.callgrind")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    cmd += [sys.executable, worker, runtime, op, str(repeat)]
    # A fixed hash seed: Python's start-up then runs the same instructions every time, so the
    # difference of the two runs is the operation's alone.
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    with open(out) as f:
        match = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no instruction count in {out}")
    return int(match.group(1))


def per_operation(worker: str, runtime: str, op: str, repeat: int, wall: bool, tmp: str) -> float:
    if wall:
        proc = subprocess.run(
            [sys.executable, worker, runtime, op, str(repeat), "wall"],
            check=True,
            capture_output=True,
            text=True,
        )
        return float(proc.stdout)
    once = instructions(worker, runtime, op, repeat, tmp)
    twice = instructions(worker, runtime, op, 2 * repeat, tmp)
    return (twice - once) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--wall", action="store_true")
    args = parser.parse_args()
    unit = "µs" if args.wall else "Ir"
    print(f"| operation | ours ({unit}) | reference ({unit}) | ours / reference |")
    print("| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "worker.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        for op in args.ops.split(","):
            ours = per_operation(worker, "ours", op, args.repeat, args.wall, tmp)
            ref = per_operation(worker, "reference", op, args.repeat, args.wall, tmp)
            fmt = "{:,.1f}" if args.wall else "{:,.0f}"
            print(f"| {op} | {fmt.format(ours)} | {fmt.format(ref)} | {ours / ref:.2f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
