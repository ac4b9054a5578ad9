#!/usr/bin/env bash
# The clients tier: real PyPI clients of the reference (pinned) run each scenario in a process of
# its own three times, on the reference's runtime, on ours (`import ffi` first) and on ours in
# place of the reference's runtime file (the client unchanged, no `import ffi`), and the results
# must be equal (run_scenario.sh). Each client gets a virtual environment of its own, with the
# reference release it was built against (or, for xgrammar and FlashInfer, the one pip resolves
# today) as the control:
#
#   tvm       apache-tvm 0.27.0.post1 on apache-tvm-ffi 0.1.14.post0   tvm_scenario.py
#   tilelang  tilelang 0.1.15 on apache-tvm-ffi 0.1.12 (its pin)        tilelang_scenario.py
#   xgrammar  xgrammar 0.2.8 on apache-tvm-ffi 0.1.15.post2             xgrammar_scenario.py
#   flashinfer  flashinfer-python 0.7.4 on apache-tvm-ffi 0.1.15.post2  flashinfer_scenario.py
#             (only where a CUDA device is: its JIT modules are built with nvcc and run there)
#
# and apache-tvm as pip resolves it today (tvm-latest: apache-tvm-ffi 0.1.15.post2, whose runtime
# crashes in TVM's save_json), whose run on our runtime must give the tvm control's results.
#
# Usage: bash tests/clients/run.sh [DIR [PIP_CONFIG_SETTINGS...]]
#   DIR (default build/clients) holds the environments (kept and reused), our wheel and the results.
#   PIP_CONFIG_SETTINGS build our wheel (default: its own build tree); run_all.sh passes the main
#   build's settings so the wheel comes from the tree it has already compiled.
# Run it with the `python` of an environment that has scikit-build-core and nanobind: it builds our
# wheel with that interpreter and makes the client environments from it (same Python version).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir="${1:-build/clients}"
shift || true
settings=("$@")
if [ "${#settings[@]}" -eq 0 ]; then
  settings=(--config-settings=build-dir=build/clients-wheel)
fi
mkdir -p "$dir"

rm -rf "$dir/wheel"
python -m pip wheel -q --no-deps --no-build-isolation -w "$dir/wheel" "${settings[@]}" .
wheel="$(ls "$dir"/wheel/ffi-*.whl)"

# make_env NAME PACKAGES...: a virtual environment with PyTorch (pinned, first), the packages, and
# our wheel (always reinstalled: it is what is under test).
make_env() {
  local env="$dir/$1"
  shift
  if [ ! -x "$env/bin/python" ]; then
    python -m venv "$env"
  fi
  "$env/bin/python" -m pip install -q torch==2.13.0
  "$env/bin/python" -m pip install -q "$@"
  "$env/bin/python" -m pip install -q --force-reinstall --no-deps "$wheel"
}

make_env tvm numpy apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post0
make_env tvm-latest numpy apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.15.post2
make_env tilelang tilelang==0.1.15 apache-tvm-ffi==0.1.12
# xgrammar without its dependency on Triton (GPU kernels, ~400 MB): what it imports is listed.
make_env xgrammar apache-tvm-ffi==0.1.15.post2 pydantic transformers typing-extensions numpy
"$dir/xgrammar/bin/python" -m pip install -q --no-deps xgrammar==0.2.8

status=0
for client in tvm tilelang xgrammar; do
  bash tests/clients/run_scenario.sh "$client" "$dir/$client/bin/python" "$dir" || status=1
done

# FlashInfer compiles its kernels with nvcc and runs them on a CUDA device: only where one is.
if nvidia-smi -L > /dev/null 2>&1; then
  make_env flashinfer flashinfer-python==0.7.4 apache-tvm-ffi==0.1.15.post2
  bash tests/clients/run_scenario.sh flashinfer "$dir/flashinfer/bin/python" "$dir" || status=1
else
  echo "flashinfer: no CUDA device here, skipped"
fi

# Map-key hooks registered natively with our headers, called by code built against 0.1.14's.
"$dir/tvm/bin/python" tests/clients/key_hooks_check.py "$dir/key-hooks" || status=1

# The reference 0.1.15.post2 runtime is not run: it segfaults in this scenario.
if "$dir/tvm-latest/bin/python" tests/clients/tvm_scenario.py ours > "$dir/tvm-latest.ours.json" \
  && [ -f "$dir/tvm.reference.json" ]; then
  cp "$dir/tvm.reference.json" "$dir/tvm-latest.reference.json"
  "$dir/tvm/bin/python" tests/clients/compare.py "$dir/tvm-latest" ours || status=1
else
  echo "tvm-latest: the scenario failed on our runtime (or the tvm control did)" >&2
  status=1
fi
exit $status
