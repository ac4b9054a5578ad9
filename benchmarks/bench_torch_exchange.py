"""Calls with PyTorch tensors by where PyTorch's DLPack exchange API comes from.

Usage: python benchmarks/bench_torch_exchange.py [--python PY] [--rounds N]

PyTorch 2.10+ publishes the exchange API itself; for older releases ffi builds a shim
(ffi.torch_exchange) or uses torch-c-dlpack-ext, and without either falls back to the
``__dlpack__`` protocol. Each source runs in its own interpreter (`--python`, default this one,
with ffi and PyTorch installed), the PyTorch table hidden where a row needs it gone:

- ``pytorch``: PyTorch's own table (2.10+ only);
- ``ffi shim``: the shim built against this PyTorch (cached in build/bench/torch_exchange);
- ``torch-c-dlpack-ext``: that package's table, where it has one for this PyTorch (2.4-2.9);
- ``__dlpack__``: no table at all;
- ``reference``: the reference package (apache-tvm-ffi) as it sets itself up, if installed.

Each case keeps its best time (the thread's CPU time) over the rounds; the table gives
nanoseconds per call and each source against the shim. Wall time on a shared machine drifts: the
ratios of one run are what to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench", "torch_exchange")
SOURCES = ["pytorch", "ffi shim", "torch-c-dlpack-ext", "__dlpack__", "reference"]
CASES = [
    ("three PyTorch tensors", "f.tensors3(tx, tx, tx)"),
    ("a tensor returned", "f.make_output(tx)"),
]

WORKER = r"""
import json, os, sys, time, timeit
source, kernel = sys.argv[1], sys.argv[2]
import torch
native = "__dlpack_c_exchange_api__" in vars(torch.Tensor)
if source == "pytorch" and not native:
    sys.exit(3)
if source in ("ffi shim", "torch-c-dlpack-ext", "__dlpack__") and native:
    del torch.Tensor.__dlpack_c_exchange_api__
if source in ("ffi shim", "__dlpack__"):
    sys.modules["torch_c_dlpack_ext"] = None  # not used even where installed
if source == "torch-c-dlpack-ext":
    try:
        import torch_c_dlpack_ext  # noqa: F401
    except ImportError:
        sys.exit(3)
    if getattr(torch.Tensor, "__dlpack_c_exchange_api__", None) is None:
        sys.exit(3)
impl = "tvm_ffi" if source == "reference" else "ffi"
try:
    mod = __import__(impl)
except ImportError:
    sys.exit(3)
f = mod.load_module(kernel)
tx = torch.zeros(16)
result = f.make_output(tx)  # the first call with a tensor: where ffi provides the table
provider = None
if impl == "ffi":
    import ffi.torch_exchange
    provider = ffi.torch_exchange.provider()
    if source == "ffi shim" and provider not in ("cached shim", "built shim"):
        sys.exit(4)
out = {"provider": provider, "result": type(result).__module__ + "." + type(result).__name__}
for name, stmt in json.loads(os.environ["BENCH_CASES"]):
    timer = timeit.Timer(stmt, globals={"f": f, "tx": tx}, timer=time.thread_time)
    per_call = timer.timeit(number=20) / 20
    number = max(20, int(0.01 / max(per_call, 1e-9)))
    out[name] = min(timer.repeat(repeat=7, number=number)) / number * 1e9
print(json.dumps(out))
"""


def build_kernel(python: str) -> str:
    os.makedirs(BUILD, exist_ok=True)
    kernel = os.path.join(BUILD, "bench_kernels.so")
    cflags = shlex.split(
        subprocess.check_output([python, "-m", "ffi.config", "--cflags"], text=True)
    )
    src = os.path.join(ROOT, "benchmarks", "kernels.cc")
    cmd = ["g++", "-std=c++17", "-O2", "-shared", "-fPIC", *cflags, src, "-o", kernel]
    subprocess.check_call(cmd)
    return kernel


def run(python: str, source: str, kernel: str) -> dict | None:
    env = dict(os.environ, BENCH_CASES=json.dumps(CASES), FFI_CACHE_DIR=BUILD)
    if source == "__dlpack__":
        env["FFI_TORCH_EXCHANGE_SHIM"] = "0"
        env["FFI_CACHE_DIR"] = os.path.join(BUILD, "empty")  # no cached shim either
    proc = subprocess.run(
        [python, "-c", WORKER, source, kernel], env=env, capture_output=True, text=True
    )
    if proc.returncode == 3:
        return None  # this source does not exist for this PyTorch
    if proc.returncode != 0:
        raise RuntimeError(f"{source}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch_version = subprocess.check_output(
        [args.python, "-c", "import torch; print(torch.__version__)"], text=True
    ).strip()
    kernel = build_kernel(args.python)
    best: dict[str, dict] = {}
    started = time.time()
    for _ in range(args.rounds):  # rounds interleave the sources, so drift hits them alike
        for source in SOURCES:
            got = run(args.python, source, kernel)
            if got is None:
                continue
            row = best.setdefault(source, dict(got))
            for name, _ in CASES:
                row[name] = min(row[name], got[name])
    print(f"PyTorch {torch_version}, {args.rounds} rounds, {time.time() - started:.0f} s\n")
    shim = best.get("ffi shim", {})
    header = "| source | " + " | ".join(f"{n} (ns) | ÷ shim" for n, _ in CASES) + " | result |"
    print(header)
    print("| --- |" + " ---: | ---: |" * len(CASES) + " --- |")
    for source, row in best.items():
        cells = []
        for name, _ in CASES:
            base = shim.get(name)
            cells += [f"{row[name]:.0f}", f"{row[name] / base:.2f}" if base else "-"]
        print(f"| {source} | " + " | ".join(cells) + f" | {row['result']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
