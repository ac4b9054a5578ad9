"""Client-level speed: PyPI clients of the reference on the reference runtime and on ours.

Usage: python benchmarks/bench_clients.py [--clients DIR] [--rounds N] [--envs tvm,xgrammar,...]
                                         [--python PYTHON]

Uses the virtual environments of the clients tier (DIR, default build/clients; tests/clients/run.sh
makes them): apache-tvm on apache-tvm-ffi 0.1.14.post0, xgrammar and flashinfer-python on
0.1.15.post2, each with our package; `--python` runs every case with one interpreter instead (its
environment, a venv or PYTHONPATH, holding the clients). `--envs` names the environments whose
cases run (default: tvm and xgrammar; FlashInfer needs a CUDA device).

Every round starts one process per case and runtime (`ours`: `import ffi` first, so our runtime
serves it), the runtimes taking turns; a process warms its case up, then times a batch of calls by
the thread's CPU time (preemption on a shared machine does not count). The best round of each is
kept. Prints a Markdown table of microseconds per call and the ratio ours / reference.

The cases:
- TVM, Relax VM: `vm["main"](x, y)` on four-element tensors (VM dispatch, two kernels, one
  allocation per call);
- TVM, compiled TE function: `lib(a, b)` straight into an `llvm`-compiled prim func;
- xgrammar, fill bitmask: `fill_next_token_bitmask` of a JSON-schema matcher over a 32k vocabulary;
- xgrammar, accept and roll back: `accept_token` then `rollback(1)` on that matcher;
- FlashInfer, RMSNorm: `flashinfer.norm.rmsnorm` on a 1 x 4096 half-precision CUDA tensor (its
  CUDA JIT kernel), and the JIT module's own `rmsnorm` called directly (the FFI call and the launch
  alone, without FlashInfer's Python wrapper); the kernel launches asynchronously, so the time is
  the host's: argument conversion, the call and the launch.
Absolute times drift on shared machines; the ratios from one run are what to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Chooses the runtime, sets up the case named by argv[2] and prints microseconds per call. Run
#: from a file: TVMScript reads its functions' source.
WORKER = r"""
import json, sys, time
if sys.argv[1] == "ours":
    import ffi
case, calls = sys.argv[2], int(sys.argv[3])

if case.startswith("tvm"):
    import numpy as np
    import tvm
    from tvm import relax, te
    from tvm.script import ir as I
    from tvm.script import relax as R

    if case == "tvm_vm":
        @I.ir_module
        class Module:
            @R.function
            def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
                z = R.add(x, y)
                return R.multiply(z, y)

        vm = relax.VirtualMachine(tvm.compile(Module, target="llvm"), tvm.cpu())
        main = vm["main"]
        x = tvm.runtime.tensor(np.arange(4, dtype="float32"))
        y = tvm.runtime.tensor(np.full(4, 2.0, dtype="float32"))
        step = lambda: main(x, y)
    else:
        A = te.placeholder((16,), name="A")
        B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
        lib = tvm.compile(te.create_prim_func([A, B]), target="llvm")
        a = tvm.runtime.tensor(np.zeros(16, dtype="float32"))
        b = tvm.runtime.tensor(np.zeros(16, dtype="float32"))
        step = lambda: lib(a, b)
elif case.startswith("fi_"):
    import os
    os.environ["FLASHINFER_USE_CUDA_NORM"] = "1"
    import flashinfer
    import torch

    x = torch.randn(1, 4096, device="cuda", dtype=torch.float16)
    w = torch.randn(4096, device="cuda", dtype=torch.float16)
    out = torch.empty_like(x)
    if case == "fi_rmsnorm":
        step = lambda: flashinfer.norm.rmsnorm(x, w, 1e-6, out=out)
    else:
        norm = flashinfer.norm.get_norm_module()
        step = lambda: norm.rmsnorm(out, x, w, 1e-6, False)
else:
    import xgrammar as xgr

    vocab = [chr(c) for c in range(32, 127)] + ['{"', '":', '",', "true", "false", "null"]
    vocab += [f"tok{i}" for i in range(32000 - len(vocab))]
    info = xgr.TokenizerInfo(vocab)
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
    compiled = xgr.GrammarCompiler(info, max_threads=1).compile_json_schema(json.dumps(schema))
    matcher = xgr.GrammarMatcher(compiled)
    assert matcher.accept_string('{"a": 1')
    bitmask = xgr.allocate_token_bitmask(1, info.vocab_size)
    if case == "xgr_fill":
        step = lambda: matcher.fill_next_token_bitmask(bitmask)
    else:
        digit = vocab.index("2")

        def step():
            matcher.accept_token(digit)
            matcher.rollback(1)

for _ in range(calls // 10 + 10):
    step()
sync = torch.cuda.synchronize if case.startswith("fi_") else lambda: None
sync()
start = time.thread_time_ns()
for _ in range(calls):
    step()
elapsed = time.thread_time_ns() - start
sync()
print(elapsed / calls / 1000)
"""

#: (row, client environment, case, calls per batch)
CASES = [
    ("TVM: Relax VM call (`vm['main'](x, y)`)", "tvm", "tvm_vm", 20000),
    ("TVM: compiled TE function call (`lib(a, b)`)", "tvm", "tvm_te", 50000),
    ("xgrammar: fill_next_token_bitmask (32k vocabulary)", "xgrammar", "xgr_fill", 2000),
    ("xgrammar: accept_token + rollback", "xgrammar", "xgr_accept", 20000),
    ("FlashInfer: `flashinfer.norm.rmsnorm` (1 x 4096, CUDA)", "flashinfer", "fi_rmsnorm", 20000),
    ("FlashInfer: JIT module's `rmsnorm` called directly", "flashinfer", "fi_module", 20000),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default=os.path.join(ROOT, "build", "clients"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--envs", default="tvm,xgrammar")
    parser.add_argument("--python", help="one interpreter for every case")
    args = parser.parse_args()
    cases = [c for c in CASES if c[1] in args.envs.split(",")]
    best: dict[tuple[str, str], float] = {}
    worker = os.path.join(tempfile.mkdtemp(), "bench_clients_worker.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    for _ in range(args.rounds):
        for row, env, case, calls in cases:
            python = args.python or os.path.join(args.clients, env, "bin", "python")
            for runtime in ("reference", "ours"):
                proc = subprocess.run(
                    [python, worker, runtime, case, str(calls)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                us = float(proc.stdout.strip().splitlines()[-1])
                best[row, runtime] = min(us, best.get((row, runtime), us))
    print("| Case | reference (µs/call) | ours (µs/call) | ours / reference |")
    print("| --- | ---: | ---: | ---: |")
    for row, *_ in cases:
        ref, ours = best[row, "reference"], best[row, "ours"]
        print(f"| {row} | {ref:.2f} | {ours:.2f} | {ours / ref:.2f} |")
    print(f"\nBest of {args.rounds} rounds; " + json.dumps({"python": sys.version.split()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
