"""TileLang on a runtime (CPU): kernels written with T.prim_func, T.Kernel, T.Parallel and
T.serial lower through TileLang's bundled TVM (its libtvm_compiler.so on the runtime under test)
for the "c" target and run with PyTorch CPU tensors (on the CPU, TileLang runs "c" kernels through
its Cython backend; its tvm_ffi backend needs a GPU or LLVM target); a symbolic extent; an output
allocated by the kernel (out_idx); a mismatched argument raises; the generated source and the
lowered TIR are compared too; TileLang's enums (defined in its C++ with the 0.1.12 headers, bound
by the 0.1.12 Python package) give their members, names, ordinals and methods. Prints one JSON
object of results on the standard output (TileLang's own log lines go to the standard error).

    python tilelang_scenario.py ours|reference      (see scenario.py)
"""

import json
import os

from scenario import keep_stdout_for_results, report, select_runtime

out = select_runtime()
os.environ["TILELANG_DISABLE_CACHE"] = "1"  # each run compiles afresh
result_stream = keep_stdout_for_results()  # TileLang logs to the standard output

import tilelang
import tilelang.language as T
import torch
from tilelang import tvm

M, N = 64, 32


@T.prim_func
def axpy(
    A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"), C: T.Tensor((M, N), "float32")
):
    with T.Kernel(1) as _:
        for i, j in T.Parallel(M, N):
            C[i, j] = A[i, j] * 2.0 + B[i, j]


K = T.dynamic("K")


@T.prim_func
def row_sum(X: T.Tensor((K, N), "float32"), Y: T.Tensor((K,), "float32")):
    with T.Kernel(1) as _:
        for i in T.serial(K):
            Y[i] = 0.0
            for j in T.serial(N):
                Y[i] = Y[i] + X[i, j]


a = torch.arange(M * N, dtype=torch.float32).reshape(M, N) / 7
b = torch.ones(M, N)
kernel = tilelang.compile(axpy, target="c")
c = torch.zeros(M, N)
kernel(a, b, c)
out["axpy"] = c.flatten().tolist()[:: N - 1]
out["axpy_exact"] = bool(torch.equal(c, a * 2 + b))
out["axpy_source"] = kernel.get_kernel_source()
out["axpy_lowered"] = axpy.script()
text = tvm.ir.save_json(axpy)
out["ir_json"] = json.loads(text)
out["ir_json_round_trip"] = bool(tvm.ir.structural_equal(tvm.ir.load_json(text), axpy))
out["structural_equal_other"] = bool(tvm.ir.structural_equal(axpy, row_sum))
out["structural_hash"] = [tvm.ir.structural_hash(f) for f in (axpy, row_sum)]

kernel = tilelang.compile(row_sum, target="c")
for rows in (3, 17):
    y = torch.zeros(rows)
    kernel(a[:rows], y)
    out[f"row_sum_{rows}"] = y.tolist()

kernel = tilelang.compile(axpy, out_idx=[2], target="c")
result = kernel(a, b)
out["out_idx_result"] = [type(result).__name__, list(result.shape), result.sum().item()]

try:
    kernel(a[:5], b)
except Exception as e:  # noqa: BLE001 - the type is what is compared
    out["shape_error"] = [type(e).__name__, str(e).splitlines()[0]]

from tilelang.language.warp_specialize import WSSyncKind
from tilelang.layout.swizzle_mode import SwizzleMode

out["enum_members"] = [[repr(m), m._name, m._value] for m in [*SwizzleMode, *WSSyncKind]]
out["enum_methods"] = [
    [m.is_none(), m.swizzle_byte_size(), m.wgmma_layout_type()] for m in SwizzleMode
]
out["enum_lookup"] = repr(SwizzleMode.get("SWIZZLE_32B"))

report(out, result_stream)
