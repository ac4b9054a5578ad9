#!/usr/bin/env bash
# Runs every check on a machine that has only Python and this checkout: installs the system
# packages (apt-get, as root or through sudo) and the Python packages it needs, installs the
# package, builds and runs the C++ tests (plain with GCC, with ASan/UBSan under clang, the threaded
# suites with TSan), runs the fuzzers, runs the Python tests (plain, then the lifetime/thread/tensor
# ones against the ASan build), then the clients tier (PyPI clients of the reference on both
# runtimes), then the linters. Everything is built with -Wall -Wextra -Werror.
# Run it inside a virtual environment.
# CMAKE_ARGS, if set, is left untouched and reaches the package build (scikit-build-core reads it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

section() {
  printf '\n==== %s ==== (at %d s)\n' "$*" "$SECONDS"
}

section "System packages"
# git: the lint lists tracked files; binutils: readelf for the packaging example.
system_packages=(g++ cmake ninja-build libgtest-dev clang-format git binutils clang libclang-rt-14-dev)
missing=()
if command -v dpkg-query > /dev/null; then
  for pkg in "${system_packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  echo "needed: ${system_packages[*]}; missing: ${missing[*]:-none}"
else
  echo "not a Debian system: make sure these (or their equivalents) are installed:"
  echo "  ${system_packages[*]}"
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    as_root=(sudo -n)
  else
    echo "error: missing system packages: ${missing[*]}; install them as root" >&2
    echo "  (apt-get install ${missing[*]}), or run this script as root or with sudo" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

section "Python packages"
# PyTorch first and pinned, so that nothing after it pulls another version. scikit-build-core and
# nanobind: the packaging example builds a wheel without build isolation. JAX (CPU): its arrays as
# arguments and DLPack peers.
python -m pip install torch==2.13.0
python -m pip install numpy pytest pytest-xdist ruff mypy==2.4.1 scikit-build-core nanobind \
  apache-tvm-ffi==0.1.15.post2 jax
# NVRTC (a pip wheel, no CUDA toolkit needed) for ffi.cpp.nvrtc's tests.
python -m pip install "nvidia-cuda-nvrtc==13.*"

