#!/usr/bin/env bash
# Runs every check: installs the Python dependencies and the package, builds and runs the C++
# tests (plain and with ASan/UBSan), runs the Python tests, then the linters.
# CMAKE_ARGS, if set, is left untouched and reaches the package build (scikit-build-core reads it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

section() {
  printf '\n==== %s ====\n' "$*"
}

section "Python dependencies"
python -m pip install torch==2.13.0
python -m pip install numpy pytest ruff mypy==2.4.1 apache-tvm-ffi==0.1.15.post2

section "Install the package (pip install .)"
python -m pip install .

section "C++ tests"
cmake -S . -B build/tests -G Ninja -DFFI_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/tests
ctest --test-dir build/tests --output-on-failure -j2

section "C++ tests with AddressSanitizer and UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -G Ninja -DFFI_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFFI_SANITIZE=ON
cmake --build build/asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j2

section "Fuzzers: DLPack import and TVMFFIAny conversion, 20 s each (clang)"
tests/fuzz/run.sh 20

section "Python tests"
python -m pytest tests/python -q

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
