#!/usr/bin/env bash
# The Windows build, checked from Linux: the runtime, the kernel libraries and the C++ test suites
# cross-built with MinGW-w64 (cmake/toolchains/mingw-w64-x86_64.cmake) and run under wine by ctest.
# Self-contained: exits non-zero when a tool is missing, the build fails or a suite fails.
# A first run takes about 12 minutes on two cores (the build); later runs rebuild what changed and
# run the 65 ctest entries in seconds.
#
#   bash tests/windows_cross.sh            configure (once), build, run every suite
#   FFI_WINDOWS_BUILD_DIR=dir JOBS=4 bash tests/windows_cross.sh
#
# Needs: g++-mingw-w64-x86-64 (the -posix compilers), wine (wine64), cmake, ninja, and
# GoogleTest's sources in /usr/src/googletest (Debian: googletest), built here for Windows.
# The apache-tvm-ffi wheel's headers, when the active Python has them, add the interop libraries.
# docs/platforms.md says what the build covers and what differs on Windows.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
# Absolute: CMake would take a relative output directory from each subdirectory.
build=$(realpath -m "${FFI_WINDOWS_BUILD_DIR:-$repo/build/windows}")
jobs=${JOBS:-2}
gtest_src=${FFI_GTEST_SOURCE_DIR:-/usr/src/googletest}

fail() {
  echo "windows_cross.sh: $*" >&2
  exit 1
}
for tool in x86_64-w64-mingw32-g++-posix cmake ninja; do
  command -v "$tool" >/dev/null || fail "$tool not found (apt-get install g++-mingw-w64-x86-64 cmake ninja-build)"
done
wine=$(command -v wine64 || command -v wine || true)
[ -n "$wine" ] || fail "wine not found (apt-get install wine64)"
[ -f "$gtest_src/CMakeLists.txt" ] || fail "no GoogleTest sources in $gtest_src (apt-get install googletest)"

# The reference's headers for the interop libraries: FFI_REFERENCE_INCLUDE_DIR, else the active
# Python's wheel, if it has one.
reference_include=${FFI_REFERENCE_INCLUDE_DIR:-}
[ -n "$reference_include" ] || reference_include=$(python3 -c "import importlib.util as u, os; s = u.find_spec('tvm_ffi'); \
print(os.path.join(os.path.dirname(s.origin), 'include') if s else '')" 2>/dev/null || true)

# Every program and DLL in one directory (bin/): Windows finds a program's DLLs beside it.
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchains/mingw-w64-x86_64.cmake" \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$wine" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$build/bin" \
    -DFFI_WERROR=ON \
    -DFFI_BUILD_TESTS=ON \
    -DFFI_TEST_OPTIONS=-O1 \
    -DFFI_GTEST_SOURCE_DIR="$gtest_src" \
    -DFFI_REFERENCE_INCLUDE_DIR="$reference_include" \
    -DFFI_CUDA_TESTS=OFF \
    -DFFI_BUILD_TESTING_LIBRARY=OFF
fi
cmake --build "$build" -j "$jobs"

# The MinGW runtime DLLs (C++ library, libgcc's unwinder, winpthreads) beside the programs.
for dll in libstdc++-6.dll libgcc_s_seh-1.dll libwinpthread-1.dll; do
  src=$(x86_64-w64-mingw32-g++-posix -print-file-name="$dll")
  [ -f "$src" ] || src=/usr/x86_64-w64-mingw32/lib/$dll
  [ -f "$src" ] || fail "$dll not found in the MinGW installation"
  cp -u "$src" "$build/bin/"
done

# A wine prefix of our own (made on first use), one wine server for all the suites.
export WINEPREFIX=${WINEPREFIX:-$build/wineprefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
if [ ! -d "$WINEPREFIX" ]; then
  "$wine" wineboot -i >/dev/null 2>&1 || true
  "$wineserver" -w  # the prefix is complete once its set-up processes have ended
fi
"$wineserver" -p >/dev/null 2>&1 || true
trap '"$wineserver" -k >/dev/null 2>&1 || true' EXIT
# Wine's background services (services.exe, winedevice, ...) start with the first program and
# inherit its output; started by a test, they would hold ctest's pipe open until the timeout.
"$wine" cmd.exe /c exit 0 </dev/null >/dev/null 2>&1 || true

ctest --test-dir "$build" -j "$jobs" --output-on-failure --timeout 300
