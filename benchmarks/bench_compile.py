"""Compile time of a one-function kernel: ffi's headers vs the reference package's (apache-tvm-ffi).

Usage: python benchmarks/bench_compile.py [--repeat N] [--cxx g++] [--ffi-include DIR]

The kernel is the quickstart's (examples/quickstart/add_one.cc): two TensorView arguments, a
dtype check that throws, a loop, one typed export. It is written three ways into a temporary
directory, four ways:

- ``<ffi/ffi.h>``: ffi's umbrella header, FFI_THROW, FFI_DLL_EXPORT_TYPED_FUNC;
- ``<ffi/tensor.h>`` + ``<ffi/function.h>``: only the ffi headers the kernel needs;
- ``<tvm/ffi/tvm_ffi.h>`` against ffi's include directory: the same source as the next one, through
  ffi's forwarding headers (what code written for the reference pays on ffi);
- ``<tvm/ffi/tvm_ffi.h>``: the reference's umbrella header, TVM_FFI_THROW,
  TVM_FFI_DLL_EXPORT_TYPED_FUNC.

Each is compiled with ``<cxx> -std=c++17 -O2 -shared -fPIC``, with ``-O0`` instead of ``-O2``,
and with ``-fsyntax-only``, N times (default 5) with the variants interleaved so that drift on
the machine hits all of them alike; each cell keeps the best (lowest) wall time. A last row
counts the lines of the preprocessed translation unit (``-E``). Prints a Markdown table of
seconds and the ratios ours ÷ reference.

ffi's headers come from this checkout's include/ (so header edits are measured without
reinstalling; ``--ffi-include`` picks another directory, e.g. ``python -m ffi.config
--includedir``). The reference's include directory is found from its installed distribution
with importlib.metadata, without importing ``tvm_ffi``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNEL = """\
{includes}

namespace {{

void add_one({ns}::TensorView x, {ns}::TensorView y) {{
  if (x.dtype() != DLDataType{{kDLFloat, 32, 1}}) {{
    {prefix}_THROW(TypeError) << "x must be float32, got " << x.dtype();
  }}
  const float* px = static_cast<const float*>(x.data_ptr());
  float* py = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = px[i] + 1.0f;
}}

}}  // namespace

{prefix}_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
"""

# (column label, file stem, includes, namespace, macro prefix, which include dir)
VARIANTS = [
    ("ffi `<ffi/ffi.h>`", "ffi_umbrella", "#include <ffi/ffi.h>", "ffi", "FFI", "ffi"),
    (
        "ffi `<ffi/tensor.h>` + `<ffi/function.h>`",
        "ffi_narrow",
        "#include <ffi/function.h>\n#include <ffi/tensor.h>",
        "ffi",
        "FFI",
        "ffi",
    ),
    (
        "ffi `<tvm/ffi/tvm_ffi.h>` (forwarding)",
        "ffi_forwarding",
        "#include <tvm/ffi/tvm_ffi.h>",
        "tvm::ffi",
        "TVM_FFI",
        "ffi",
    ),
    (
        "reference `<tvm/ffi/tvm_ffi.h>`",
        "reference",
        "#include <tvm/ffi/tvm_ffi.h>",
        "tvm::ffi",
        "TVM_FFI",
        "reference",
    ),
]
REFERENCE = 3  # index of the reference variant in VARIANTS
# Short names of the other variants for the ratio columns (ours ÷ reference).
RATIO_NAMES = ["ffi.h", "tensor.h + function.h", "forwarding tvm_ffi.h"]

# (row label, flags, whether the compile writes a shared library)
MODES = [
    ("`-O2 -shared -fPIC`", ["-O2", "-shared", "-fPIC"], True),
    ("`-O0 -shared -fPIC`", ["-O0", "-shared", "-fPIC"], True),
    ("`-fsyntax-only`", ["-fsyntax-only"], False),
]


def reference_include() -> str:
    """tvm_ffi/include of the installed apache-tvm-ffi, located without importing tvm_ffi."""
    try:
        dist = importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        sys.exit("apache-tvm-ffi is not installed: pip install apache-tvm-ffi")
    path = str(dist.locate_file("tvm_ffi/include"))
    if not os.path.isfile(os.path.join(path, "tvm", "ffi", "tvm_ffi.h")):
        sys.exit(f"no tvm/ffi/tvm_ffi.h under {path}")
    return path


def ffi_include(override: str | None) -> str:
    """ffi's include directory: --ffi-include, else this checkout's include/, else the installed."""
    if override:
        path = override
    elif os.path.isfile(os.path.join(ROOT, "include", "ffi", "ffi.h")):
        path = os.path.join(ROOT, "include")
    else:
        path = subprocess.check_output(
            [sys.executable, "-m", "ffi.config", "--includedir"], text=True
        ).strip()
    if not os.path.isfile(os.path.join(path, "ffi", "ffi.h")):
        sys.exit(f"no ffi/ffi.h under {path}")
    return path


def compile_once(cmd: list[str]) -> float:
    """Runs one compile and returns its wall time in seconds; exits with diagnostics on error."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"compile failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return elapsed


