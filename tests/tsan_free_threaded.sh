#!/usr/bin/env bash
# The thread stress suites on free-threaded CPython 3.13t under ThreadSanitizer: the interpreter
# built with --with-thread-sanitizer (once, cached: tests/free_threaded_python.sh --tsan), the
# package (runtime and extension) built with -fsanitize=thread by the same compiler (GCC, one TSan
# runtime in the process), and tests/python/calls/test_threads_stress.py and
# test_registry_threads.py run without the GIL. A data race in the runtime or the extension stops
# the run (halt_on_error) with both stacks; CPython's own known reports are suppressed with its
# suppressions file and tests/tsan_python_suppressions.txt (races inside CPython 3.13t that the
# tests reach; never a frame of ours).
#
# Usage: bash tests/tsan_free_threaded.sh [BUILD_DIR]    (default build/ft-tsan)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(realpath -m "${1:-build/ft-tsan}")"

python_tsan="$(bash tests/free_threaded_python.sh --tsan)"
prefix="$(dirname "$(dirname "$python_tsan")")"
"$python_tsan" -m venv "$out/venv"
py="$out/venv/bin/python"
"$py" -m pip install -q -r tests/requirements-core.txt
"$py" -m pip install -q --no-build-isolation --no-deps \
  --config-settings=build-dir="$out/build" \
  --config-settings=cmake.define.FFI_SANITIZE=thread \
  --config-settings=cmake.build-type=RelWithDebInfo \
  "--config-settings=cmake.define.CMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" .

# One suppressions file: CPython's, then ours.
cat "$prefix/share/tsan/suppressions_free_threading.txt" tests/tsan_python_suppressions.txt \
  > "$out/suppressions.txt"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$out/suppressions.txt"
"$py" -c 'import sys, ffi; assert not sys._is_gil_enabled(), "GIL enabled"'
# -s: a report is written to the standard error as the process stops, which pytest's capture
# would swallow.
FFI_CACHE_DIR="$out/cache" "$py" -m pytest -q -s -p no:cacheprovider \
  tests/python/calls/test_threads_stress.py tests/python/calls/test_registry_threads.py
