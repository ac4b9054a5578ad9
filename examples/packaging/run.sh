#!/usr/bin/env bash
# Builds the my_kernels wheel against the installed ffi (scikit-build-core, no build isolation),
# checks it is a py3-none-<platform> wheel whose library links no Python, installs it into a fresh
# virtual environment that also sees this Python's packages (ffi, NumPy, PyTorch), and calls it.
# Usage: bash examples/packaging/run.sh [work_dir]     ($PYTHON picks the interpreter)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${1:-$(mktemp -d)}"
python="${PYTHON:-python}"

# 1. The wheel. --no-build-isolation: build with the installed ffi and scikit-build-core;
#    --no-deps: build only this project (pip would otherwise try to fetch ffi as well).
"$python" -m pip wheel "$here" --no-build-isolation --no-deps --no-index -q -w "$work/dist" >&2
wheel="$(ls "$work"/dist/my_kernels-*.whl)"
echo "wheel: $(basename "$wheel")"
"$python" - "$wheel" <<'PY'
import sys, zipfile
names = sorted(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if ".dist-info/" not in n)
print("contents:", " ".join(names))
PY

# 2. A fresh environment that also sees the packages of $python's environment (ffi, NumPy,
#    PyTorch, pip) through a .pth file naming its site directories. (--system-site-packages would
#    show the base interpreter's packages instead, which differ when $python is itself a venv.)
"$python" -m venv --without-pip "$work/venv"
venv_python="$work/venv/bin/python"
venv_site="$("$venv_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$python" -c 'import site; print("\n".join(site.getsitepackages()))' > "$venv_site/_outer_env.pth"
"$venv_python" -m pip install --no-index -q "$wheel" >&2  # ffi>=0.1 is already satisfied

# 3. The installed library depends on no Python (and not even on ffi's runtime).
lib="$("$venv_python" -c 'import my_kernels; print(my_kernels.library_path())')"
if command -v readelf > /dev/null; then
  needed="$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')"
else
  needed="$(ldd "$lib" | awk '{print $1}' | tr '\n' ' ')"
fi
echo "needed: $needed" >&2
case "$needed" in
  *libpython*) echo "error: $lib links libpython" >&2; exit 1 ;;
  *ffi_runtime*) echo "error: $lib links ffi's runtime" >&2; exit 1 ;;
esac
echo "links libpython: no"

# 4. Use it.
"$venv_python" - <<'PY'
import sys

import numpy as np
import torch

import my_kernels

print("installed in the venv:", my_kernels.library_path().startswith(sys.prefix))
y = np.ones(3, dtype=np.float32)
my_kernels.axpy(2.0, np.arange(3, dtype=np.float32), y)
print("axpy numpy:", y.tolist())
print("norm torch:", my_kernels.norm(torch.tensor([3.0, 4.0])))
try:
    my_kernels.axpy(1.0, torch.zeros(2), torch.zeros(3))
except ValueError as err:
    print("ValueError:", err)
PY