section "Install the package (pip install .) and build the C++ tests in the same CMake tree"
# One tree (build/tests) for the wheel and the C++ suites, so the runtime is compiled once.
# Optimized (-O2, where GCC's flow-based warnings such as -Wmaybe-uninitialized fire) but without
# debug info, which would cost a quarter of the build; the sanitizer build below keeps line tables.
# The test suites themselves at -O1 (FFI_TEST_OPTIONS): a quarter less time, the same warnings.
# The same settings build the package for CPython 3.12 below, in this tree.
wheel_settings=(--config-settings=build-dir=build/tests
  --config-settings=cmake.define.FFI_WERROR=ON --config-settings=cmake.define.FFI_BUILD_TESTS=ON
  --config-settings=cmake.define.FFI_TEST_OPTIONS=-O1
  "--config-settings=cmake.define.CMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
python -m pip install "${wheel_settings[@]}" .

section "C++ tests"
ctest --test-dir build/tests --output-on-failure -j2

section "C++ tests with AddressSanitizer and UndefinedBehaviorSanitizer (clang)"
# tests/asan_python.sh builds the package with ASan/UBSan in build/asan, with the C++ suites and
# the fuzzers in the same tree (so the runtime is compiled once for all); its Python tests run
# further below.
bash tests/asan_python.sh build
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j2

section "Fuzzers: DLPack import and TVMFFIAny conversion, 20 s each"
tests/fuzz/run.sh 20 build/asan

section "C++ tests that start threads, with ThreadSanitizer"
# Only the suites whose tests start threads: the rest has nothing for TSan to see (and no CUDA, so
# CMake need not look for nvcc). -O1 -g1: optimized enough for TSan's speed, line tables for reports.
# clang: it compiles the instrumented code faster than GCC.
tsan_suites=(test_env test_error test_function test_object test_object_release)
cmake -S . -B build/tsan -G Ninja -DFFI_BUILD_TESTS=ON -DFFI_WERROR=ON -DFFI_CUDA_TESTS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DFFI_SANITIZE=thread
cmake --build build/tsan --target "${tsan_suites[@]}"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --test-dir build/tsan --output-on-failure -j2 \
  -R "^($(IFS='|'; echo "${tsan_suites[*]}"))\$"

section "Python tests"
# Two workers (pytest-xdist): most tests wait on compilers and subprocesses, so the suite takes
# about half the time on two cores. Every test is independent of the others' order and process.
# --dist loadgroup: the mypy runs share one worker and its warm cache (tests/python/conftest.py).
python -m pytest tests/python -q -n 2 --dist loadgroup

section "Python tests against the package built with AddressSanitizer"
bash tests/asan_python.sh test

section "Python tests on CPython 3.12 (without PyTorch)"
# The suite above runs on the interpreter this machine's PyTorch wheel is for (3.11). CPython 3.12
# behaves differently where the extension meets the interpreter (it ends daemon threads that take
# the GIL back during shutdown with pthread_exit, inside our calls), so the test files that do not
# import PyTorch run again on 3.12, if one is found (on PATH or under pyenv). The package builds in
# the same tree as the wheel above, so only the extension is compiled again.
py312="$(command -v python3.12 2> /dev/null || true)"
if [ -z "$py312" ] || ! "$py312" -c "" 2> /dev/null; then
  py312="$(ls -d "$(pyenv root 2> /dev/null || echo /nonexistent)"/versions/3.12*/bin/python3.12 \
    2> /dev/null | head -n 1 || true)"
fi
if [ -n "$py312" ]; then
  "$py312" -m venv build/py312-venv
  build/py312-venv/bin/python -m pip install -q numpy pytest pytest-xdist scikit-build-core \
    nanobind apache-tvm-ffi==0.1.15.post2
  build/py312-venv/bin/python -m pip install -q "${wheel_settings[@]}" .
  # Not the files about tools or examples (mypy, stubtest, the headers' compile checks, scripts
  # that use PyTorch), which do not depend on the interpreter's version.
  mapfile -t py312_files < <(grep -L -E '^(import torch|torch = )' tests/python/test_*.py \
    | grep -v -E 'test_(examples|builds_with_config|headers|typing|stubgen|jax)\.py$')
  build/py312-venv/bin/python -m pytest -q -n 2 -p no:cacheprovider "${py312_files[@]}"
else
  echo "no CPython 3.12 found: skipped"
fi

section "Clients of the reference: apache-tvm, TileLang and xgrammar on both runtimes"
# Real PyPI clients (pinned), each in a virtual environment of its own, run their scenarios on the
# reference runtime they were built against and on ours; the results must be equal
# (tests/clients/run.sh). Our wheel comes from the main tree above. The environments (a few GB of
# downloads and installs) are kept outside the checkout, keyed by the tier's script (which holds
# the pins) and the interpreter, so a later run only reinstalls our wheel.
clients_key="$( (cat tests/clients/run.sh; python -c 'import sys; print(sys.version)') \
  | sha256sum | cut -c1-16)"
clients_cache="${XDG_CACHE_HOME:-$HOME/.cache}/ffi"
# Environments under an older key (about 5 GB each) are never used again: remove them.
for stale in "$clients_cache"/clients-*; do
  if [ -d "$stale" ] && [ "$stale" != "$clients_cache/clients-$clients_key" ]; then
    rm -rf "$stale"
  fi
done
bash tests/clients/run.sh "$clients_cache/clients-$clients_key" "${wheel_settings[@]}"

section "Lint: ruff"
py_dirs=()
for d in python tests benchmarks examples; do
  if [ -d "$d" ]; then py_dirs+=("$d"); fi
done
ruff check "${py_dirs[@]}"
ruff format --check "${py_dirs[@]}"

section "Lint: clang-format"
mapfile -t cxx_files < <(git ls-files -- include src tests examples benchmarks \
  | grep -E '\.(h|cc|c|cu)$' || true)
if [ "${#cxx_files[@]}" -gt 0 ]; then
  clang-format --dry-run -Werror "${cxx_files[@]}"
fi
echo "checked ${#cxx_files[@]} C/C++ files"

section "All checks passed"
