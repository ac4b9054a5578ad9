#!/usr/bin/env bash
# The clients tier: real PyPI clients of the reference (pinned) run each scenario in a process of
# its own three times, on the reference's runtime, on ours (`import ffi` first) and on ours in
# place of the reference's runtime file (the client unchanged, no `import ffi`), and the results
# must be equal. Each client gets a virtual environment of its own, with the reference release it was
# built against (or, for xgrammar, the one pip resolves today) as the control:
#
#   tvm       apache-tvm 0.27.0.post1 on apache-tvm-ffi 0.1.14.post0   tvm_scenario.py
#   tilelang  tilelang 0.1.15 on apache-tvm-ffi 0.1.12 (its pin)        tilelang_scenario.py
#   xgrammar  xgrammar 0.2.8 on apache-tvm-ffi 0.1.15.post2             xgrammar_scenario.py
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

# in_place NAME: a copy of the environment's reference package (with its metadata, through which
# the package finds its runtime file) whose runtime file is ours, in $dir/NAME-in-place; put first
# on PYTHONPATH, it stands in for the installed package.
in_place() {
  local env="$dir/$1" copy="$dir/$1-in-place"
  local site
  site="$("$env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  rm -rf "$copy"
  mkdir -p "$copy"
  cp -r "$site/tvm_ffi" "$site"/apache_tvm_ffi-*.dist-info "$copy/"
  cp "$("$env/bin/python" -c 'import ffi.libinfo as i; print(i.get_runtime_library_path())')" \
    "$copy/tvm_ffi/lib/libtvm_ffi.so"
}

status=0
for client in tvm tilelang xgrammar; do
  scenario="tests/clients/${client}_scenario.py"
  in_place "$client"
  for runtime in reference ours in-place; do
    run=("$dir/$client/bin/python")
    if [ "$runtime" = in-place ]; then run=(env "PYTHONPATH=$dir/$client-in-place" "${run[@]}"); fi
    if ! "${run[@]}" "$scenario" "$runtime" > "$dir/$client.$runtime.json"; then
      echo "$client: the scenario failed on the $runtime runtime" >&2
      status=1
      continue 2
    fi
  done
  "$dir/$client/bin/python" tests/clients/compare.py "$dir/$client" ours || status=1
  "$dir/$client/bin/python" tests/clients/compare.py "$dir/$client" in-place || status=1
done

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
