"""Apache TVM on a runtime: TE (a TOPI operator too) and TVMScript (TIR, Relax) build,
structural equality and printing, compile for llvm and run, export_library then load_module and
run again (a parallel loop among them), C++ errors as Python exceptions, IR JSON save/load, maps
keyed by types with their own (old-convention) key hooks. Prints one JSON object of results, to
compare across runtimes.

    python tvm_scenario.py ours|reference      (see scenario.py)
"""

import json
import os
import tempfile

from scenario import report, select_runtime

out = select_runtime()

import numpy as np
import tvm
import tvm_ffi
from tvm import relax, te, topi
from tvm.script import ir as I
from tvm.script import relax as R

n = 16
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
func = te.create_prim_func([A, B])
out["structural_equal"] = bool(tvm_ffi.structural_equal(func, func))
out["script"] = func.script()
text = tvm.ir.save_json(func)
out["json"] = json.loads(text)
out["json_round_trip"] = bool(tvm_ffi.structural_equal(func, tvm.ir.load_json(text)))
# Structural hashes are persisted (tuning databases): the values must be the reference's.
out["structural_hash"] = [tvm_ffi.structural_hash(func, map_free_vars=m) for m in (False, True)]

lib = tvm.compile(func, target="llvm")
a = tvm.runtime.tensor(np.arange(n, dtype="float32"))
b = tvm.runtime.tensor(np.zeros(n, dtype="float32"))
lib(a, b)
out["te_result"] = b.numpy().tolist()

# A TOPI operator through the whole pipeline: its simplifier rewrites IR holding strings, which
# the runtime's mutation hooks for strings (registered as the reference's are) let it pass.
data = te.placeholder((1, 1, 5, 7), "float32", "data")
pool = te.create_prim_func([data, topi.nn.adaptive_pool(data, [2, 2], pool_type="avg")])
pooled = tvm.runtime.tensor(np.zeros((1, 1, 2, 2), dtype="float32"))
tvm.compile(pool)(tvm.runtime.tensor(np.arange(35, dtype="float32").reshape(1, 1, 5, 7)), pooled)
out["adaptive_pool"] = pooled.numpy().tolist()


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        z = R.add(x, y)
        w = R.multiply(z, y)
        return w


out["relax_script"] = Module.script()
out["relax_structural_hash"] = tvm_ffi.structural_hash(Module)  # through IRModule's own hook
ex = tvm.compile(Module, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
x = tvm.runtime.tensor(np.arange(4, dtype="float32"))
y = tvm.runtime.tensor(np.full(4, 2.0, dtype="float32"))
out["relax_result"] = vm["main"](x, y).numpy().tolist()

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "relax.so")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    out["loaded_kind"] = loaded.kind
    vm2 = relax.VirtualMachine(loaded, tvm.cpu())
    out["relax_reloaded"] = vm2["main"](x, y).numpy().tolist()
    path = os.path.join(d, "te.so")
    lib.export_library(path)
    te_mod = tvm.runtime.load_module(path)
    c = tvm.runtime.tensor(np.zeros(n, dtype="float32"))
    te_mod(a, c)
    out["te_reloaded"] = c.numpy().tolist()
    # A parallel loop: the library's generated code calls TVMBackendParallelLaunch through the
    # slot `__TVMBackendParallelLaunch`, which the runtime fills as TVM registered it.
    sch = tvm.s_tir.Schedule(func)
    sch.parallel(sch.get_loops(sch.get_sblock("B"))[0])
    path = os.path.join(d, "parallel.so")
    tvm.compile(sch.mod, target="llvm").export_library(path)
    c = tvm.runtime.tensor(np.zeros(n, dtype="float32"))
    tvm.runtime.load_module(path)(a, c)
    out["parallel_reloaded"] = c.numpy().tolist()

# ir.PrimType registers its own key hash and equality as native hooks of the pre-0.1.15 convention:
# maps built on the runtime must find equal types as one key.
i32, f32 = tvm.ir.PrimType("int32"), tvm.ir.PrimType("float32")
keys = tvm_ffi.Map({i32: 1, f32: 2})
table = tvm_ffi.Dict({i32: 1})
table[tvm.ir.PrimType("int32")] = 5
out["prim_type_keys"] = [
    len(keys),
    keys.get(tvm.ir.PrimType("int32")),
    keys.get(tvm.ir.PrimType("int64")),
    len(table),
    table[i32],
]

try:
    vm["main"](x)
except Exception as e:  # noqa: BLE001 - the type is what is compared
    out["error"] = [type(e).__name__, str(e).splitlines()[0]]
report(out)