def preprocessed_lines(cmd: list[str]) -> int:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"preprocessing failed: {' '.join(cmd)}\n{proc.stderr}")
    return proc.stdout.count("\n")


def ratio(ours: float, ref: float) -> str:
    return f"{ours / ref:.2f}" if ref > 0 else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="compiles per cell (best-of)")
    parser.add_argument("--cxx", default="g++", help="the C++ compiler (default: g++)")
    parser.add_argument("--ffi-include", help="ffi's include directory (default: ./include)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    cxx = shutil.which(args.cxx)
    if cxx is None:
        sys.exit(f"cannot find the compiler {args.cxx}")
    include_dirs = {"ffi": ffi_include(args.ffi_include), "reference": reference_include()}

    with tempfile.TemporaryDirectory(prefix="bench_compile_") as tmp:
        sources = []
        for _, stem, includes, ns, prefix, which in VARIANTS:
            src = os.path.join(tmp, f"{stem}.cc")
            with open(src, "w") as f:
                f.write(KERNEL.format(includes=includes, ns=ns, prefix=prefix))
            sources.append((src, f"-I{include_dirs[which]}"))

        def command(v: int, flags: list[str], writes_library: bool) -> list[str]:
            src, include = sources[v]
            cmd = [cxx, "-std=c++17", *flags, include, src]
            return cmd + (["-o", src[: -len(".cc")] + ".so"] if writes_library else [])

        best = [[float("inf")] * len(VARIANTS) for _ in MODES]
        for r in range(args.repeat):
            for m, (_, flags, writes_library) in enumerate(MODES):
                for v in range(len(VARIANTS)):
                    elapsed = compile_once(command(v, flags, writes_library))
                    best[m][v] = min(best[m][v], elapsed)
            print(f"round {r + 1}/{args.repeat} done", file=sys.stderr, flush=True)
        lines = [preprocessed_lines(command(v, ["-E"], False)) for v in range(len(VARIANTS))]

    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    print(f"{version.splitlines()[0] if version else cxx}; best of {args.repeat}, seconds\n")
    names = [label for label, *_ in VARIANTS]
    header = ["compile", *names, *(f"{n} ÷ reference" for n in RATIO_NAMES)]
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    rows = [(label, [f"{t:.3f}" for t in best[m]], best[m]) for m, (label, *_) in enumerate(MODES)]
    rows.append(("preprocessed lines (`-E`)", [f"{n:,}" for n in lines], lines))
    for label, cells, values in rows:
        ratios = [
            ratio(values[v], values[REFERENCE]) for v in range(len(VARIANTS)) if v != REFERENCE
        ]
        print("| " + " | ".join([label, *cells, *ratios]) + " |")


if __name__ == "__main__":
    main()
