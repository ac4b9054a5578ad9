#!/usr/bin/env bash
# Builds the package (runtime, extension, testing library) with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/asan-py, then runs the Python tests marked `sanitized`
# (lifetimes, threads, tensors, calls, errors) against that build, with the ASan runtime preloaded
# into the (uninstrumented) interpreter. The CMake tree (build/asan) builds the C++ test suites and the
# libFuzzer targets as well, so tests/run_all.sh runs those from it without compiling the runtime
# again. Built with clang: it compiles the instrumented code twice as fast as GCC, it is the
# compiler libFuzzer needs, and its warnings (-Werror) complement those of the GCC build.
#   bash tests/asan_python.sh [build|test]     (no argument: both)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

phase="${1:-all}"
case "$phase" in
  build | test | all) ;;
  *)
    echo "usage: $0 [build|test]" >&2
    exit 2
    ;;
esac
target="$PWD/build/asan-py"

if [ "$phase" != test ]; then
  # -O0: the suites run in seconds either way, and instrumented templates compile several times
  # slower optimized. Line tables only (-g1) for the reports; assertions on (no NDEBUG), so the
  # debug-only checks run. The CUDA test kernels only where a GPU can run them: without one they
  # test error paths the plain build covers, and nvcc would take a sizable share.
  if command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q "GPU [0-9]"; then
    cuda_tests=ON
  else
    cuda_tests=OFF
  fi
  # The reference's headers for the interop suites, found here: CMake, inside pip's isolated build
  # environment, may not see the installed wheel.
  ref_include="$(python -c 'import importlib.util as u, os; s = u.find_spec("tvm_ffi")
print(os.path.join(os.path.dirname(s.origin), "include") if s else "")')"
  rm -rf "$target"
  python -m pip install --no-deps --target "$target" \
    --config-settings=cmake.define.FFI_REFERENCE_INCLUDE_DIR="$ref_include" \
    --config-settings=build-dir=build/asan \
    --config-settings=cmake.define.CMAKE_C_COMPILER=clang \
    --config-settings=cmake.define.CMAKE_CXX_COMPILER=clang++ \
    --config-settings=cmake.define.FFI_SANITIZE=ON \
    --config-settings=cmake.define.FFI_WERROR=ON \
    --config-settings=cmake.define.FFI_BUILD_TESTS=ON \
    --config-settings=cmake.define.FFI_BUILD_FUZZERS=ON \
    --config-settings=cmake.define.FFI_CUDA_TESTS="$cuda_tests" \
    --config-settings=cmake.build-type=Debug \
    "--config-settings=cmake.define.CMAKE_CXX_FLAGS_DEBUG=-O0 -g1" \
    "--config-settings=cmake.define.CMAKE_C_FLAGS_DEBUG=-O0 -g1" .
fi
if [ "$phase" = build ]; then
  exit 0
fi
if [ ! -d "$target/ffi" ]; then
  echo "error: no ASan build in $target; run: bash tests/asan_python.sh build" >&2
  exit 1
fi

# The ASan runtime of the compiler that built the package must come first in the process. The C++
# runtime is preloaded with it: Python itself does not link libstdc++, and ASan's interceptor of
# __cxa_throw finds no real function to call when libstdc++ arrives later (with the extension).
preload=""
for lib in libclang_rt.asan-x86_64.so libstdc++.so; do
  path="$(clang++ -print-file-name="$lib")"
  if [ ! -e "$path" ]; then
    echo "error: the compiler has no $lib ($path)" >&2
    exit 1
  fi
  preload="${preload:+$preload:}$(readlink -f "$path")"
done

# detect_leaks=0: CPython and PyTorch keep allocations alive until exit by design.
# Reports go to files (pytest's capture would swallow a dying process's stderr) and are printed
# below; the settings reach the subprocesses the tests start (compilers too, which run fine so).
logs="$PWD/build/asan-py-logs"
rm -rf "$logs"
mkdir -p "$logs"
export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"

# The tests must see the instrumented build, not an installed ffi.
LD_PRELOAD="$preload" python -c "
import ffi
assert ffi.__file__.startswith('$target/'), ffi.__file__
"

status=0
# The files marked `sanitized` (pyproject.toml): lifetimes, threads, tensors, calls, errors.
LD_PRELOAD="$preload" python -m pytest -q -n 2 -p no:cacheprovider -m sanitized tests/python ||
  status=$?
if [ -n "$(ls -A "$logs")" ]; then
  echo "sanitizer reports:" >&2
  cat "$logs"/* >&2
  exit 1
fi
exit "$status"
