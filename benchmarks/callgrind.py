"""Instructions per call of a Python statement, counted by callgrind: (Ir of a run doing it 2N
times - Ir of a run doing it N times) / N, so that start-up and imports cancel. Shared by the
benchmarks that compare builds of one call (bench_stable_abi.py, bench_rust.py).

One hash seed and one BLAS thread: otherwise dict layouts and thread start-up vary the count
from run to run.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

ENV = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def total(python: str, setup: str, stmt: str, calls: int) -> int:
    """The instructions `python` runs for `setup`, then `stmt` `calls` times."""
    code = f"{setup}\nfor _ in range({calls}): {stmt}\n"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.check_call(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, "-c", code],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ, **ENV),
        )
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def per_call(python: str, setup: str, stmt: str, calls: int) -> float:
    """Instructions per execution of `stmt` after `setup`."""
    return (total(python, setup, stmt, 2 * calls) - total(python, setup, stmt, calls)) / calls
